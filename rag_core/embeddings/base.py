from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


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

    async def aclose(self) -> None:
        """Release HTTP clients or model sessions; a no-op for providers that hold none."""


@runtime_checkable
class TokenEncoder(Protocol):
    """Turns text into one vector per token for late interaction (ColBERT): a chunk scores against
    a question by MaxSim, the sum over the question's tokens of their best cosine in the chunk.

    Synchronous (a local CPU model); callers on the event loop run it in a thread. ``model_name``
    and ``dimension`` are recorded in the index like the dense model's.
    """

    model_name: str
    dimension: int

    def encode_query(self, text: str) -> np.ndarray:
        """(query tokens, dimension) float32."""

    def encode_documents(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One (tokens, dimension) float32 matrix per text."""

    def document_offsets(self, text: str) -> np.ndarray:
        """(tokens, 2): the character span in ``text`` of each row ``encode_documents`` gives it
        ((-1, -1) for special tokens), from the tokenizer alone."""
