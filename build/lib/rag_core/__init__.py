"""BenefitsBot core: access-scoped hybrid retrieval and grounded, cited answers.

The one entry point for the chat edge is :func:`answer`. ``rag_core`` knows nothing of Slack or
Teams: it takes a signed RBAC token and returns an :class:`~rag_core.types.Answer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from rag_core.types import AbstainReason, Answer, Citation

__all__ = ["answer", "Answer", "Citation", "AbstainReason"]


async def answer(
    question: str,
    token: str,
    *,
    as_of: date | None = None,
    audience_tokens: Sequence[str] = (),
    history: Sequence[str] = (),
) -> Answer:
    """Answer ``question`` for the holder of ``token`` from the documents they may see, or abstain.

    ``audience_tokens`` narrow the scope further (never widen it): each one's access filter is
    added to the asker's, so an answer posted in a channel uses only documents that everyone in
    the audience may see. ``history`` holds earlier questions of the same thread, so a follow-up
    like "what about dental?" is understood.
    """
    from rag_core.engine import get_engine  # imported lazily: loading models is not free

    engine = await get_engine()
    return await engine.answer(question, token, as_of=as_of, audience_tokens=audience_tokens, history=history)
