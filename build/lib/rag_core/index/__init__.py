"""The vector index: one small interface, two backends (embedded Qdrant Edge, Qdrant server)."""

from __future__ import annotations

from rag_core.index.base import AccessFilter, IndexPoint, ScoredPoint, VectorIndex
from rag_core.settings import CoreSettings

__all__ = ["AccessFilter", "IndexPoint", "ScoredPoint", "VectorIndex", "open_index"]


def open_index(settings: CoreSettings) -> VectorIndex:
    """Qdrant server when ``QDRANT_URL`` is set, otherwise the embedded shard under the data dir."""
    if settings.qdrant_url:
        from rag_core.index.server import ServerIndex

        return ServerIndex.connect(settings.qdrant_url, settings.qdrant_api_key, settings.qdrant_collection)
    from rag_core.index.edge import EdgeIndex

    return EdgeIndex(settings.data_dir / "index")
