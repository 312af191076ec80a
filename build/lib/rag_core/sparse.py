"""BM25 sparse vectors, computed on the client so both index backends receive identical vectors.

Qdrant Edge ships the same BM25 tokenizer and term hashing the Qdrant server uses for its
built-in BM25 inference; the index applies the IDF modifier at query time.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import qdrant_edge


@dataclass(frozen=True)
class SparseVector:
    indices: list[int]
    values: list[float]


@lru_cache(maxsize=1)
def _model() -> qdrant_edge.Bm25:
    return qdrant_edge.Bm25(qdrant_edge.Bm25Config(avg_len=300.0))


def bm25_document(text: str) -> SparseVector:
    vector = _model().embed_document(text)
    return SparseVector(list(vector.indices), list(vector.values))


def bm25_query(text: str) -> SparseVector:
    vector = _model().embed_query(text)
    return SparseVector(list(vector.indices), list(vector.values))
