from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from rag_core.types import Candidate

if TYPE_CHECKING:
    from rag_core.reading.reader import Reading


@dataclass
class GenerationResult:
    """Raw generated text with ``[^chunk_id]`` markers; the citation validator decides what survives."""

    text: str
    model: str
    usage: dict[str, int] = field(default_factory=dict)


class Generator(Protocol):
    model_name: str

    async def generate(
        self,
        question: str,
        context: Sequence[Candidate],
        *,
        history: Sequence[str] = (),
        reading: Reading | None = None,
    ) -> GenerationResult:
        """Answer ``question`` from ``context`` only. ``reading`` is the reader's choice of
        sentences when the question was read (a quoting generator uses it; a model that reads the
        chunks itself may ignore it). Raise GenerationFailed on provider failure."""
        ...

    async def aclose(self) -> None:
        """Release HTTP clients; a no-op for generators that hold none."""
        ...
