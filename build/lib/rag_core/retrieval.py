"""Hybrid retrieval: dense + BM25 inside Qdrant (prefetch + RRF), always under the access filter."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rag_core.embeddings import EmbeddingProvider
from rag_core.index.base import AccessFilter, ScoredPoint, VectorIndex
from rag_core.sparse import bm25_query
from rag_core.types import Candidate


def to_candidate(point: ScoredPoint, query_vector: np.ndarray) -> Candidate:
    payload = point.payload
    # Stored vectors and the query are unit length, so the dot product is the cosine the gate needs
    # (the fused RRF score is a rank statistic, not a similarity).
    dense = float(np.dot(np.asarray(point.dense, dtype=np.float32), query_vector)) if point.dense else 0.0
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
    )


@dataclass
class HybridRetriever:
    index: VectorIndex
    embedder: EmbeddingProvider
    candidates: int = 30

    async def embed(self, query: str) -> np.ndarray:
        return np.asarray(await self.embedder.embed_query(query), dtype=np.float32)

    async def retrieve(self, query: str, access: AccessFilter, *, query_vector: np.ndarray | None = None
                       ) -> list[Candidate]:
        """Fused candidates, best first. ``access`` is required: there is no unfiltered search."""
        if not isinstance(access, AccessFilter):
            raise TypeError("retrieve() requires an AccessFilter")
        vector = query_vector if query_vector is not None else await self.embed(query)
        points = await self.index.hybrid_query(vector.tolist(), bm25_query(query), access,
                                               limit=self.candidates, prefetch_limit=self.candidates)
        return [to_candidate(p, vector) for p in points]
