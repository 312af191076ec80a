"""Word pieces and encoder inputs shared by the three BERT-family ONNX models.

Each text is run through the session on its own (a batch of one). The bundled models are
dynamically quantised to int8 with one scale per tensor, so a text's output would otherwise depend
on its batch-mates and on their padding (cosine 0.997 against itself alone, measured on
bge-small); alone, an embedding is the same at ingest and at question time. On this 2-core machine
one-by-one is also faster than padded batches of chunk-sized texts (16 chunks: 2.2 s vs 6.7 s).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rag_core.errors import ModelUnavailable

if TYPE_CHECKING:
    import onnxruntime
    import tokenizers


@dataclass(frozen=True)
class Pieces:
    """A text's word pieces without special tokens, with each piece's character span in the text."""

    ids: list[int]
    offsets: list[tuple[int, int]]

    def __len__(self) -> int:
        return len(self.ids)


def word_pieces(tokenizer: tokenizers.Tokenizer, text: str) -> Pieces:
    encoding = tokenizer.encode(text, add_special_tokens=False)
    return Pieces(ids=list(encoding.ids), offsets=[(int(a), int(b)) for a, b in encoding.offsets])


def token_id(tokenizer: tokenizers.Tokenizer, token: str) -> int:
    found = tokenizer.token_to_id(token)
    if found is None:
        raise ModelUnavailable(f"the bundled tokenizer has no {token} token")
    return int(found)


def window_starts(length: int, size: int, overlap: int) -> list[int]:
    """Starts of windows of ``size`` pieces, each overlapping the previous by ``overlap``, that
    together cover ``length`` pieces (one window when it fits)."""
    if size < 1 or not 0 <= overlap < size:
        raise ValueError("window size must be positive and larger than the overlap")
    starts = [0]
    while starts[-1] + size < length:
        starts.append(starts[-1] + size - overlap)
    return starts


def run_encoder(
    session: onnxruntime.InferenceSession,
    ids: Sequence[int],
    *,
    type_ids: Sequence[int] | None = None,
    attention: Sequence[int] | None = None,
) -> np.ndarray:
    """The first output of one forward pass over one sequence, without the batch axis."""
    input_ids = np.asarray([ids], dtype=np.int64)
    feeds = {
        "input_ids": input_ids,
        "attention_mask": (np.ones_like(input_ids) if attention is None else np.asarray([attention], dtype=np.int64)),
        "token_type_ids": (np.zeros_like(input_ids) if type_ids is None else np.asarray([type_ids], dtype=np.int64)),
    }
    output: np.ndarray = session.run(None, feeds)[0]
    return output[0]


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32)
