"""What the rewrite stage hands the reader besides the employee's words: the spelling-fixed question,
only when the spelling corrector changed a typed word (real pipeline over the fixture corpus)."""

from __future__ import annotations

import pytest

from tests.rag_core.conftest import FixtureCorpus, token

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]


async def rewritten(fixture_corpus: FixtureCorpus, question: str, history: tuple[str, ...] = ()) -> str | None:
    pipeline, _ = fixture_corpus.pipeline()
    state = await pipeline.run_until("rewrite", question, token(["employees"]), history=history)
    return state.spelling_fixed


async def test_the_spelling_fixed_query_is_read_only_when_spelling_changed(fixture_corpus: FixtureCorpus) -> None:
    fixed = await rewritten(fixture_corpus, "how much is the dentl deductable")
    assert fixed is not None and "dental deductible" in fixed
    assert await rewritten(fixture_corpus, "whats the OOP max on the PPO") is None  # abbreviations only
    assert await rewritten(fixture_corpus, "What is the PPO deductible?") is None
    assert await rewritten(fixture_corpus, "What does medical-plan-2026.pdf say about the deductible?") is None


async def test_a_follow_up_query_carries_the_previous_question_and_is_not_read(fixture_corpus: FixtureCorpus) -> None:
    assert await rewritten(fixture_corpus, "and dentl?", ("What is the PPO deductible?",)) is None
