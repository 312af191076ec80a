"""The not-asked stage on the REAL pipeline: sentences about something the question did not ask
are not read as its answer, however well they read.

- Over the project's corpus: a question that names short-term disability is not answered from the
  long-term disability section ("…Elimination period: 180 days (26 weeks), so LTD begins when STD
  ends." read 5.44, the STD section's "Benefits begin on the 8th day of disability." 4.94).
- Over the project's corpus: an employee who states their years of service is answered from the
  vacation table's row for them, not the rows for less or more service.
- Over the fixture corpus: a question about a maximum the plan pays is not answered with the HMO's
  out-of-pocket maximum, the most the member pays.
"""

from __future__ import annotations

import pytest

from rag_core.types import AbstainReason
from tests.rag_core.conftest import FixtureCorpus, token
from tests.rag_core.pipeline.conftest import RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

STD_WAIT = "What is the elimination period before short-term disability benefits begin?"


async def test_the_named_sibling_answers_not_the_one_that_reads_better(real: RealCorpus) -> None:
    # The mutation "read every section" answers with the LTD section's 180 days.
    without = await real.answer(employee_row(STD_WAIT), SIBLING_SECTIONS=False)
    assert not without.abstained and "180 days" in without.answer
    answer = await real.answer(employee_row(STD_WAIT))
    assert not answer.abstained
    assert "8th day" in answer.answer and "180 days" not in answer.answer


async def test_the_sibling_section_stays_when_the_question_names_it(real: RealCorpus) -> None:
    answer = await real.answer(employee_row("What is the elimination period for long-term disability?"))
    assert not answer.abstained and "180 days" in answer.answer


TENURE = "been here 4 yrs and i barely take PTO... whats the max vacation balance before i stop accruing"


async def test_the_row_for_the_askers_years_answers_not_the_other_ranges(real: RealCorpus) -> None:
    # The mutation "read every range" shows the "Less than 3 years" row (180 hours) as well.
    without = await real.answer(employee_row(TENURE), RANGE_ROWS=False)
    assert not without.abstained and "Less than 3 years" in without.answer
    answer = await real.answer(employee_row(TENURE))
    assert not answer.abstained and "240 hours" in answer.answer
    assert "Less than 3 years" not in answer.answer and "6 or more years" not in answer.answer


PLAN_MAXIMUM = "What is the HMO annual benefit maximum?"


async def test_the_out_of_pocket_maximum_does_not_answer_another_maximum(fixture_corpus: FixtureCorpus) -> None:
    # The mutation "any maximum answers a maximum question" quotes the out-of-pocket maximum.
    without, _ = fixture_corpus.pipeline(OTHER_MAXIMUM=False)
    quoted = await without.answer(PLAN_MAXIMUM, token(["employees"]))
    assert not quoted.abstained and "out-of-pocket maximum" in quoted.answer
    pipeline, _ = fixture_corpus.pipeline()
    answer = await pipeline.answer(PLAN_MAXIMUM, token(["employees"]))
    assert answer.abstained and answer.abstain_reason == AbstainReason.LOW_SIMILARITY


@pytest.mark.parametrize(
    "question", ["What is the HMO out-of-pocket maximum?", "whats the most i could pay in a year on the HMO?"]
)
async def test_the_out_of_pocket_maximum_answers_what_the_member_pays(
    fixture_corpus: FixtureCorpus, question: str
) -> None:
    pipeline, _ = fixture_corpus.pipeline()
    answer = await pipeline.answer(question, token(["employees"]))
    assert not answer.abstained and "$6,000" in answer.answer
