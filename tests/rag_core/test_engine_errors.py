"""Faults in the answer path: a clear error the edge can act on, with the query's reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core.access import mint_token
from rag_core.engine import Engine
from rag_core.errors import AccessDenied, IndexUnavailable
from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.index.edge import EdgeIndex
from rag_core.settings import CoreSettings
from tests.fakes.embedder import HashEmbedder


def _engine(tmp_path: Path) -> Engine:
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=str(tmp_path), RBAC_SIGNING_KEY="k", _env_file=None)
    return Engine(settings, EdgeIndex(tmp_path / "index"), HashEmbedder(), ExtractiveGenerator())


@pytest.mark.unit
async def test_a_forged_token_is_denied_before_the_index_is_touched(tmp_path: Path) -> None:
    engine = _engine(tmp_path)  # no index exists: touching it would raise IndexUnavailable instead
    forged = mint_token("not-the-key", subject="u", acl_groups=["employees"], state=None)
    with pytest.raises(AccessDenied):
        await engine.answer("What is the deductible?", forged)


@pytest.mark.unit
async def test_a_missing_index_raises_index_unavailable_with_the_query_id(tmp_path: Path,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    engine = _engine(tmp_path)
    token = mint_token("k", subject="u", acl_groups=["employees"], state=None)
    with caplog.at_level("ERROR", logger="benefitsbot.query"), pytest.raises(IndexUnavailable) as caught:
        await engine.answer("What is the deductible?", token)
    query_id = getattr(caught.value, "query_id", "")
    assert len(query_id) == 32
    assert any(query_id in record.getMessage() for record in caplog.records)  # the log line shares the reference
    assert all("deductible" not in record.getMessage() for record in caplog.records)  # no question text


@pytest.mark.unit
async def test_warm_up_before_any_ingest_leaves_the_error_to_readiness_and_questions(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    await engine.warm_up()  # no index yet: nothing to load, nothing raised
    token = mint_token("k", subject="u", acl_groups=["employees"], state=None)
    with pytest.raises(IndexUnavailable):
        await engine.answer("What is the deductible?", token)


@pytest.mark.unit
async def test_close_releases_every_component_that_holds_connections(tmp_path: Path) -> None:
    closed: list[str] = []

    class ClosingGenerator(ExtractiveGenerator):
        async def close(self) -> None:
            closed.append("generator")

    class ClosingEmbedder(HashEmbedder):
        async def close(self) -> None:
            closed.append("embedder")

    settings = CoreSettings(BENEFITSBOT_DATA_DIR=str(tmp_path), RBAC_SIGNING_KEY="k", _env_file=None)
    engine = Engine(settings, EdgeIndex(tmp_path / "index"), ClosingEmbedder(), ClosingGenerator())
    await engine.close()
    assert closed == ["generator", "embedder"]
