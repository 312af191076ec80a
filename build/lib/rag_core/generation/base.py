from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rag_core.types import Candidate


@dataclass
class GenerationResult:
    """Raw generated text with ``[^chunk_id]`` markers; the citation validator decides what survives."""

    text: str
    model: str
    usage: dict[str, int] = field(default_factory=dict)


class Generator(Protocol):
    model_name: str

    async def generate(self, question: str, context: Sequence[Candidate], *,
                       history: Sequence[str] = ()) -> GenerationResult:
        """Answer ``question`` from ``context`` only. Raise GenerationFailed on provider failure."""
