"""A list item that is a record of labelled facts, on the REAL pipeline over Tailspin's corpus.

The retirement guide lists its two ESPP offering periods as "– January offering: … Purchase date: June 30,
2026. Enrollment deadline: December 15, 2025. – July offering: … Enrollment deadline: June 15, 2026.", one
line once the PDF's lines are joined. Read as sentences, the January deadline ran into the July item's label
("Enrollment deadline: December 15, 2025. – July offering: July 1 through December 31, 2026.") and was quoted
as the July deadline, on 11 rows of the Tailspin sets (benchmarks/README.md "Session 34")."""

from __future__ import annotations

import pytest

from tests.rag_core.pipeline.conftest import RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

JULY_DEADLINE = "What is the enrollment deadline for the July 2026 ESPP offering period?"


async def test_the_july_offerings_own_deadline_answers(tailspin: RealCorpus, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = await tailspin.answer(employee_row(JULY_DEADLINE))
    assert not answer.abstained
    assert "June 15, 2026" in answer.answer and "December 15, 2025" not in answer.answer
    # The mutation "no list item is a record" reads the run-on sentence and quotes January's deadline.
    monkeypatch.setattr("rag_core.reading.spans._records", lambda line: [])
    without = await tailspin.answer(employee_row(JULY_DEADLINE))
    assert not without.abstained and "December 15, 2025" in without.answer


async def test_a_chat_question_about_the_january_purchase_date_gets_januarys(tailspin: RealCorpus) -> None:
    answer = await tailspin.answer(employee_row("when is the purchase date for the january espp offering?"))
    assert not answer.abstained
    assert "June 30, 2026" in answer.answer and "December 31, 2026" not in answer.answer
