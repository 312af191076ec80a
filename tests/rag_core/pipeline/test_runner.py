"""The runner's contract: every stage timed, the first abstention ends the run, ``run_until``
stops after the named stage, errors carry the query id, and one Answer is built from the state."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core.errors import IndexUnavailable
from rag_core.pipeline import Pipeline, QueryState, StageBase
from rag_core.pipeline.corpus import CorpusView
from rag_core.settings import CoreSettings
from rag_core.types import AbstainReason
from tests.rag_core.conftest import FixtureCorpus, token

pytestmark = pytest.mark.unit


class Recording(StageBase):
    def __init__(
        self, name: str, log: list[str], *, abstain: AbstainReason | None = None, fail: Exception | None = None
    ) -> None:
        self.name = name
        self.log = log
        self.abstain_with = abstain
        self.fail = fail
        self.closed = False

    async def run(self, state: QueryState) -> None:
        self.log.append(self.name)
        if self.fail is not None:
            raise self.fail
        if self.abstain_with is not None:
            state.abstain(self.abstain_with, self.name)

    async def aclose(self) -> None:
        self.closed = True


def _pipeline(tmp_path: Path, stages: list[StageBase]) -> Pipeline:
    settings = CoreSettings(_env_file=None, BENEFITSBOT_DATA_DIR=str(tmp_path), RBAC_SIGNING_KEY="k")
    corpus = CorpusView(None, "m", 8)  # type: ignore[arg-type]  # the toy stages never read the index
    return Pipeline(settings, stages, corpus, model_label=lambda by: f"{by or 'none'}+m")


async def test_the_first_abstention_ends_the_run_and_names_its_stage(tmp_path: Path) -> None:
    log: list[str] = []
    stages = [Recording("a", log), Recording("b", log, abstain=AbstainReason.CONFLICT), Recording("c", log)]
    answer = await _pipeline(tmp_path, stages).answer("q?", "t")  # type: ignore[arg-type]
    assert log == ["a", "b"]
    assert answer.abstained and answer.abstain_reason == AbstainReason.CONFLICT
    assert set(answer.latency_ms) == {"a", "b", "total"}  # every stage that ran is timed


async def test_run_until_stops_after_the_named_stage(tmp_path: Path) -> None:
    log: list[str] = []
    pipeline = _pipeline(tmp_path, [Recording("a", log), Recording("b", log), Recording("c", log)])
    state = await pipeline.run_until("b", "q?", "t")
    assert log == ["a", "b"] and not state.finished
    with pytest.raises(KeyError, match="no stage named 'typo'"):
        await pipeline.run_until("typo", "q?", "t")


async def test_a_core_error_carries_the_query_id_and_the_failing_stage_is_timed(tmp_path: Path) -> None:
    log: list[str] = []
    pipeline = _pipeline(tmp_path, [Recording("a", log, fail=IndexUnavailable("gone")), Recording("b", log)])
    with pytest.raises(IndexUnavailable) as caught:
        await pipeline.run(state := QueryState("q?", "t"))
    assert getattr(caught.value, "query_id", None) == state.query_id
    assert "a" in state.timings and log == ["a"]


async def test_stage_names_are_unique(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unique"):
        _pipeline(tmp_path, [Recording("a", []), Recording("a", [])])


async def test_aclose_reaches_every_stage(tmp_path: Path) -> None:
    stages = [Recording("a", []), Recording("b", [])]
    await _pipeline(tmp_path, stages).aclose()  # type: ignore[arg-type]
    assert all(s.closed for s in stages)


@pytest.mark.integration
async def test_the_default_pipeline_runs_the_documented_stages_in_order(fixture_corpus: FixtureCorpus) -> None:
    pipeline, _ = fixture_corpus.pipeline()
    assert [s.name for s in pipeline.stages] == [
        "question",
        "scope",
        "rewrite",
        "embed",
        "retrieve",
        "gate",
        "rerank",
        "named",
        "context",
        "jurisdiction",
        "precedence",
        "read",
        "not_asked",
        "answerable",
        "topic",
        "key_word",
        "answer_type",
        "generate",
        "validate",
        "support",
        "amounts",
    ]
    answer = await pipeline.answer("What is the medical plan deductible?", token(["employees"]))
    assert not answer.abstained
    assert set(answer.latency_ms) == {s.name for s in pipeline.stages} | {"total"}
    retrieved = await pipeline.run_until("retrieve", "What is the medical plan deductible?", token(["employees"]))
    assert retrieved.candidates and retrieved.generated is None and retrieved.context == []
