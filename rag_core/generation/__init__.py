"""Answer generation behind one Protocol: OpenAI-compatible chat, or the extractive default."""

from __future__ import annotations

from rag_core.generation.base import GenerationResult, Generator
from rag_core.settings import CoreSettings

__all__ = ["GenerationResult", "Generator", "build_generator"]


def build_generator(settings: CoreSettings) -> Generator:
    choice = settings.generator
    if choice == "openai" or (choice == "auto" and settings.use_openai()):
        from rag_core.generation.openai_generator import OpenAIGenerator

        return OpenAIGenerator.from_settings(settings)
    from rag_core.generation.extractive import ExtractiveGenerator

    return ExtractiveGenerator(tie=settings.answer_tie_margin)
