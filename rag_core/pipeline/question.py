"""The first stage: a question the core can work on, or a clear error before anything else runs."""

from __future__ import annotations

from rag_core.errors import InvalidQuestion
from rag_core.pipeline.base import StageBase
from rag_core.pipeline.state import QueryState


class QuestionCheck(StageBase):
    """An empty or whitespace-only question would run a full retrieval for nothing; a 20,000-character
    one is not an employee's question. Both are refused with :class:`InvalidQuestion` (the same cap
    as the chat edge's, ``MAX_QUESTION_CHARS``), before the token or the index is touched."""

    name = "question"

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars

    async def run(self, state: QueryState) -> None:
        if not isinstance(state.question, str) or not state.question.strip():
            raise InvalidQuestion("the question is empty")
        if len(state.question.strip()) > self.max_chars:
            raise InvalidQuestion(
                f"the question is {len(state.question.strip())} characters long; the limit is {self.max_chars}"
            )
