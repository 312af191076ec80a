"""The topic gate's rise allowance, on the REAL pipeline over the project's corpus. "coming" and
"cut" occur in no Fabrikam document, and taking them out of this chat question lifts the parental
leave sentence that answers it (6.4) by about 0.8: under the flat 0.0 margin the gate stopped it,
though the words are the employee's situation, not a topic the documents lack. A reading above
TOPIC_RISE_ALLOWANCE_FROM (5.0) may rise by its excess; a word that *is* the topic ("student loan")
moves the reading by more than that (benchmarks/README.md "Reading, session 11")."""

from __future__ import annotations

import math

import pytest

from rag_core.types import AbstainReason
from tests.rag_core.pipeline.conftest import MS_MARCO, RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

BACK_FROM_LEAVE = (
    "coming back from parental leave next month 👶 can i work reduced hrs at first without a pay cut? whats the minimum"
)
STUDENT_LOAN = "Does Fabrikam contribute toward employees' student loan payments, and if so, how much per month?"


async def test_a_situation_word_around_a_well_read_answer_passes_the_topic_gate(real: RealCorpus) -> None:
    answer = await real.answer(employee_row(BACK_FROM_LEAVE))
    assert not answer.abstained and "reduced schedule of at least 24 hours per week" in answer.answer
    # The mutation "no allowance" (TOPIC_RISE_ALLOWANCE_FROM=inf) stops it at the topic gate: with ms-marco,
    # the reader it was found with (the benefits reader reads the answer over its strong-reading bar).
    state = await real.run_until("topic", employee_row(BACK_FROM_LEAVE), TOPIC_RISE_ALLOWANCE_FROM=math.inf, **MS_MARCO)
    assert state.abstain_reason is AbstainReason.LOW_SIMILARITY and state.decided_by == "topic"


async def test_an_undocumented_topic_read_fairly_well_still_abstains(real: RealCorpus) -> None:
    state = await real.run_until("topic", employee_row(STUDENT_LOAN), **MS_MARCO)
    assert state.reading is not None and state.reading.best > 5.0  # in the allowance's range
    assert state.abstain_reason is AbstainReason.LOW_SIMILARITY and state.decided_by == "topic"
    # The benefits reader (the default) reads nothing here as an answer.
    assert (await real.answer(employee_row(STUDENT_LOAN))).abstained
