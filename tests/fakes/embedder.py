"""A tiny deterministic EmbeddingProvider for fast tests: hashed bag of words, unit length."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tests.fakes.openai_server import hashed_bow


class HashEmbedder:
    """Same text, same vector; shared words, similar vectors. No model, no I/O."""

    def __init__(self, dimension: int = 64, model_name: str | None = None) -> None:
        self.dimension = dimension
        self.model_name = model_name or f"fake-hash-{dimension}"
        self.calls: list[int] = []  # batch sizes, to see what was (re-)embedded

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        return [hashed_bow(text, self.dimension) for text in texts]

    async def aclose(self) -> None:
        return None

    async def embed_query(self, text: str) -> list[float]:
        return hashed_bow(text, self.dimension)


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    return HashEmbedder()
