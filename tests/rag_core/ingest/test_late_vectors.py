"""Ingest stores late-interaction token vectors with every chunk, records their model in the manifest,
and refuses to mix: an index is built with token vectors or without them (real EdgeIndex, hashed models)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import qdrant_edge as qe

from rag_core.errors import IndexModelMismatch
from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.index.base import LATE, token_vectors
from rag_core.index.edge import EdgeIndex
from rag_core.index.manifest import Manifest, load_manifest
from rag_core.ingest.pipeline import Ingestor, IngestSummary
from rag_core.pipeline import build_pipeline
from rag_core.retrieval import HybridRetriever
from tests.fakes.embedder import HashEmbedder, HashTokenEncoder
from tests.rag_core.conftest import core_settings, token
from tests.rag_core.ingest.test_pipeline import EVERYONE, make_corpus

pytestmark = pytest.mark.integration


async def ingest(index_dir: Path, corpus: Path, late: Any | None) -> IngestSummary:
    index = EdgeIndex(index_dir)
    try:
        return await Ingestor(index, HashEmbedder(), late=late, progress=False).run(corpus)
    finally:
        await index.aclose()


def stored(index: EdgeIndex) -> dict[str, tuple[str, Any]]:
    """chunk id -> (content, stored token vectors or None) for every point in the shard."""
    records, _ = index._open().scroll(qe.ScrollRequest(limit=10_000, with_payload=True, with_vector=True))
    out = {}
    for record in records:
        vectors = record.vector.get(LATE) if isinstance(record.vector, dict) else None
        out[record.payload["chunk_id"]] = (record.payload["content"], vectors)
    return out


async def test_every_chunk_carries_its_token_vectors(tmp_path: Path) -> None:
    encoder = HashTokenEncoder()
    summary = await ingest(tmp_path / "index", make_corpus(tmp_path / "corpus"), encoder)
    assert summary.failed == [] and summary.chunks > 5
    index = EdgeIndex(tmp_path / "index")
    try:
        points = stored(index)
        assert len(points) == summary.chunks
        for content, vectors in points.values():
            expected = token_vectors(encoder.encode_query(content))
            assert vectors is not None and np.allclose(vectors, expected, atol=1e-6)
        # One encoder call per document, all its chunks in one batch (the dense embedder's pass).
        assert sum(encoder.calls) == summary.chunks and len(encoder.calls) == summary.ingested
        manifest = await load_manifest(index)
        assert manifest is not None
        assert (manifest.late_model, manifest.late_dimension) == (encoder.model_name, encoder.dimension)
    finally:
        await index.aclose()


async def test_an_index_without_token_vectors_stores_none(tmp_path: Path) -> None:
    await ingest(tmp_path / "index", make_corpus(tmp_path / "corpus"), None)
    index = EdgeIndex(tmp_path / "index")
    try:
        assert all(vectors is None for _, vectors in stored(index).values())
        manifest = await load_manifest(index)
        assert manifest is not None and manifest.late_model is None
    finally:
        await index.aclose()


@pytest.mark.parametrize(
    ("built_with", "then"),
    [
        (None, HashTokenEncoder()),  # adding token vectors to an index built without them
        (HashTokenEncoder(), None),  # new chunks without vectors in an index that has them
        (HashTokenEncoder(32), HashTokenEncoder(32, model_name="another-colbert")),
    ],
)
async def test_ingest_refuses_to_mix_token_vectors(tmp_path: Path, built_with: Any, then: Any) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    await ingest(tmp_path / "index", corpus, built_with)
    (corpus / "dental.md").write_text("# Dental Plan 2026\n\nChanged text.\n", encoding="utf-8")
    before = EdgeIndex(tmp_path / "index")
    points_before = stored(before)
    await before.aclose()
    with pytest.raises(IndexModelMismatch, match="LATE_INTERACTION=") as raised:
        await ingest(tmp_path / "index", corpus, then)
    assert "re-ingest into a fresh data dir" in str(raised.value)
    after = EdgeIndex(tmp_path / "index")
    try:
        assert stored(after).keys() == points_before.keys()  # nothing written
    finally:
        await after.aclose()


async def test_a_question_with_late_interaction_on_an_index_without_vectors_is_refused(tmp_path: Path) -> None:
    await ingest(tmp_path / "data" / "index", make_corpus(tmp_path / "corpus"), None)
    index = EdgeIndex(tmp_path / "data" / "index")
    pipeline = build_pipeline(
        core_settings(tmp_path / "data"),
        index=index,
        embedder=HashEmbedder(),
        generator=ExtractiveGenerator(),
        late=HashTokenEncoder(),
    )
    try:
        with pytest.raises(IndexModelMismatch, match="no token vectors"):
            await pipeline.answer("What is the orthodontia lifetime maximum?", token(["employees"]))
    finally:
        await pipeline.aclose()


async def test_an_index_with_vectors_still_serves_without_late_interaction(tmp_path: Path) -> None:
    await ingest(tmp_path / "data" / "index", make_corpus(tmp_path / "corpus"), HashTokenEncoder())
    index = EdgeIndex(tmp_path / "data" / "index")
    settings = core_settings(tmp_path / "data", SIMILARITY_CUTOFF=0.1, LATE_INTERACTION="none")
    pipeline = build_pipeline(settings, index=index, embedder=HashEmbedder(), generator=ExtractiveGenerator())
    try:
        answer = await pipeline.answer("What is the orthodontia lifetime maximum?", token(["employees"]))
        assert not answer.abstained and "$1,500" in answer.answer
        candidates = await HybridRetriever(index, HashEmbedder()).retrieve("orthodontia lifetime maximum", EVERYONE)
        assert candidates and all(c.late_score is None for c in candidates)
    finally:
        await pipeline.aclose()


def test_a_manifest_from_before_token_vectors_reads_as_without_them() -> None:
    old = {"schema": 1, "embedding_model": "m", "dimension": 8, "documents": {}}
    manifest = Manifest.from_json(old)
    assert (manifest.late_model, manifest.late_dimension) == (None, 0)
    manifest.require_late_model(None, 0, writing=False)
    manifest.require_late_model(None, 0, writing=True)
    with pytest.raises(IndexModelMismatch):
        manifest.require_late_model("answerai-colbert-small-v1", 128, writing=False)
    with_vectors = Manifest("m", 8, late_model="answerai-colbert-small-v1", late_dimension=128)
    assert Manifest.from_json(with_vectors.to_json()) == with_vectors
    assert with_vectors.index_version != Manifest("m", 8).index_version  # answer caches see the change
    with_vectors.require_late_model(None, 0, writing=False)  # reading without late interaction is fine
    with pytest.raises(IndexModelMismatch):
        with_vectors.require_late_model("answerai-colbert-small-v1", 96, writing=False)
