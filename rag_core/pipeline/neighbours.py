"""Neighbours: the best-read sentence is quoted with the sentence before or after it when the reader
reads them together as a clearly better answer.

A section often names its topic in one sentence and gives the fact in the next: "Northwind Standard
does have some exceptions when it comes to gender affirming care. This plan does not cover fertility
services, such as egg and sperm banking, or gender affirming treatments for minors." The first shares
every word with "What exceptions apply to gender affirming care coverage under Northwind Standard?",
so it reads best, and quoted alone it says only that exceptions exist. Or the fact comes first and
the best-read sentence adds to it ("These include tests for intelligence, achievement, and aptitude.
In addition, tests that are intended to evaluate … are also not covered."). The model decides, not a
list of lead-in words: each way of joining the best sentence to a neighbour in its paragraph is read as
one passage, and the best joined reading is quoted when it reads at least ``margin`` logits
above the sentence alone. The gates have already judged the question; nothing here changes a score,
only which words the answer shows."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from functools import partial

from rag_core.pipeline.base import StageBase
from rag_core.pipeline.state import QueryState
from rag_core.reading.reader import PassageScorer, Reading, ReadSpan, read_logits
from rag_core.reading.spans import Span, row_label, split_spans


def _prose(span: Span) -> bool:
    """A sentence of running text: not a table row, not a list item read with its lead-in."""
    return not span.lead and row_label(span.text) is None


def _joined(spans: list[Span]) -> Span:
    first, last = spans[0], spans[-1]
    return replace(first, text=" ".join(s.text for s in spans), end=last.end)


def neighbour_joins(best: Span) -> list[Span]:
    """The passages of ``best`` joined to the prose sentence before it and to the one after it in its
    paragraph (never across a line: the next line is another paragraph or a list item). Joined to the
    two sentences after it as well was measured: it fixed no answer the pairs did not (benchmarks/README.md
    "Session 28")."""
    if not _prose(best):
        return []
    spans = split_spans(best.chunk)
    at = next((i for i, s in enumerate(spans) if s.start == best.start and s.end == best.end), None)
    if at is None:
        return []

    def neighbour(index: int) -> Span | None:
        if not 0 <= index < len(spans) or not _prose(spans[index]):
            return None
        first, last = sorted((spans[index], best), key=lambda s: s.start)
        return spans[index] if "\n" not in best.chunk.content[first.end : last.start] else None

    joins = [_joined([before, best])] if (before := neighbour(at - 1)) is not None else []
    if (after := neighbour(at + 1)) is not None:
        joins.append(_joined([best, after]))
    return [replace(join, title_words=best.title_words) for join in joins]


class NeighbourStage(StageBase):
    """Replaces the best-read sentence by its best neighbour join (``neighbour_joins``) when that reads
    at least ``margin`` logits above it; the sentences the join took in are not quoted again."""

    name = "neighbours"

    def __init__(self, scorer: PassageScorer, margin: float) -> None:
        self.scorer = scorer
        self.margin = margin

    async def run(self, state: QueryState) -> None:
        if state.reading is None or not state.reading.spans:
            return
        best = state.reading.spans[0]
        joins = neighbour_joins(best.span)
        if not joins:
            return
        # Read as the reader read the sentence alone (its question forms, its situation words).
        read = partial(
            read_logits,
            self.scorer,
            state.question,
            joins,
            corrected=state.spelling_fixed,
            situation=state.reading.situation,
        )
        scores = await asyncio.to_thread(read)
        score, join = max(zip(scores, joins, strict=True), key=lambda pair: pair[0])
        if score < best.score + self.margin:
            return
        rest = [r for r in state.reading.spans[1:] if not _inside(r.span, join)]
        state.reading = Reading([ReadSpan(join, best.score), *rest], situation=state.reading.situation)


def _inside(span: Span, join: Span) -> bool:
    return span.chunk.chunk_id == join.chunk.chunk_id and join.start <= span.start and span.end <= join.end
