"""The key-word gate after reading, on the REAL pipeline over the project's corpus (real index, real
bundled cross-encoder): an answer that does not depend on the question's most specific documented
words ("adoption expenses" -> the wellness stipend) abstains; a right answer loses score without
them, or names them, and goes through."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core.eval.gold import GoldRow, load_gold
from rag_core.eval.harness import token_for
from rag_core.types import AbstainReason
from tests.rag_core.pipeline.conftest import MS_MARCO, RealCorpus

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

REPO = Path(__file__).resolve().parents[3]
GOLD = {
    row.id: row
    for name in (
        "gold.jsonl",
        "holdout-chat-5.jsonl",
        "holdout-chat-6.jsonl",
        "holdout-chat-7.jsonl",
        "holdout-chat-18.jsonl",
        "holdout-chat-19.jsonl",
    )
    for row in load_gold(REPO / "corpus" / name)
}


async def ask(real: RealCorpus, row: GoldRow, until: str = "key_word", **overrides: object) -> tuple[bool, str | None]:
    """Whether the pipeline run up to ``until`` (the last gate before generation) has abstained, and which stage did."""
    pipeline = real.pipeline(**overrides)
    try:
        state = await pipeline.run_until(until, row.question, token_for(real.settings(), row), as_of=row.as_of)
    finally:
        await pipeline.aclose()
    return state.finished, state.decided_by if state.finished else None


@pytest.mark.parametrize(
    "row_id",
    [
        "g-045",  # adoption expenses: the reader's best sentence is the wellness stipend
        "h5-28",  # a group legal services plan: the EAP's "at no cost" sentence
        "h6-33",  # critical illness insurance: the life and disability overview
    ],
)
async def test_an_answer_that_does_not_depend_on_what_was_asked_abstains(real: RealCorpus, row_id: str) -> None:
    row = GOLD[row_id]
    assert row.expect == "abstain"
    # ms-marco alone answers; the gate stops it (the benefits reader reads no answer in these: MS_MARCO)
    assert await ask(real, row, "topic", KEY_WORD_ABLATION=False, **MS_MARCO) == (False, None)
    finished, decided_by = await ask(real, row, KEY_WORD_ABLATION=True, **MS_MARCO)  # at the default margin
    assert finished and decided_by == "key_word"
    # The default abstains too, but on h5-28: the benefits reader reads the remote-work list's "monthly
    # internet stipend" 2.26 for it, over its 2.0 gate, and the rise without "legal" is under the margin
    # (a known near miss of the default; benchmarks/README.md "Reading, session 17").
    for reader in ({}, MS_MARCO) if row_id != "h5-28" else (MS_MARCO,):
        answer = await real.pipeline(KEY_WORD_ABLATION=True, **reader).answer(
            row.question, token_for(real.settings(), row), as_of=row.as_of
        )
        assert answer.abstained and answer.abstain_reason == AbstainReason.LOW_SIMILARITY


# the right answers that rise most: h7-17 +2.57 ("if someone ends up on LTD for depression how long do
# the benefits last"; with the benefits reader v2: v4, the default since session 26, reads it 5.7 and the
# gate stops it, a known loss, benchmarks/README.md "Session 26"), g-001/g-004/g-063 the gold rows that rise most
@pytest.mark.parametrize(
    ("row_id", "weights"), [("h7-17", "benefits"), ("g-001", None), ("g-004", None), ("g-063", None)]
)
async def test_a_right_answer_goes_through(real: RealCorpus, row_id: str, weights: str | None) -> None:
    row = GOLD[row_id]
    reader = {"READER_WEIGHTS": weights} if weights else {}
    assert await ask(real, row, KEY_WORD_ABLATION=True, **reader) == (False, None)


async def test_a_sentence_that_names_the_asked_thing_is_not_stopped(real: RealCorpus) -> None:
    """ "…does the medical plan cover hearing aids? how much?": the best sentences name hearing aids
    and read better without the words (they say more than was asked); the answer goes through. The
    mutation (``KEY_WORD_SKIP_NAMED=false``, the gate as it was) stops it."""
    row = GOLD["h18-38"]
    assert row.expect == "answer"
    assert await ask(real, row, KEY_WORD_ABLATION=True, **MS_MARCO) == (False, None)
    finished, decided_by = await ask(real, row, KEY_WORD_ABLATION=True, KEY_WORD_SKIP_NAMED=False, **MS_MARCO)
    assert finished and decided_by == "key_word"


async def test_the_words_taken_out_are_the_asked_ones(real: RealCorpus) -> None:
    """ "we're in the middle of adopting from overseas and the agency fees are insane 😩 how much does
    fabrikam reimburse for adoption expenses?", with ColBERT picking sentences too
    (``READER_MODEL_SPANS=4``), reads the wellness stipend best (2.90). Taking out the asked clause's
    rarest words ("reimburse", "adoption") shows it fits better without them: abstain. The mutation
    (``KEY_WORD_ASKED_ONLY=false``) takes out the situation's "fees" instead, and the stipend answers."""
    row = GOLD["h19-29"]
    assert row.expect == "abstain"
    settings = {"KEY_WORD_ABLATION": True, "READER_MODEL_SPANS": 4, **MS_MARCO}
    assert await ask(real, row, **settings) == (True, "key_word")
    assert await ask(real, row, **settings, KEY_WORD_ASKED_ONLY=False) == (False, None)


# A strong reading answers the question as asked: "What hours are the on-site fitness centers open on
# Saturdays and Sundays?" (`h37-28`) reads the wellness guide's weekend hours at 10.4, and reads them higher
# still without its rarest words, so the gate had stopped it (benchmarks/README.md "Session 33").
GYM_HOURS = "What hours are the on-site fitness centers open on Saturdays and Sundays?"


async def test_a_strong_reading_is_not_stopped_by_the_key_words(real: RealCorpus) -> None:
    row = GoldRow.model_validate(
        {"id": "t", "question": GYM_HOURS, "expect": "answer", "user": {"groups": ["employees"]}, "as_of": "2026-05-01"}
    )
    assert await ask(real, row) == (False, None)
    answer = await real.answer(row)
    assert not answer.abstained and "7:00 a.m." in answer.answer
    # The mutation "no strong-reading pass" stops it at the key-word gate.
    assert await ask(real, row, KEY_WORD_STRONG_READING=float("inf")) == (True, "key_word")
