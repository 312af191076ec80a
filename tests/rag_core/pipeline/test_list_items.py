"""List items on the REAL pipeline over the project's corpus: ingestion joins a paragraph's lines, so
the commuter summary's "You may set aside pre-tax money each month for commuting costs: – Transit: up
to $340 per month… – Parking: up to $340 per month…" reaches the reader as one line. Each item is read
and quoted with its lead-in, so the answer says what the $340 is a limit of, once."""

from __future__ import annotations

import pytest

from rag_core.eval.gold import GoldRow
from tests.rag_core.pipeline.conftest import RealCorpus

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

LEAD_IN = "You may set aside pre-tax money each month for commuting costs:"


def row(question: str) -> GoldRow:
    return GoldRow.model_validate(
        {"id": "t", "question": question, "expect": "answer", "user": {"groups": ["employees"]}, "as_of": "2026-05-01"}
    )


async def test_a_list_item_is_quoted_with_its_lead_in_and_without_its_bullet(real: RealCorpus) -> None:
    answer = await real.answer(row("How much can I set aside pre-tax for transit each month?"))
    assert not answer.abstained
    # The mutation "items are not units" quotes the whole list as one sentence starting at the lead-in,
    # bullets included; "no lead-in" quotes "Transit: up to $340…" without saying what it limits.
    assert answer.answer.startswith(f"{LEAD_IN} Transit: up to $340 per month")
    assert answer.answer.count(LEAD_IN) == 1 and "–" not in answer.answer
    assert {c.document_id for c in answer.citations} == {"commuter-fsa-hsa-2026"}
