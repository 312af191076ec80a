"""The embedded default: bge-small-en-v1.5 on ONNX Runtime (bundled int8 model, CPU, no torch).

The model reads at most 510 word pieces; a chunk holds 400 cl100k tokens (sometimes more word
pieces than that), so a longer text is embedded as overlapping windows whose vectors are averaged
and re-normalised. Nothing of a chunk is silently cut off. Questions get bge's retrieval
instruction (see ``rag_core.models.dense``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np

from rag_core.models.dense import MODEL_NAME, DenseOnnxEncoder

_Encode = Callable[[Sequence[str]], np.ndarray]


class LocalEmbedder:
    """``EmbeddingProvider`` over ``DenseOnnxEncoder``.

    Each text is one ONNX run (deterministic, see ``rag_core.models.bert``), and ONNX Runtime
    releases the GIL, so concurrent questions simply run in worker threads side by side.
    """

    model_name: str = MODEL_NAME
    dimension: int = 384

    _shared: ClassVar[dict[tuple[int | None, int | None], LocalEmbedder]] = {}
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, encoder: DenseOnnxEncoder | None = None, *, window_overlap: int = 32) -> None:
        self.encoder = encoder or DenseOnnxEncoder.shared()
        self.window_pieces = self.encoder.max_pieces
        self.window_overlap = window_overlap

    @classmethod
    def shared(cls, threads: int | None = None, workers: int | None = None) -> LocalEmbedder:
        """One embedder per process (and thread and worker setting)."""
        key = (threads, workers)
        with cls._shared_lock:
            if key not in cls._shared:
                cls._shared[key] = cls(DenseOnnxEncoder.shared(threads, workers))
            return cls._shared[key]

    def windows(self, text: str, *, pieces: int | None = None, overlap: int | None = None) -> list[str]:
        """Split ``text`` into pieces the model reads in full (overlapping by a few word pieces);
        ``pieces``/``overlap`` ask for smaller windows than the model's."""
        return self.encoder.windows(
            text, pieces=pieces or self.window_pieces, overlap=self.window_overlap if overlap is None else overlap
        )

    def embed_documents_sync(self, texts: Sequence[str]) -> list[list[float]]:
        return self._pooled(texts, self.window_pieces, self.encoder.encode_documents)

    def embed_query_sync(self, text: str) -> list[float]:
        return self._pooled([text], self.encoder.max_query_pieces, self.encoder.encode_queries)[0]

    def _pooled(self, texts: Sequence[str], size: int, encode: _Encode) -> list[list[float]]:
        """Embed each text's windows and average them per text (re-normalised)."""
        owners: list[int] = []
        pieces: list[str] = []
        for index, text in enumerate(texts):
            for piece in self.encoder.windows(text, pieces=size, overlap=self.window_overlap):
                owners.append(index)
                pieces.append(piece)
        if not pieces:
            return []
        sums = np.zeros((len(texts), self.dimension), dtype=np.float32)
        np.add.at(sums, np.asarray(owners), encode(pieces))
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return (sums / norms).tolist()  # type: ignore[no-any-return]

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.embed_documents_sync, list(texts))

    async def aclose(self) -> None:
        """The model is shared by the process (``shared()``) and holds no connection."""

    async def embed_query(self, text: str) -> list[float]:
        return await asyncio.to_thread(self.embed_query_sync, text)
