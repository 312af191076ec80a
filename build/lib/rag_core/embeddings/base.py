from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns text into unit-length dense vectors.

    ``model_name`` and ``dimension`` are recorded in the index so that an index built with one
    model is never queried with another (the vectors would be meaningless to each other).
    """

    model_name: str
    dimension: int

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    async def embed_query(self, text: str) -> list[float]: ...
