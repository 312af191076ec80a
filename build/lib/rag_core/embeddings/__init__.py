"""Dense embedding providers behind one Protocol: the embedded local model and OpenAI."""

from __future__ import annotations

from rag_core.embeddings.base import EmbeddingProvider
from rag_core.settings import CoreSettings

__all__ = ["EmbeddingProvider", "build_embedder"]


def build_embedder(settings: CoreSettings) -> EmbeddingProvider:
    """Pick the provider: OpenAI when a key is set (or asked for), else the embedded default."""
    choice = settings.embedding_provider
    if choice == "openai" or (choice == "auto" and settings.use_openai()):
        from rag_core.embeddings.openai_embedder import OpenAIEmbedder

        return OpenAIEmbedder.from_settings(settings)
    from rag_core.embeddings.local import LocalEmbedder

    return LocalEmbedder.shared(settings.local_model_threads)
