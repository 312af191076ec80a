"""One playground question through the real answer path, with everything the explain panel shows.

The asker is an :class:`~bot.identity.Identity` like any platform's, minted into a signed token
by :func:`~bot.identity.mint_for`; the core verifies it and applies the mandatory access filter
exactly as for Slack and Teams. The question runs through ``Pipeline.answer_traced``, the very
sequence ``Pipeline.answer`` runs, which also returns the state, so the candidates, the deciding
stage and the per-stage timings stay visible beside the same ``Answer`` the chat surfaces get.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from bot.identity import Identity, mint_for, user_ref
from bot.reply import Reply
from rag_core.pipeline import Pipeline
from rag_core.pipeline.state import QueryState
from rag_core.types import Answer

SNIPPET_CHARS = 280


@dataclass(frozen=True)
class AskAs:
    """Who the playground asks as, and how."""

    question: str
    identity: Identity
    as_of: date | None
    language: str | None


@dataclass(frozen=True)
class CandidateRow:
    rank: int
    chunk_id: str
    title: str
    page: int
    dense: float
    fused: float
    rerank: float | None
    in_context: bool
    cited: bool
    snippet: str
    link: str


@dataclass(frozen=True)
class Trace:
    """An answered (or abstained) playground question and how it was decided."""

    ask: AskAs
    answer: Answer
    reply: Reply
    query: str
    language: str
    unknown_words: list[str]
    candidates: list[CandidateRow]
    decided_by: str | None
    cutoff: float | None
    unknown_word_cutoff: float | None
    best_similarity: float
    timings: dict[str, float]

    @property
    def abstained(self) -> bool:
        return self.answer.abstained

    @property
    def verdict(self) -> str:
        if self.answer.abstain_reason is None:
            return "every stage passed"
        return f"{self.answer.abstain_reason}, decided by the {self.decided_by or '?'} stage"

    @property
    def slowest_ms(self) -> float:
        return max((ms for name, ms in self.timings.items() if name != "total"), default=0.0) or 1.0


def _candidates(state: QueryState, top_k: int) -> list[CandidateRow]:
    context = {c.chunk_id for c in state.context}
    cited = set(state.cited)
    rows = []
    for rank, c in enumerate(state.candidates[:top_k], start=1):
        snippet = " ".join(c.content.split())
        rows.append(
            CandidateRow(
                rank=rank,
                chunk_id=c.chunk_id,
                title=c.title,
                page=c.page_number,
                dense=round(c.dense_score, 4),
                fused=round(c.fused_score, 4),
                rerank=None if c.rerank_score is None else round(c.rerank_score, 4),
                in_context=c.chunk_id in context,
                cited=c.chunk_id in cited,
                snippet=snippet[:SNIPPET_CHARS] + ("…" if len(snippet) > SNIPPET_CHARS else ""),
                link=c.link(),
            )
        )
    return rows


def _gate_cutoffs(pipeline: Pipeline) -> tuple[float | None, float | None]:
    try:
        gate: Any = pipeline.stage("gate")
    except KeyError:
        return None, None
    return getattr(gate, "cutoff", None), getattr(gate, "unknown_word_cutoff", None)


async def trace(
    pipeline: Pipeline, ask: AskAs, *, signing_key: str, ttl_s: int, reply_for: Callable[[Answer], Reply]
) -> Trace:
    """Run ``ask`` through ``pipeline``; ``reply_for`` turns the Answer into the platforms' Reply.

    Core errors (a forged token, an index that is not there) propagate: the page shows them.
    """
    subject = f"playground:{user_ref(signing_key, 'playground', ask.identity.user_id)}"
    token = mint_for(signing_key, ask.identity, subject, ttl_s, language=ask.language)
    answer, state = await pipeline.answer_traced(ask.question, token, as_of=ask.as_of)
    cutoff, unknown_cutoff = _gate_cutoffs(pipeline)
    return Trace(
        ask=ask,
        answer=answer,
        reply=reply_for(answer),
        query=state.query,
        language=state.language,
        unknown_words=list(state.unknown_words),
        candidates=_candidates(state, pipeline.settings.top_k),
        decided_by=state.decided_by,
        cutoff=cutoff,
        unknown_word_cutoff=unknown_cutoff,
        best_similarity=round(state.best_similarity, 4),
        timings=dict(state.timings),
    )
