"""The context budget: only chunks that pass the similarity gate, at most N chunks and T tokens."""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.tokens import count_tokens
from rag_core.types import Candidate


def select_context(
    candidates: Sequence[Candidate], *, cutoff: float, max_chunks: int = 4, max_tokens: int = 1600
) -> list[Candidate]:
    chosen: list[Candidate] = []
    used = 0
    for candidate in candidates:
        if candidate.gate_similarity < cutoff:
            continue  # no chunk under the cutoff ever reaches a prompt
        # The count stored at ingest spares a question the tokenizer load (~0.4 s cold).
        cost = candidate.token_count if candidate.token_count is not None else count_tokens(candidate.content)
        if used + cost > max_tokens:
            continue
        chosen.append(candidate)
        used += cost
        if len(chosen) == max_chunks:
            break
    return chosen
