"""A list on the REAL pipeline over the project's corpus: the handbook's "Fabrikam provides remote
employees with:" is followed by three items, the last "a monthly internet stipend of $50, paid
through payroll." Read alone, that item does not say who pays whom, and the lead-in alone says
nothing; read together they answer an employee's internet question (``rag_core.reading.spans``),
and the answer quotes the whole list (``rag_core.generation.extractive``)."""

from __future__ import annotations

import pytest

from rag_core.reading import spans
from tests.rag_core.pipeline.conftest import MS_MARCO, RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

INTERNET = "I work remotely - does Fabrikam pay anything toward my home internet each month?"
LEAD_IN = "Fabrikam provides remote employees with:"


async def test_a_list_item_answers_with_its_lead_in(real: RealCorpus) -> None:
    answer = await real.answer(employee_row(INTERNET))
    assert not answer.abstained
    # quoted as the handbook's whole list: the lead-in, then every item in its order
    assert f"{LEAD_IN} a laptop, monitor, keyboard and headset;" in answer.answer
    assert "; and a monthly internet stipend of $50, paid through payroll." in answer.answer
    assert "employee-handbook-2026_p1_c30" in answer.answer


async def test_without_lead_ins_the_item_does_not_answer(real: RealCorpus, monkeypatch: pytest.MonkeyPatch) -> None:
    # The mutation "items read alone, the lead-in a unit of its own" (how spans were split before).
    # With ms-marco: the benefits reader reads the bare "a monthly internet stipend of $50…" as an answer.
    monkeypatch.setattr(spans, "_leads", lambda lines, headings: {})
    answer = await real.answer(employee_row(INTERNET), **MS_MARCO)
    assert answer.abstained or "$50" not in answer.answer


ADOPTION = "How much does Fabrikam reimburse employees for adoption expenses such as agency and legal fees?"


async def test_an_item_read_only_through_its_lead_in_answers_nothing(real: RealCorpus) -> None:
    # "…home office setup reimbursement of up to $500…" read well for an adoption question through the
    # lead-in's "Fabrikam … employees" and its own "reimbursement": none of the asked "adoption",
    # "agency", "legal", "fee" is among the item's words, so it does not answer; no document does.
    answer = await real.answer(employee_row(ADOPTION))
    assert answer.abstained
    # The internet question above keeps its list: the $50 item holds "internet".
    assert not (await real.answer(employee_row(INTERNET))).abstained


async def test_without_the_check_the_adoption_question_is_answered_with_the_remote_list(real: RealCorpus) -> None:
    # The mutation "list items kept however they read" (LONE_LIST_ITEMS=false, how items were read before).
    # With ms-marco: the benefits reader reads no answer in the remote list for it either way.
    answer = await real.answer(employee_row(ADOPTION), LONE_LIST_ITEMS=False, **MS_MARCO)
    assert not answer.abstained and LEAD_IN in answer.answer
