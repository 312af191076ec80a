"""Age rules on the REAL pipeline over the project's corpus: a 58-year-old asking what they may put in
their HSA with family coverage is answered with the $7,250 example, and the same section's "If you
are age 55 or older, you may contribute an additional $1,000 catch-up contribution." is quoted right
after it (``rag_core.reading.conditions``): without it the answer understates the limit by $1,000."""

from __future__ import annotations

import pytest

from rag_core.generation import extractive
from tests.rag_core.pipeline.conftest import MS_MARCO, RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

HSA_AT_58 = "I'm 58, how much can I contribute to my HSA on my own with family coverage?"
CATCH_UP = "If you are age 55 or older, you may contribute an additional $1,000 catch-up contribution."


async def test_the_age_rule_of_the_answers_section_is_quoted_after_its_best_sentence(real: RealCorpus) -> None:
    answer = await real.answer(employee_row(HSA_AT_58))
    assert not answer.abstained
    first, second = answer.answer.split("[^commuter-fsa-hsa-2026_p1_c01]")[:2]
    assert "$7,250" in first
    assert second.strip() == CATCH_UP


async def test_without_age_rules_the_catch_up_is_not_quoted(real: RealCorpus, monkeypatch: pytest.MonkeyPatch) -> None:
    # The mutation "no age rules" (how answers were quoted before), with ms-marco: the benefits reader
    # reads the catch-up sentence among its first three itself.
    monkeypatch.setattr(extractive, "age_rules", lambda question, answer, context: [])
    answer = await real.answer(employee_row(HSA_AT_58), **MS_MARCO)
    assert "$7,250" in answer.answer and "catch-up" not in answer.answer
