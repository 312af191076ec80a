"""Bad input to the core: an empty, whitespace-only or over-long question is a clear error raised
before the token or the index is touched; the chat edge and the core share one cap."""

from __future__ import annotations

import pytest

from rag_core.errors import InvalidQuestion
from tests.rag_core.conftest import FixtureCorpus, token

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("question", ["", "   ", "\n\t \u3000", "x" * 20_000])
async def test_bad_questions_are_refused_before_any_search(fixture_corpus: FixtureCorpus, question: str) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    with pytest.raises(InvalidQuestion) as err:
        await pipeline.answer(question, token(["employees"]))
    assert spy.queries == [] and spy.meta_reads == 0  # nothing searched, not even the manifest
    assert ("empty" in str(err.value)) or ("limit is 1000" in str(err.value))
    assert err.value.query_id  # type: ignore[attr-defined]  # the reference the edge shows


async def test_the_cap_is_a_core_setting(fixture_corpus: FixtureCorpus) -> None:
    pipeline, _ = fixture_corpus.pipeline(MAX_QUESTION_CHARS=50)
    with pytest.raises(InvalidQuestion, match="limit is 50"):
        await pipeline.answer("How much is the dental deductible? " * 3, token(["employees"]))
    answer = await pipeline.answer("How much is the dental deductible?", token(["employees"]))
    assert not answer.abstained


@pytest.mark.unit
def test_the_bot_uses_the_core_cap() -> None:
    from bot.settings import BotSettings
    from rag_core.settings import CoreSettings

    assert "max_question_chars" in CoreSettings.model_fields
    assert BotSettings.model_fields["max_question_chars"] is not None
    assert BotSettings(_env_file=None, MAX_QUESTION_CHARS=77).max_question_chars == 77  # type: ignore[call-arg]
