"""Chunk overlap on the REAL pipeline over Tailspin's documents: a chunk opens with the last 40 tokens of
the one before it, which can start inside a table row. The cut-off end of the dependent care FSA's row
(": $7,500 per household…", without its "Account: Dependent care FSA" label) was read as any account's
limit and quoted after the health care FSA's row, as if it were a second limit of the account asked about
(benchmarks/README.md "Session 31")."""

from __future__ import annotations

import pytest

from rag_core.reading import spans
from tests.rag_core.pipeline.conftest import RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

HEALTH_FSA = "how much can i contribute to the health care FSA in 2026?"
CUT_OFF_ROW = ": $7,500 per household"


async def test_the_cut_off_end_of_a_row_is_not_quoted_when_its_whole_row_is_read(
    tailspin: RealCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = await tailspin.answer(employee_row(HEALTH_FSA))
    assert not answer.abstained and "$3,400" in answer.answer
    assert CUT_OFF_ROW not in answer.answer
    # The mutation: every span of the context read, cut-off ends too (as before session 31).
    monkeypatch.setattr(spans, "_tail_of_another", lambda span, others: False)
    answer = await tailspin.answer(employee_row(HEALTH_FSA))
    assert CUT_OFF_ROW in answer.answer
