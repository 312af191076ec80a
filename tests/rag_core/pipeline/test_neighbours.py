"""The best-read sentence is quoted with its neighbour in the paragraph when the reader reads the two
together clearly better (``ANSWER_NEIGHBOUR_MARGIN``, an option; ``rag_core.pipeline.neighbours``).

"What exceptions apply to gender affirming care coverage under the Northwind Standard plan?" (Contoso
held-out 55, c61-46) was answered "Northwind Standard does have some exceptions when it comes to gender
affirming care." alone: the sentence after it, which names them, read lower than the one that repeats
the question's words."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
import pytest_asyncio

from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.pipeline import build_pipeline
from rag_core.pipeline.neighbours import NeighbourStage, neighbour_joins
from rag_core.pipeline.state import QueryState
from rag_core.reading.reader import Reading, ReadSpan
from rag_core.reading.spans import Span, split_spans
from rag_core.types import Answer
from tests.rag_core.candidates import candidate
from tests.rag_core.conftest import core_settings, token
from tests.rag_core.corpus_factory import DOCS, Doc, _md, ingest_with_local_models

LEAD = "Northwind Standard does have some exceptions when it comes to gender affirming care."
FACT = "This plan does not cover fertility services, such as egg and sperm banking, or treatments for minors."
TIPS = "Talk to your doctor about the best treatment plan for you."
BODY = (
    "Hormone therapy and gender affirming surgery are covered after prior authorization.\n"
    f"{LEAD} {FACT} {TIPS}\n"
    "Coverage tier: Employee; Premium: $40.\n"
    "Not covered:\n"
    "– Wigs and cosmetic procedures."
)
CHUNK = candidate("standard_p29_c01", BODY, heading="Gender Affirming Care")


def _span(text: str) -> Span:
    return next(s for s in split_spans(CHUNK) if s.text == text)


@pytest.mark.unit
def test_a_sentence_joins_its_neighbours_in_its_paragraph_only() -> None:
    assert [j.text for j in neighbour_joins(_span(FACT))] == [f"{LEAD} {FACT}", f"{FACT} {TIPS}"]
    # The first sentence of a paragraph has no neighbour before it: the line above is another paragraph.
    assert [j.text for j in neighbour_joins(_span(LEAD))] == [f"{LEAD} {FACT}"]
    join = neighbour_joins(_span(LEAD))[0]
    assert CHUNK.content[join.start : join.end] == join.text  # offsets a citation can check


@pytest.mark.unit
def test_a_lone_paragraph_a_table_row_and_a_list_item_join_nothing() -> None:
    spans = split_spans(CHUNK)
    alone = spans[0]
    row = next(s for s in spans if s.text.startswith("Coverage tier"))
    item = next(s for s in spans if s.lead)
    assert [neighbour_joins(s) for s in (alone, row, item)] == [[], [], []]


class ScriptedScorer:
    """Reads a passage by what it holds: the lead-in alone 5.0, the lead-in with the fact 7.0, anything
    else 1.0 (the stage's decision, not a model's)."""

    def __init__(self, joined: float) -> None:
        self.joined = joined
        self.read: list[str] = []

    def logits(self, query: str, passages: Sequence[str]) -> list[float]:
        self.read += passages
        return [self.joined if FACT in p and LEAD in p else 5.0 if LEAD in p else 1.0 for p in passages]


def _state(*spans: tuple[Span, float]) -> QueryState:
    question = "What exceptions apply to gender affirming care coverage under Northwind Standard?"
    state = QueryState(question=question, token="unused", query=question, language="en")
    state.reading = Reading([ReadSpan(span, score) for span, score in spans])
    return state


@pytest.mark.unit
@pytest.mark.asyncio
async def test_the_join_replaces_the_best_sentence_when_it_reads_margin_better() -> None:
    state = _state((_span(LEAD), 5.0), (_span(FACT), 2.0), (_span(TIPS), 1.0))
    await NeighbourStage(ScriptedScorer(joined=7.0), margin=1.0).run(state)
    assert state.reading is not None
    assert [r.span.text for r in state.reading.spans] == [f"{LEAD} {FACT}", TIPS]  # the fact is not quoted twice
    assert state.reading.best == 5.0  # scores stay: the gates judged the sentence as read alone


@pytest.mark.unit
@pytest.mark.asyncio
async def test_a_join_that_reads_under_the_margin_changes_nothing() -> None:
    # The mutation: a margin of 0 would quote the neighbour for a rise of 0.5.
    state = _state((_span(LEAD), 5.0), (_span(FACT), 2.0))
    before = state.reading
    await NeighbourStage(ScriptedScorer(joined=5.5), margin=1.0).run(state)
    assert state.reading is before


# The real core (ingest, retrieval, the benefits reader) on a document written the way Contoso's are: a
# section that names its topic in one sentence and gives the fact in the next.
GENDER_CARE = Doc(
    file="docs/gender-affirming-care-2026.md",
    document_id="gender-affirming-care-2026",
    policy_id="gender-affirming-care",
    title="Fabrikam Gender Affirming Care Benefit 2026",
    body=_md("""
        # Fabrikam Gender Affirming Care Benefit 2026

        ## What is covered

        The Fabrikam Medical Plan covers hormone therapy, gender affirming surgery and counseling related
        to gender transition, after prior authorization.

        ## Exceptions

        The Fabrikam Medical Plan does have some exceptions when it comes to gender affirming care. This plan
        does not cover fertility services, such as egg and sperm banking, or gender affirming treatments for
        minors. Talk to your doctor about the treatment plan that is right for you.
        """),
)
# The margin measured in session 28 (an option, off by default: no outcome changed on the sets sealed after it).
MEASURED_MARGIN = 1.0
GENDER_CARE_QUESTION = "What exceptions apply to gender affirming care coverage under the Fabrikam Medical Plan?"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def data_dir(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Path]:
    yield await ingest_with_local_models(tmp_path_factory.mktemp("neighbours"), (*DOCS, GENDER_CARE))


async def _ask(data_dir: Path, margin: float) -> Answer:
    settings = core_settings(data_dir, ANSWER_NEIGHBOUR_MARGIN=margin)
    pipeline = build_pipeline(settings, generator=ExtractiveGenerator())
    try:
        return await pipeline.answer(GENDER_CARE_QUESTION, token(["employees"]))
    finally:
        await pipeline.aclose()


@pytest.mark.integration
@pytest.mark.asyncio(loop_scope="session")
async def test_the_answer_names_the_exceptions_not_only_that_there_are_some(data_dir: Path) -> None:
    answer = await _ask(data_dir, MEASURED_MARGIN)
    assert not answer.abstained, answer.abstain_reason
    assert "have some exceptions" in answer.answer and "sperm banking" in answer.answer
    assert answer.answer.index("have some exceptions") < answer.answer.index("sperm banking")  # in document order
    assert all(c.chunk_id.startswith("gender-affirming-care-2026_p1_c") for c in answer.citations)
    # The mutation: without the neighbour, the lead-in alone is the answer.
    alone = await _ask(data_dir, -1.0)
    assert "have some exceptions" in alone.answer and "sperm banking" not in alone.answer
