"""Rerank: reorder the candidates (local blend, Cohere, or the fused order)."""

from __future__ import annotations

from rag_core.pipeline.base import StageBase
from rag_core.pipeline.state import QueryState
from rag_core.rerank import Reranker


class RerankStage(StageBase):
    name = "rerank"

    def __init__(self, reranker: Reranker) -> None:
        self.reranker = reranker

    async def run(self, state: QueryState) -> None:
        state.candidates = await self.reranker.rerank(state.query, state.candidates)

    async def aclose(self) -> None:
        await self.reranker.aclose()
