"""The similarity gate's rescue band on the REAL pipeline: a question whose best match sits just under the
dense cutoff goes on to the reader, and is answered only when a sentence reads strongly
(SIMILARITY_RESCUE_BAND / SIMILARITY_RESCUE_READING; benchmarks/README.md "Session 33")."""

from __future__ import annotations

import pytest

from rag_core.types import AbstainReason
from tests.rag_core.pipeline.conftest import RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

# Tailspin's perks guide: "The People Services Center responds to emails and portal cases within 2 business
# days." Its chunk matches the question at 0.595 (bge-small), under the 0.61 cutoff; the sentence reads 14.0.
RESPONSE_TIME = "Within how many business days does the People Services Center respond to emails and portal cases?"


async def test_a_match_just_under_the_cutoff_is_answered_when_read_strongly(tailspin: RealCorpus) -> None:
    state = await tailspin.run_until("gate", employee_row(RESPONSE_TIME))
    assert state.rescue_floor is not None and state.best_gate_similarity < 0.61
    answer = await tailspin.answer(employee_row(RESPONSE_TIME))
    assert not answer.abstained and "2 business days" in answer.answer
    # The mutation "no rescue band" stops it at the gate, as before.
    gated = await tailspin.run_until("gate", employee_row(RESPONSE_TIME), SIMILARITY_RESCUE_BAND=0)
    assert gated.finished and gated.decided_by == "gate"


# A near miss in the band (`h10-38`): the wellness guide's list of on-site services reads 5.97 for a date it
# does not give. Under the rescue bar it abstains, where the ordinary bar (2.0) would answer with the list.
SCREENING_DATE = "when exactly are the biometric screenings at the austin office this yr? need the date so i can fast"


async def test_a_match_just_under_the_cutoff_read_weakly_abstains(real: RealCorpus) -> None:
    answer = await real.answer(employee_row(SCREENING_DATE))
    assert answer.abstained and answer.abstain_reason == AbstainReason.LOW_SIMILARITY
    # The mutation "the ordinary bar for a rescued match" answers with the list.
    loose = await real.answer(employee_row(SCREENING_DATE), SIMILARITY_RESCUE_READING=2.0)
    assert not loose.abstained
