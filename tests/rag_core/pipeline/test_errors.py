"""Faults in the answer path: a clear error the edge can act on, with the query's reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core.access import mint_token
from rag_core.embeddings.openai_embedder import OpenAIEmbedder
from rag_core.errors import AccessDenied, IndexUnavailable
from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.generation.openai_generator import OpenAIGenerator
from rag_core.index.edge import EdgeIndex
from rag_core.pipeline import Pipeline, build_pipeline
from rag_core.rerank import CohereReranker
from rag_core.settings import CoreSettings
from tests.fakes.embedder import HashEmbedder


def _engine(tmp_path: Path) -> Pipeline:
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=str(tmp_path), RBAC_SIGNING_KEY="k", _env_file=None)
    return build_pipeline(
        settings, index=EdgeIndex(tmp_path / "index"), embedder=HashEmbedder(), generator=ExtractiveGenerator()
    )


@pytest.mark.unit
async def test_a_forged_token_is_denied_before_the_index_is_touched(tmp_path: Path) -> None:
    pipeline = _engine(tmp_path)  # no index exists: touching it would raise IndexUnavailable instead
    forged = mint_token("not-the-key", subject="u", acl_groups=["employees"], state=None)
    with pytest.raises(AccessDenied):
        await pipeline.answer("What is the deductible?", forged)


@pytest.mark.unit
async def test_a_missing_index_raises_index_unavailable_with_the_query_id(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pipeline = _engine(tmp_path)
    token = mint_token("k", subject="u", acl_groups=["employees"], state=None)
    with caplog.at_level("ERROR", logger="benefitsbot.query"), pytest.raises(IndexUnavailable) as caught:
        await pipeline.answer("What is the deductible?", token)
    query_id = getattr(caught.value, "query_id", "")
    assert len(query_id) == 32
    assert any(query_id in record.getMessage() for record in caplog.records)  # the log line shares the reference
    assert all("deductible" not in record.getMessage() for record in caplog.records)  # no question text


@pytest.mark.unit
async def test_warm_up_before_any_ingest_leaves_the_error_to_readiness_and_questions(tmp_path: Path) -> None:
    pipeline = _engine(tmp_path)
    await pipeline.warm_up()  # no index yet: nothing to load, nothing raised
    token = mint_token("k", subject="u", acl_groups=["employees"], state=None)
    with pytest.raises(IndexUnavailable):
        await pipeline.answer("What is the deductible?", token)


@pytest.mark.unit
async def test_aclose_reaches_every_component_that_holds_a_client_or_a_session(tmp_path: Path) -> None:
    """One close protocol: the OpenAI embedder's and generator's HTTP clients, the Cohere
    session and the index shard are all released by ``Pipeline.aclose``."""
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=str(tmp_path), RBAC_SIGNING_KEY="k", _env_file=None)
    embedder = OpenAIEmbedder(api_key="sk-test", base_url="http://127.0.0.1:9/v1", dimension=8)
    generator = OpenAIGenerator(api_key="sk-test", base_url="http://127.0.0.1:9/v1")
    reranker = CohereReranker("co-test", base_url="http://127.0.0.1:9/v2")
    session = reranker._http()  # opened by the first question in production
    index = EdgeIndex(tmp_path / "index")
    await index.prepare(8)  # creates and opens the shard
    pipeline = build_pipeline(settings, index=index, embedder=embedder, generator=generator, reranker=reranker)

    await pipeline.aclose()

    assert embedder._client.is_closed()
    assert generator._client.is_closed()
    assert session.closed
    assert index._shard is None
