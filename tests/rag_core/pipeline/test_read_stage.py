"""What the read stage hands the reader besides the employee's words."""

from __future__ import annotations

import pytest

from rag_core.pipeline.read import spelling_fixed
from rag_core.pipeline.state import QueryState

pytestmark = pytest.mark.unit


def state(question: str, query: str, history: tuple[str, ...] = ()) -> QueryState:
    return QueryState(question=question, token="t", history=history, query=query)


def test_the_spelling_fixed_query_is_read_only_when_spelling_changed() -> None:
    assert spelling_fixed(state("how much is the dentl deductable", "how much is the dental deductible")) == (
        "how much is the dental deductible"
    )
    assert spelling_fixed(state("whats the OOP max", "whats the out-of-pocket maximum")) is None  # abbreviations only
    assert spelling_fixed(state("What is the PPO deductible?", "what is the PPO  deductible?")) is None
    assert spelling_fixed(state("What does Plan_Details.pdf say?", "What does Plan Details say?")) is None  # file names


def test_a_follow_up_query_carries_the_previous_question_and_is_not_read() -> None:
    assert (
        spelling_fixed(state("and dentl?", "What is the PPO deductible? and dental?", ("What is the PPO deductible?",)))
        is None
    )
