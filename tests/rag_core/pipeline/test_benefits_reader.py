"""The benefits reader (``READER_WEIGHTS=benefits``) on the REAL pipeline over the project's corpus:
ms-marco, trained on web search queries, reads an employee's chat question under its gate even when
the answering sentence is the one it reads first; the fine-tune reads it well enough to answer, and
still refuses a question the documents do not answer. Measured in benchmarks/README.md "Reading,
session 16" (the 20 latest sets, with a reader of the same form trained without them: chat right
87 -> 130, wrong 25 -> 18 in all, near misses answered 13 -> 10)."""

from __future__ import annotations

import pytest

from tests.rag_core.pipeline.conftest import RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

DEBT = "kinda drowning in credit card debt rn 😬 does the eap help w/ money stuff? how many sessions would i get"
CONTACTS = (
    "getting contacts for the first time ever, does vision cover the fitting exam thing? how much will i pay for it"
)


@pytest.mark.parametrize(("question", "answer_holds"), [(DEBT, "three 30-minute sessions"), (CONTACTS, "$60")])
async def test_the_benefits_reader_answers_a_chat_question_ms_marco_leaves(
    real: RealCorpus, question: str, answer_holds: str
) -> None:
    answer = await real.answer(employee_row(question), READER_WEIGHTS="benefits")
    assert not answer.abstained and answer_holds in answer.answer
    # The mutation: the bundled ms-marco weights (the default) read it under the gate.
    assert (await real.answer(employee_row(question))).abstained


async def test_the_benefits_reader_still_refuses_what_the_documents_do_not_say(real: RealCorpus) -> None:
    answer = await real.answer(
        employee_row("How much does Fabrikam pay toward my cell phone bill?"), READER_WEIGHTS="benefits"
    )
    assert answer.abstained


async def test_each_reader_has_its_own_gate(real: RealCorpus) -> None:
    assert real.settings(READER_WEIGHTS="benefits").reader_gate == 2.0
    assert real.settings().reader_gate == 2.75
    assert real.settings(READER_WEIGHTS="benefits", READER_MIN_SCORE=3.5).reader_gate == 3.5
