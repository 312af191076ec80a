"""Dense embedding providers behind one Protocol: the embedded local model and OpenAI."""

from __future__ import annotations

from rag_core.embeddings.base import EmbeddingProvider, TokenEncoder
from rag_core.settings import CoreSettings

__all__ = ["EmbeddingProvider", "TokenEncoder", "build_embedder", "build_late_encoder"]


def build_embedder(settings: CoreSettings) -> EmbeddingProvider:
    """Pick the provider: OpenAI when a key is set (or asked for), else the embedded default."""
    choice = settings.embedding_provider
    if choice == "openai" or (choice == "auto" and settings.use_openai()):
        from rag_core.embeddings.openai_embedder import OpenAIEmbedder

        return OpenAIEmbedder.from_settings(settings)
    from rag_core.embeddings.local import LocalEmbedder

    return LocalEmbedder.shared(settings.local_model_threads, settings.model_workers)


def build_late_encoder(settings: CoreSettings) -> TokenEncoder | None:
    """The token encoder of the late-interaction rerank (local ONNX, also under OpenAI embeddings), or None."""
    if settings.late_interaction == "none":
        return None
    from rag_core.models import ColbertEncoder

    return ColbertEncoder.shared(settings.local_model_threads, settings.model_workers)
