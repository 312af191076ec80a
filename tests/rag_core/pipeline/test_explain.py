"""Abstentions that help, on the real core and a real Edge index: a document not yet in effect is
named with its date only to those who may see it, a conflict names the documents that disagree,
a near miss suggests a covered topic, and nothing outside the asker's (and audience's) scope is
ever named.

The fixture corpus plus one executives-only document that takes effect next year, so the test can
ask an employee the question that document answers.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
import pytest_asyncio

from rag_core.embeddings.local import LocalEmbedder
from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.index.edge import EdgeIndex
from rag_core.ingest.pipeline import Ingestor
from rag_core.models import ColbertEncoder
from rag_core.pipeline import Pipeline, build_pipeline
from rag_core.pipeline.explain import HORIZON
from rag_core.types import AbstainReason, Answer, Candidate
from tests.rag_core.conftest import core_settings, token
from tests.rag_core.corpus_factory import DOCS, Doc, _md, write_corpus
from tests.rag_core.spies import ScriptedGenerator, SpyIndex

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]

EXEC_FUTURE = Doc(
    file="docs/executive-retention-bonus-2027.md",
    document_id="executive-retention-bonus-2027",
    policy_id="executive-retention-bonus",
    title="Fabrikam Executive Retention Bonus Plan 2027",
    effective_date="2027-01-01",
    version="2027.1",
    acl_groups=("executives",),
    body=_md("""
        # Fabrikam Executive Retention Bonus Plan 2027

        ## Retention Bonus Amount

        Executives who stay through the vesting date receive a retention bonus of 25% of base salary.
        The executive retention bonus is paid in March after the vesting date.
        """),
)
RETENTION_Q = "How large is the executive retention bonus?"
MATCH_Q = "What is the 401(k) company match?"
LEAVE_Q = "How many weeks of parental leave do I get?"
OOP_Q = "What is the HMO out-of-pocket maximum?"


@dataclass
class ExplainCorpus:
    data_dir: Path
    index: EdgeIndex
    embedder: LocalEmbedder
    late: ColbertEncoder

    def pipeline(self, generator: object | None = None) -> tuple[Pipeline, SpyIndex]:
        spy = SpyIndex(self.index)
        built = build_pipeline(
            core_settings(self.data_dir),
            index=spy,
            embedder=self.embedder,  # type: ignore[arg-type]
            generator=generator or ExtractiveGenerator(),
            late=self.late,
        )  # type: ignore[arg-type]
        return built, spy


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def corpus(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ExplainCorpus]:
    root = tmp_path_factory.mktemp("explain")
    embedder, late = LocalEmbedder.shared(), ColbertEncoder.shared()  # the defaults, as in conftest.py
    index = EdgeIndex(root / "data" / "index")
    summary = await Ingestor(index, embedder, late=late, progress=False).run(
        write_corpus(root / "corpus", (*DOCS, EXEC_FUTURE))
    )
    assert summary.failed == [], summary.render()
    yield ExplainCorpus(root / "data", index, embedder, late)
    await index.aclose()


def named(answer: Answer) -> str:
    """Everything an abstention tells the asker, as one string (to search for names and ids)."""
    return answer.model_dump_json()


# -- a document not yet in effect ---------------------------------------------------------------------


async def test_a_document_not_yet_in_effect_is_named_with_its_date(corpus: ExplainCorpus) -> None:
    pipeline, _ = corpus.pipeline()
    answer = await pipeline.answer(MATCH_Q, token(["employees"]))
    assert answer.abstained and answer.abstain_reason == AbstainReason.LOW_SIMILARITY
    assert answer.abstain_detail is not None and answer.abstain_detail.not_yet_effective is not None
    future = answer.abstain_detail.not_yet_effective
    assert (future.document_id, future.effective_date) == ("retirement-401k-2027", date(2027, 1, 1))
    assert answer.citations == []  # named, never quoted: nothing of it is in effect
    assert "explain" in answer.latency_ms


async def test_the_future_query_is_the_askers_filter_with_only_the_date_lifted(corpus: ExplainCorpus) -> None:
    pipeline, spy = corpus.pipeline()
    await pipeline.answer(MATCH_Q, token(["employees"], state="CA"))
    first, future = spy.queries
    assert future.access.group_sets == first.access.group_sets
    assert future.access.jurisdiction_sets == first.access.jurisdiction_sets
    assert future.access.language == first.access.language
    assert future.access.exclude_document_ids >= first.access.exclude_document_ids
    assert (first.access.as_of, future.access.as_of) == (date(2026, 11, 30), HORIZON)
    assert future.document_ids() <= {"retirement-401k-2027"}  # only what is not yet in effect


async def test_a_future_document_the_asker_may_not_see_is_never_named(corpus: ExplainCorpus) -> None:
    pipeline, spy = corpus.pipeline()
    answer = await pipeline.answer(RETENTION_Q, token(["employees"]))
    assert answer.abstained and answer.abstain_detail is None
    assert "retention-bonus" not in named(answer) and "Retention Bonus" not in named(answer)
    assert all("executive-retention-bonus-2027" not in q.document_ids() for q in spy.queries)


async def test_the_same_future_document_is_named_to_an_executive(corpus: ExplainCorpus) -> None:
    pipeline, _ = corpus.pipeline()
    answer = await pipeline.answer(RETENTION_Q, token(["executives"]))
    assert answer.abstain_detail is not None and answer.abstain_detail.not_yet_effective is not None
    assert answer.abstain_detail.not_yet_effective.title == EXEC_FUTURE.title


async def test_in_a_channel_a_future_document_is_named_only_if_the_whole_audience_may_see_it(
    corpus: ExplainCorpus,
) -> None:
    pipeline, _ = corpus.pipeline()
    answer = await pipeline.answer(
        RETENTION_Q, token(["executives"]), audience_tokens=[token(["employees"], subject="bob@fabrikam.example")]
    )
    assert answer.abstained and "Retention Bonus" not in named(answer)
    shared = await pipeline.answer(
        MATCH_Q,
        token(["executives", "employees"]),
        audience_tokens=[token(["employees"], subject="bob@fabrikam.example")],
    )
    assert shared.abstain_detail is not None and shared.abstain_detail.not_yet_effective is not None


async def test_no_future_query_when_nothing_future_dated_is_visible(corpus: ExplainCorpus) -> None:
    pipeline, spy = corpus.pipeline()
    answer = await pipeline.answer("How much is the contractor gym fee?", token(["contractors"]))
    assert answer.abstained
    assert all(q.access.as_of != HORIZON for q in spy.queries)


# -- conflicts ----------------------------------------------------------------------------------------------


async def test_a_conflict_names_the_documents_that_disagree(corpus: ExplainCorpus) -> None:
    pipeline, _ = corpus.pipeline()
    answer = await pipeline.answer(LEAVE_Q, token(["employees"], state="NY"))
    assert answer.abstain_reason == AbstainReason.CONFLICT and answer.abstain_detail is not None
    ids = [d.document_id for d in answer.abstain_detail.conflicting]
    assert sorted(ids) == ["parental-leave-ny-2026", "parental-leave-us-2026"]
    # Outside the asker's scope: another state's variant, the Spanish translation.
    assert "parental-leave-ca-2026" not in named(answer) and "-es" not in "".join(ids)


async def test_contradictory_amounts_name_their_document(corpus: ExplainCorpus) -> None:
    def one_side(question: str, context: list[Candidate]) -> str:
        chunk = next(c for c in context if "$6,000" in c.content)
        return f"The HMO out-of-pocket maximum is $6,000 per person.[^{chunk.chunk_id}]"

    pipeline, _ = corpus.pipeline(ScriptedGenerator(one_side))
    answer = await pipeline.answer(OOP_Q, token(["employees"]))
    assert answer.abstain_reason == AbstainReason.CONFLICT and answer.abstain_detail is not None
    assert [d.document_id for d in answer.abstain_detail.conflicting] == ["hmo-plan-2026"]


# -- nothing to say -------------------------------------------------------------------------------------------


async def test_no_access_and_answers_carry_no_detail(corpus: ExplainCorpus) -> None:
    pipeline, spy = corpus.pipeline()
    nobody = await pipeline.answer(MATCH_Q, token([]))
    assert nobody.abstain_reason == AbstainReason.NO_ACCESS and nobody.abstain_detail is None
    assert spy.queries == []
    answered = await pipeline.answer("What is the medical plan deductible?", token(["employees"]))
    assert not answered.abstained and answered.abstain_detail is None
    assert json.loads(answered.model_dump_json())["abstain_detail"] is None


async def test_an_undocumented_topic_gets_no_suggestion(corpus: ExplainCorpus) -> None:
    pipeline, _ = corpus.pipeline()
    answer = await pipeline.answer("Does the company offer pet insurance for my dog?", token(["employees"]))
    assert answer.abstained and answer.abstain_detail is None
