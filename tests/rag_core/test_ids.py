"""The product spec's id format: ``document_id: BEN-2026-HLTH-01``, chunk ``BEN-2026-HLTH-01_p14_c02``.
Letters of either case, digits, ``.``, ``_``, ``-``; case-sensitive; stable point ids; every place
that parses a chunk id back still finds the document and page."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core.catalog import load_catalog
from rag_core.embeddings.local import LocalEmbedder
from rag_core.eval.gold import chunk_location
from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.index.edge import EdgeIndex
from rag_core.ingest.pipeline import Ingestor, point_id_for
from rag_core.pipeline import build_pipeline
from rag_core.types import split_chunk_id
from tests.rag_core.conftest import core_settings, token

CATALOG = """
documents:
  - file: health.md
    document_id: BEN-2026-HLTH-01
    policy_id: BEN-HLTH
    title: Health Benefits 2026
    source_uri: https://hr.fabrikam.example/BEN-2026-HLTH-01.md
  - file: perks-ca.md
    document_id: PERKS-CA
    policy_id: perks.ca_v2
    title: California Perks
  - file: perks-ca-lower.md
    document_id: perks-ca
    title: California Perks (lower-case id, another document)
"""


def corpus(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "health.md").write_text(
        "# Health Benefits 2026\n\n## Hearing Aids\n\nThe health plan reimburses hearing aids up to $1,800 "
        "every three years.\n",
        encoding="utf-8",
    )
    (root / "perks-ca.md").write_text(
        "# California Perks\n\nCalifornia staff get a $40 gym stipend.\n", encoding="utf-8"
    )
    (root / "perks-ca-lower.md").write_text("# Perks\n\nA different perks document.\n", encoding="utf-8")
    (root / "catalog.yaml").write_text(CATALOG, encoding="utf-8")
    return root


@pytest.mark.unit
def test_catalog_accepts_the_spec_ids_case_sensitively(tmp_path: Path) -> None:
    catalog = load_catalog(corpus(tmp_path))
    assert catalog.errors == []
    assert {m.document_id for m in catalog.documents} == {"BEN-2026-HLTH-01", "PERKS-CA", "perks-ca"}
    assert {m.policy_id for m in catalog.documents} >= {"BEN-HLTH", "perks.ca_v2"}


@pytest.mark.unit
@pytest.mark.parametrize(
    ("chunk_id", "parsed"),
    [
        ("BEN-2026-HLTH-01_p14_c02", ("BEN-2026-HLTH-01", 14)),
        ("plan_p2_p1_c00", ("plan_p2", 1)),
        ("a.b_c-D_p3_c10", ("a.b_c-D", 3)),
        ("no-page", None),
        ("doc_p1", None),
    ],
)
def test_chunk_ids_parse_back_to_document_and_page(chunk_id: str, parsed: tuple[str, int] | None) -> None:
    assert split_chunk_id(chunk_id) == parsed


@pytest.mark.unit
def test_point_ids_are_stable_and_case_sensitive() -> None:
    assert point_id_for("BEN-2026-HLTH-01_p1_c00") == point_id_for("BEN-2026-HLTH-01_p1_c00")
    assert point_id_for("BEN-2026-HLTH-01_p1_c00") != point_id_for("ben-2026-hlth-01_p1_c00")
    import uuid

    from rag_core.index.base import POINT_NAMESPACE

    assert point_id_for("BEN-2026-HLTH-01_p1_c00") == str(uuid.uuid5(POINT_NAMESPACE, "BEN-2026-HLTH-01_p1_c00"))


@pytest.mark.integration
async def test_a_spec_id_is_ingested_retrieved_and_cited(tmp_path: Path) -> None:
    root = corpus(tmp_path / "corpus")
    index = EdgeIndex(tmp_path / "data" / "index")
    summary = await Ingestor(index, LocalEmbedder.shared(), progress=False).run(root)
    assert summary.failed == [] and summary.ingested == 3
    settings = core_settings(tmp_path / "data", LATE_INTERACTION="none")
    pipeline = build_pipeline(settings, index=index, embedder=LocalEmbedder.shared(), generator=ExtractiveGenerator())
    try:
        question = "How much does the health plan reimburse for hearing aids?"
        answer = await pipeline.answer(question, token(["employees"]))
    finally:
        await index.aclose()
    assert not answer.abstained, answer
    assert [c.chunk_id for c in answer.citations] == ["BEN-2026-HLTH-01_p1_c00"]
    assert "[^BEN-2026-HLTH-01_p1_c00]" in answer.answer and "$1,800" in answer.answer
    assert answer.citations[0].document_id == "BEN-2026-HLTH-01"
    assert chunk_location("BEN-2026-HLTH-01_p1_c00", {"BEN-2026-HLTH-01": "health.md"}) == ("health.md", 1)
