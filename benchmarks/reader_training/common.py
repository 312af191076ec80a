"""What every training step shares: the bundled model's files, the reader's pair encoding (as
``rag_core.models.cross.CrossEncoder`` builds it: [CLS] question [SEP] sentence [SEP], the question
cut to half the length, no padding) and the readings file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rag_core.models.runtime import bundled_model

BUNDLED = bundled_model("ms-marco-MiniLM-L-12-v2", "reranker_en")
MAX_LENGTH = 128  # what the reader reads with (rag_core.pipeline.build: max_length=128)


def tokenizer() -> Any:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(BUNDLED.tokenizer))
    tok.no_padding()  # the bundled tokenizer.json pads to 512; the reader never pads
    tok.no_truncation()
    return tok


_TOK = None


def pair_ids(query: str, passage: str, max_length: int = MAX_LENGTH) -> tuple[list[int], list[int]]:
    global _TOK
    if _TOK is None:
        _TOK = tokenizer()
    cls, sep = _TOK.token_to_id("[CLS]"), _TOK.token_to_id("[SEP]")
    q = _TOK.encode(query, add_special_tokens=False).ids[: max_length // 2]
    room = max_length - len(q) - 3
    p = _TOK.encode(passage, add_special_tokens=False).ids[:room]
    return [cls, *q, sep, *p, sep], [0] * (len(q) + 2) + [1] * (len(p) + 1)


def load_readings(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def queries_of(reading: dict[str, Any]) -> list[str]:
    """The questions the reader asks for a row: the whole, its question clauses, the spelling fix."""
    queries = list(reading["queries"])
    if reading.get("corrected") and reading["corrected"] not in queries:
        queries.append(reading["corrected"])
    return queries
