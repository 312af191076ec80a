"""The benefits reader (``READER_WEIGHTS=benefits``) on the REAL pipeline over the project's corpus:
ms-marco, trained on web search queries, reads an employee's chat question under its gate even when
the answering sentence is the one it reads first; the fine-tune reads it well enough to answer, and
still refuses a question the documents do not answer. Measured in benchmarks/README.md "Reading,
session 16" (the 20 latest sets, with a reader of the same form trained without them: chat right
87 -> 130, wrong 25 -> 18 in all, near misses answered 13 -> 10)."""

from __future__ import annotations

import pytest

from rag_core.settings import ReaderCalibration
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
    assert real.settings(READER_WEIGHTS="benefits").reader_calibration.min_score == 2.0
    assert real.settings().reader_calibration.min_score == 2.75
    assert real.settings(READER_WEIGHTS="benefits", READER_MIN_SCORE=3.5).reader_calibration.min_score == 3.5


async def test_each_reader_has_its_own_topic_bars(real: RealCorpus) -> None:
    assert real.settings(READER_WEIGHTS="benefits").reader_calibration == ReaderCalibration(2.0, 6.0, 4.0)
    assert real.settings().reader_calibration == ReaderCalibration(2.75, 7.0, 5.0)
    tuned = real.settings(READER_WEIGHTS="benefits", TOPIC_STRONG_READING=9.0, READER_MIN_SCORE=1.0)
    assert tuned.reader_calibration == ReaderCalibration(1.0, 9.0, 4.0)  # each setting overrides its bar


# "joint" occurs in no Fabrikam document; the benefits reader reads the $7,500 sentence 6.9, under
# ms-marco's strong-reading bar (7.0) and over its own (6.0).
JOINT = "What is the 2026 limit for the Dependent Care FSA for a married couple filing a joint tax return?"


async def test_the_benefits_reader_passes_a_strong_reading_on_its_own_scale(real: RealCorpus) -> None:
    answer = await real.answer(employee_row(JOINT), READER_WEIGHTS="benefits")
    assert not answer.abstained and "$7,500 per household" in answer.answer
    # The mutation "ms-marco's bars for every reader" stops it at the topic gate.
    state = await real.run_until(
        "topic", employee_row(JOINT), READER_WEIGHTS="benefits", TOPIC_STRONG_READING=7.0, TOPIC_RISE_ALLOWANCE_FROM=5.0
    )
    assert state.decided_by == "topic"


# One reason the benefits reader is not the default (benchmarks/README.md "Reading, session 17"): it
# reads this one under its gate, though the $1,250 row is its best-read sentence (1.8; ms-marco 5.8).
# Not terse questions in general: on the terse sets it answers more than ms-marco.
PPO_DEDUCTIBLE = "What's the PPO deductible?"


async def test_the_benefits_reader_leaves_a_question_ms_marco_reads(real: RealCorpus) -> None:
    assert (await real.answer(employee_row(PPO_DEDUCTIBLE), READER_WEIGHTS="benefits")).abstained
    answer = await real.answer(employee_row(PPO_DEDUCTIBLE))
    assert not answer.abstained and "$1,250" in answer.answer
