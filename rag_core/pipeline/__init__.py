"""The answer path as stage components: scope -> rewrite -> embed -> retrieve -> gate -> rerank
-> context -> precedence -> generate -> validate -> amounts, run by one :class:`Pipeline`."""

from __future__ import annotations

from rag_core.pipeline.base import AsyncCloseable, Stage, StageBase
from rag_core.pipeline.build import build_pipeline, build_reranker
from rag_core.pipeline.runner import Pipeline
from rag_core.pipeline.state import QueryState

__all__ = ["AsyncCloseable", "Pipeline", "QueryState", "Stage", "StageBase", "build_pipeline", "build_reranker"]
