"""Another state's policy on the REAL pipeline over the project's corpus: the headline question,
"How many weeks of paid parental leave do I get in California?", asked by an employee whose HR
record lists no California work location. The scope comes from the HR record, so the California
policy (16 weeks) is out of it; answering from the US policy (12 weeks) would answer another
question. The bot abstains and names the California policy instead; a California employee gets 16
weeks; a state named in passing, with no state version of the policy in play, changes nothing."""

from __future__ import annotations

import pytest

from rag_core.eval.gold import GoldRow
from rag_core.types import AbstainReason, Answer
from tests.rag_core.pipeline.conftest import RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

HEADLINE = "How many weeks of paid parental leave do I get in California?"


async def context_documents(real: RealCorpus, asked: GoldRow) -> set[str]:
    return {c.document_id for c in (await real.run_until("context", asked)).context}


def names_california_policy(answer: Answer) -> bool:
    detail = answer.abstain_detail
    return (
        detail is not None
        and detail.other_jurisdiction is not None
        and detail.other_jurisdiction.state == "California"
        and detail.other_jurisdiction.document.document_id == "parental-leave-ca-2026"
    )


@pytest.mark.parametrize(("state", "own_policy"), [(None, "parental-leave-us-2026"), ("NY", "parental-leave-ny-2026")])
async def test_another_states_policy_is_not_answered_from_the_askers_own(
    real: RealCorpus, state: str | None, own_policy: str
) -> None:
    asked = employee_row(HEADLINE, state)
    # Without the gate the answer would come from the asker's own policy (the mutation "no jurisdiction
    # gate" answers 12 weeks from the US policy).
    assert own_policy in await context_documents(real, asked)
    answer = await real.answer(asked)
    assert answer.abstained and answer.abstain_reason == AbstainReason.OTHER_JURISDICTION
    assert names_california_policy(answer) and not answer.citations


async def test_a_california_employee_gets_the_california_answer(real: RealCorpus) -> None:
    answer = await real.answer(employee_row(HEADLINE, "CA"))
    assert not answer.abstained and "16 weeks" in answer.answer


async def test_a_state_named_in_passing_changes_nothing(real: RealCorpus) -> None:
    # New York has its own parental-leave policy, but nothing about parental leave is in play here.
    answer = await real.answer(
        employee_row("When I travel overnight on business to New York, what is the daily meal per diem?")
    )
    assert answer.abstain_reason != AbstainReason.OTHER_JURISDICTION


async def test_a_state_the_asker_is_not_in_is_not_asked_about(real: RealCorpus) -> None:
    # Found on sealed set h34 ("not in CA btw…"): the negated mention counted as asking about
    # California and the question abstained other_jurisdiction. The same question naming California
    # without the negation (the mutation "negations count") still does.
    answer = await real.answer(employee_row("I'm not in California. How many weeks of paid parental leave do I get?"))
    assert not answer.abstained and "12 weeks" in answer.answer
    named = await real.answer(employee_row("I'm in California. How many weeks of paid parental leave do I get?"))
    assert named.abstained and named.abstain_reason == AbstainReason.OTHER_JURISDICTION
