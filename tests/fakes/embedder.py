"""Tiny deterministic models for fast tests: a hashed bag of words (EmbeddingProvider) and hashed
word vectors (TokenEncoder, the late-interaction side). No model, no I/O."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np
import pytest

from tests.fakes.openai_server import hashed_bow

_WORD = re.compile(r"\w+")


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


def word_vector(word: str, dimension: int) -> np.ndarray:
    """The same unit vector for the same word, nearly orthogonal ones for different words."""
    seed = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
    vector = np.random.default_rng(seed).normal(size=dimension)
    return vector / np.linalg.norm(vector)


class HashTokenEncoder:
    """One vector per word (lower-cased), so MaxSim counts the question's words a text contains:
    a word the text has scores 1, one it lacks about 0. Like ColBERT, a query always has at least
    one token (an empty question gets a marker token)."""

    def __init__(self, dimension: int = 32, model_name: str | None = None) -> None:
        self.dimension = dimension
        self.model_name = model_name or f"fake-tokens-{dimension}"
        self.calls: list[int] = []  # batch sizes of document calls

    def _tokens(self, text: str) -> np.ndarray:
        words = _WORD.findall(text.lower()) or ["[empty]"]
        return np.stack([word_vector(w, self.dimension) for w in words]).astype(np.float32)

    def encode_query(self, text: str) -> np.ndarray:
        return self._tokens(text)

    def encode_documents(self, texts: Sequence[str]) -> list[np.ndarray]:
        self.calls.append(len(texts))
        return [self._tokens(text) for text in texts]

    def document_offsets(self, text: str) -> np.ndarray:
        spans = [match.span() for match in _WORD.finditer(text.lower())] or [(-1, -1)]
        return np.asarray(spans, dtype=np.int64).reshape(-1, 2)


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    return HashEmbedder()
