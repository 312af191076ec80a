"""Lists of conditions on the REAL pipeline over the project's corpus. The parental-leave policy says
"You are eligible for paid parental leave if all of the following are true: – … at least 20 hours per
week. – You have completed 90 days of continuous employment… – You become a parent…". Ingestion joins
the lines, and the list is read and quoted as one unit: quoting one condition alone would present it
as enough. Session 7 measured list items as units of their own and backed them out on exactly this
question (benchmarks/README.md "Reading, session 7")."""

from __future__ import annotations

import pytest

from tests.rag_core.pipeline.conftest import RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

TENURE = (
    "started at fabrikam like 7 wks ago and we're adopting a baby next month 🎉 do i qualify for paid "
    "parental leave yet or is there a minimum tenure?"
)


async def test_an_all_of_the_following_list_is_quoted_with_every_condition(real: RealCorpus) -> None:
    answer = await real.answer(employee_row(TENURE))
    assert not answer.abstained
    # The mutation "each list item is a unit" answered with the 20-hour condition alone.
    assert "if all of the following are true" in answer.answer
    for condition in ("at least 20 hours per week", "90 days of continuous employment", "You become a parent"):
        assert condition in answer.answer
