"""Retrieve: dense + BM25 prefetch fused by RRF inside the index, rescored by MaxSim in the same query
when late interaction is on, always under the access filter."""

from __future__ import annotations

from rag_core.pipeline.base import StageBase
from rag_core.pipeline.state import QueryState
from rag_core.retrieval import HybridRetriever


class RetrieveStage(StageBase):
    name = "retrieve"

    def __init__(self, retriever: HybridRetriever) -> None:
        self.retriever = retriever

    async def run(self, state: QueryState) -> None:
        state.candidates = await self.retriever.retrieve(
            state.query,
            state.require_access(),
            query_vector=state.query_vector,
            query_tokens=state.query_tokens,
            clause_vectors=state.clause_vectors,
        )
