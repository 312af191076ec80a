"""Generate: a cited draft from the context (extractive quotes or an OpenAI-compatible model)."""

from __future__ import annotations

from rag_core.errors import GenerationFailed
from rag_core.generation import Generator
from rag_core.pipeline.base import StageBase
from rag_core.pipeline.state import QueryState
from rag_core.types import AbstainReason


class GenerateStage(StageBase):
    name = "generate"

    def __init__(self, generator: Generator) -> None:
        self.generator = generator

    async def run(self, state: QueryState) -> None:
        try:
            state.generated = await self.generator.generate(
                state.query, state.context, history=state.history, reading=state.reading
            )
        except GenerationFailed:
            state.abstain(AbstainReason.GENERATION_ERROR, self.name)

    async def aclose(self) -> None:
        await self.generator.aclose()
