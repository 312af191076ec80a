"""Hybrid retrieval: dense + BM25 inside Qdrant (prefetch + RRF), optionally rescored by late
interaction (ColBERT MaxSim) in the same query, always under the access filter."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag_core.embeddings import EmbeddingProvider
from rag_core.embeddings.base import TokenEncoder
from rag_core.index.base import AccessFilter, ScoredPoint, VectorIndex, token_vectors
from rag_core.sparse import bm25_query
from rag_core.types import Candidate


def to_candidate(
    point: ScoredPoint, query_vector: np.ndarray, query_tokens: int = 0, clause_vectors: Sequence[np.ndarray] = ()
) -> Candidate:
    payload = point.payload
    # MaxSim sums one best cosine per question token; divided by the token count it is a mean cosine,
    # comparable across questions of different lengths (same order).
    late = point.late_score / query_tokens if point.late_score is not None and query_tokens else None
    # Stored vectors and the query are unit length, so the dot product is the cosine the gate needs
    # (the fused RRF score is a rank statistic, not a similarity).
    stored = np.asarray(point.dense, dtype=np.float32) if point.dense else None
    dense = float(np.dot(stored, query_vector)) if stored is not None else 0.0
    asked = max((float(np.dot(stored, v)) for v in clause_vectors), default=None) if stored is not None else None
    return Candidate(
        chunk_id=payload["chunk_id"],
        document_id=payload["document_id"],
        policy_id=payload["policy_id"],
        title=payload["title"],
        page_number=int(payload["page_number"]),
        content=payload["content"],
        jurisdiction=payload["jurisdiction"],
        effective_date=str(payload["effective_date"]),
        version=str(payload["version"]),
        language=payload.get("language", "en"),
        source_uri=payload["source_uri"],
        acl_groups=list(payload["acl_groups"]),
        anchor=payload.get("anchor"),
        token_count=payload.get("token_count"),
        fused_score=point.fused_score,
        dense_score=dense,
        asked_score=asked,
        late_score=late,
    )


async def encode_query_tokens(encoder: TokenEncoder, text: str) -> list[list[float]]:
    """A question's token vectors as the index scores them (the model runs off the event loop)."""
    return token_vectors(await asyncio.to_thread(encoder.encode_query, text))


@dataclass
class HybridRetriever:
    index: VectorIndex
    embedder: EmbeddingProvider
    candidates: int = 30
    late: TokenEncoder | None = None

    @property
    def late_model(self) -> tuple[str | None, int]:
        """The token encoder's model and dimension, as the index manifest records them."""
        return (self.late.model_name, self.late.dimension) if self.late else (None, 0)

    async def embed(self, query: str) -> np.ndarray:
        return np.asarray(await self.embedder.embed_query(query), dtype=np.float32)

    async def retrieve(
        self,
        query: str,
        access: AccessFilter,
        *,
        query_vector: np.ndarray | None = None,
        query_tokens: list[list[float]] | None = None,
        clause_vectors: Sequence[np.ndarray] = (),
    ) -> list[Candidate]:
        """Candidates, best first: in MaxSim order with a token encoder, else in fused order. What the
        caller already computed for this question (its vector, its token vectors) is not recomputed.
        ``clause_vectors``: the question's asking clauses, each candidate's best cosine to them kept as
        its ``asked_score`` (the order does not use it).
        ``access`` is required: there is no unfiltered search."""
        if not isinstance(access, AccessFilter):
            raise TypeError("retrieve() requires an AccessFilter")
        dense = query_vector if query_vector is not None else await self.embed(query)
        tokens = query_tokens
        if tokens is None and self.late is not None:
            tokens = await encode_query_tokens(self.late, query)
        points = await self.index.hybrid_query(
            dense.tolist(),
            bm25_query(query),
            access,
            limit=self.candidates,
            prefetch_limit=self.candidates,
            late=tokens,
        )
        return [to_candidate(p, dense, len(tokens or ()), clause_vectors) for p in points]
