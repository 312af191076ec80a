"""Tied readings on the REAL pipeline over the project's corpus: the vendor notice's memo header lines
("Date of notice…", "To: employees enrolled…", "From: …") read a little better for "who are we switching
to and when does it start" than the sentence that says it ("Our pharmacy benefit manager (PBM) changes
from Tailspin Rx to Proseware Pharmacy Services on July 1, 2026.", fourth, 0.47 under the best). The
reader cannot order sentences that close, so the fourth is quoted too (``ANSWER_TIE_MARGIN``)."""

from __future__ import annotations

import pytest

from tests.rag_core.pipeline.conftest import RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

SWITCH = "got some letter about the pharmacy benefit manager changing?? who are we switching to and when does it start"


async def test_a_sentence_reading_as_well_as_the_best_is_quoted_too(real: RealCorpus) -> None:
    answer = await real.answer(employee_row(SWITCH))
    assert not answer.abstained
    assert "Proseware Pharmacy Services" in answer.answer and "July 1, 2026" in answer.answer


async def test_without_the_tie_the_answer_misses_who_and_when(real: RealCorpus) -> None:
    # The mutation "three sentences, whatever the fourth reads" (how answers were quoted before).
    answer = await real.answer(employee_row(SWITCH), ANSWER_TIE_MARGIN=-1.0)
    assert not answer.abstained
    assert "Proseware" not in answer.answer
