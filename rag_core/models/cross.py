"""ms-marco-MiniLM-L-12-v2 (int8 ONNX, bundled): reads a question and a passage together.

Scores are sigmoid probabilities that the passage answers the question. A pair longer than
``max_length`` word pieces keeps the question (up to half of ``max_length``) and cuts the
passage's tail (the model cannot read more); ``truncated`` tells a caller whether that happened,
so it can pass shorter passages. Each pair is one ONNX run (see ``rag_core.models.bert``); a call's
distinct passages run side by side on the shared ``InferencePool`` and a passage given twice in one
call is read once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
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

MODEL_NAME = "ms-marco-MiniLM-L-12-v2"
# READER_WEIGHTS value -> a fine-tune of ms-marco (its file is rag_core/models/data/<name>.npz): the top
# four layers, pooler and head trained to read benefits questions against the sentences of benefits
# documents (``benchmarks/reader_training/``), shipped as the changed layers only, run in the bundled
# graph. "benefits": v2 (benchmarks/README.md "Reading, session 16"); "benefits-v3": the same on 40 %
# more questions (the sets written through session 24, a third company's included), an option until
# the cases its default would change are reviewed (benchmarks/README.md "Session 25"); "benefits-v4", the
# default of session 26: the same on every set written through session 25 ("Session 26"); "benefits-v5", the
# default since session 27: the same with session 26's two sealed trios added ("Session 27").
FINE_TUNES = {
    "benefits": "benefits-reader-v2",
    "benefits-v3": "benefits-reader-v3",
    "benefits-v4": "benefits-reader-v4",
    "benefits-v5": "benefits-reader-v5",
}


def reader_model_name(weights: str) -> str:
    """What the reader is called in reports, without loading anything."""
    return MODEL_NAME if weights == "ms-marco" else f"{MODEL_NAME}+{FINE_TUNES[weights]}"


def reader_files(weights: str) -> ModelFiles | None:
    """The reader's model: a fine-tune (``FINE_TUNES``) or ``ms-marco`` (the bundled model, None)."""
    if weights == "ms-marco":
        return None
    if weights not in FINE_TUNES:
        raise ValueError(f"unknown reader weights {weights!r}: {', '.join(FINE_TUNES)} or ms-marco")
    bundled = bundled_model(MODEL_NAME, "reranker_en")
    weights_file = Path(__file__).with_name("data") / f"{FINE_TUNES[weights]}.npz"
    return replace(bundled, name=reader_model_name(weights), weights=weights_file)


class CrossEncoder:
    model_name: str = MODEL_NAME
    positions: int = 512

    _shared: ClassVar[dict[tuple[int | None, int, int | None, ModelFiles | None], CrossEncoder]] = {}

    def __init__(
        self,
        files: ModelFiles | None = None,
        *,
        threads: int | None = None,
        max_length: int = 512,
        pool: InferencePool | None = None,
    ) -> None:
        """``pool``: runs a call's pairs concurrently (None: one after the other)."""
        if not 8 <= max_length <= self.positions:
            raise ValueError(f"max_length must be between 8 and {self.positions}")
        files = files or bundled_model(MODEL_NAME, "reranker_en")
        self.model_name = files.name
        self._pool = pool or InferencePool(1)
        self._session = load_session(files.onnx, threads or default_threads(self._pool.workers), files.weights)
        self._tokenizer = load_tokenizer(files.tokenizer)
        self._cls = bert.token_id(self._tokenizer, "[CLS]")
        self._sep = bert.token_id(self._tokenizer, "[SEP]")
        self.max_length = max_length

    @classmethod
    def shared(
        cls,
        threads: int | None = None,
        max_length: int = 512,
        workers: int | None = None,
        files: ModelFiles | None = None,
    ) -> CrossEncoder:
        """One encoder per settings (and model files) per process, on the shared pool of
        ``workers`` (default: the usable cores). ``files``: None is the bundled ms-marco model."""
        key = (threads, max_length, workers, files)
        if key not in cls._shared:
            cls._shared[key] = cls(files, threads=threads, max_length=max_length, pool=InferencePool.shared(workers))
        return cls._shared[key]

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """Probability, per passage, that it answers ``query`` (same order as ``passages``)."""
        return [float(1.0 / (1.0 + np.exp(-logit))) for logit in self.logits(query, passages)]

    def logits(self, query: str, passages: Sequence[str]) -> list[float]:
        """The raw relevance logits (monotone in ``score``; wider range for calibration plots)."""
        question = bert.word_pieces(self._tokenizer, query).ids[: self.max_length // 2]
        distinct = list(dict.fromkeys(passages))  # overlapping chunks can repeat a sentence
        read = dict(
            zip(distinct, self._pool.map(lambda passage: self._logit(question, passage), distinct), strict=True)
        )
        return [read[passage] for passage in passages]

    def piece_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of each word piece of ``text`` (tokenizer only, no model run): lets a caller
        cut a passage to a window the model reads whole."""
        return bert.word_pieces(self._tokenizer, text).offsets

    def truncated(self, query: str, passage: str) -> bool:
        question = bert.word_pieces(self._tokenizer, query).ids[: self.max_length // 2]
        return len(question) + len(bert.word_pieces(self._tokenizer, passage)) + 3 > self.max_length

    def _logit(self, question: list[int], passage: str) -> float:
        room = self.max_length - len(question) - 3
        ids = bert.word_pieces(self._tokenizer, passage).ids[:room]
        sequence = [self._cls, *question, self._sep, *ids, self._sep]
        type_ids = [0] * (len(question) + 2) + [1] * (len(ids) + 1)
        return float(bert.run_encoder(self._session, sequence, type_ids=type_ids)[0])
