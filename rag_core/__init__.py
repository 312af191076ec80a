"""BenefitsBot core: access-scoped hybrid retrieval and grounded, cited answers.

The chat edge builds one :class:`~rag_core.pipeline.Pipeline` (``build_pipeline(settings)``) and
calls ``pipeline.answer(question, token, ...)``. ``rag_core`` knows nothing of Slack or Teams: it
takes a signed RBAC token and returns an :class:`~rag_core.types.Answer`.
"""

from __future__ import annotations

from rag_core.types import AbstainReason, Answer, Citation

__all__ = ["Answer", "Citation", "AbstainReason"]
