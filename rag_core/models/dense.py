"""bge-small-en-v1.5 (int8 ONNX, bundled): 384-d unit vectors from the [CLS] token.

Retrieval questions get the instruction prefix the model card prescribes for short queries that
look for passages; documents are embedded as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from rag_core.models import bert
from rag_core.models.runtime import (
    InferencePool,
    ModelFiles,
    bundled_model,
    default_threads,
    load_session,
    load_tokenizer,
)

MODEL_NAME = "bge-small-en-v1.5"
QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "


class DenseOnnxEncoder:
    """Dense sentence embeddings. A text longer than ``max_pieces`` word pieces is refused, never cut:
    split it first with ``windows``."""

    model_name: str = MODEL_NAME
    dimension: int = 384
    max_pieces: int = 510  # the model's 512 positions minus [CLS] and [SEP]

    _shared: ClassVar[dict[tuple[int | None, int | None], DenseOnnxEncoder]] = {}

    def __init__(
        self, files: ModelFiles | None = None, *, threads: int | None = None, pool: InferencePool | None = None
    ) -> None:
        """``pool``: runs a call's texts concurrently (None: one after the other)."""
        files = files or bundled_model(MODEL_NAME, "bge_small_en")
        self._pool = pool or InferencePool(1)
        self._session = load_session(files.onnx, threads or default_threads(self._pool.workers))
        self._tokenizer = load_tokenizer(files.tokenizer)
        self._cls = bert.token_id(self._tokenizer, "[CLS]")
        self._sep = bert.token_id(self._tokenizer, "[SEP]")
        self._instruction = bert.word_pieces(self._tokenizer, QUERY_INSTRUCTION).ids

    @classmethod
    def shared(cls, threads: int | None = None, workers: int | None = None) -> DenseOnnxEncoder:
        """One encoder per process (the session and tokenizer are cached anyway; this skips the checks),
        on the shared pool of ``workers`` (default: the usable cores)."""
        key = (threads, workers)
        if key not in cls._shared:
            cls._shared[key] = cls(threads=threads, pool=InferencePool.shared(workers))
        return cls._shared[key]

    @property
    def max_query_pieces(self) -> int:
        """Room left for a question's own word pieces after the instruction."""
        return self.max_pieces - len(self._instruction)

    def count_pieces(self, text: str) -> int:
        return len(bert.word_pieces(self._tokenizer, text))

    def windows(self, text: str, *, pieces: int | None = None, overlap: int = 32) -> list[str]:
        """``text`` as overlapping slices the model reads in full. Slices are cut from the original
        text at word-piece boundaries (case and spacing kept)."""
        size = pieces or self.max_pieces
        split = bert.word_pieces(self._tokenizer, text)
        if len(split) <= size:
            return [text]
        out: list[str] = []
        for start in bert.window_starts(len(split), size, overlap):
            end = min(start + size, len(split))
            out.append(text[split.offsets[start][0] : split.offsets[end - 1][1]])
        return out

    def encode_documents(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), 384)`` unit rows."""
        return self._encode(texts, prefix=[])

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Questions, with the retrieval instruction in front; ``(len(texts), 384)`` unit rows."""
        return self._encode(texts, prefix=self._instruction)

    def encode_query(self, text: str) -> np.ndarray:
        return self.encode_queries([text])[0]

    def _encode(self, texts: Sequence[str], prefix: list[int]) -> np.ndarray:
        sequences = []
        for text in texts:
            ids = bert.word_pieces(self._tokenizer, text).ids
            if len(prefix) + len(ids) > self.max_pieces:
                raise ValueError(
                    f"text of {len(ids)} word pieces is over the model's {self.max_pieces}; "
                    "split it with windows() first"
                )
            sequences.append([self._cls, *prefix, *ids, self._sep])
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, hidden in enumerate(self._pool.map(lambda ids: bert.run_encoder(self._session, ids), sequences)):
            out[row] = hidden[0]
        return bert.unit_rows(out)
