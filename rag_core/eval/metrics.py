"""Metrics over per-row results. A metric with no applicable rows is None (printed as null)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class RowResult:
    id: str
    expect: str
    abstained: bool
    reason: str | None
    first_hit_rank: int | None  # 1-based rank of the first retrieved chunk matching a source
    has_sources: bool
    cited_match: bool
    must_include: list[str]
    answer: str
    leaked: list[str]
    invalid_citations: list[str]
    latency_ms: dict[str, float]
    retrieved_sources: list[str] = field(default_factory=list)
    cited_sources: list[str] = field(default_factory=list)
    category: str | None = None
    must_not_include: list[str] = field(default_factory=list)
    decided_by: str | None = None  # the stage that abstained (None: answered)
    best_reading: float | None = None  # the reader's best logit, when the question was read

    def forbidden_shown(self) -> list[str]:
        text = self.answer.lower()
        return [m for m in self.must_not_include if m.lower() in text]

    def includes_any(self) -> bool:
        text = self.answer.lower()
        return any(m.lower() in text for m in self.must_include)

    def includes_all(self) -> bool:
        text = self.answer.lower().replace(" ", "")
        return all(m.lower().replace(" ", "") in text for m in self.must_include)


def _share(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def compute(rows: Sequence[RowResult]) -> dict[str, Any]:
    answerable = [r for r in rows if r.expect == "answer" and r.has_sources]
    answered = [r for r in rows if r.expect == "answer" and not r.abstained]
    abstained = [r for r in rows if r.abstained]
    should_abstain = [r for r in rows if r.expect == "abstain"]
    conflicts = [r for r in rows if r.expect == "conflict"]

    def hit(k: int) -> float | None:
        return _share([r.first_hit_rank is not None and r.first_hit_rank <= k for r in answerable])

    mrr = (
        round(float(np.mean([1.0 / r.first_hit_rank if r.first_hit_rank else 0.0 for r in answerable])), 4)
        if answerable
        else None
    )
    stages = sorted({s for r in rows for s in r.latency_ms})
    latency = {}
    for stage in stages:
        values = [r.latency_ms[stage] for r in rows if stage in r.latency_ms]
        latency[stage] = {
            "p50": round(float(np.percentile(values, 50)), 2),
            "p95": round(float(np.percentile(values, 95)), 2),
        }
    return {
        "n": len(rows),
        "hit_at_1": hit(1),
        "hit_at_5": hit(5),
        "hit_at_10": hit(10),
        "mrr": mrr,
        "citation_page_match": _share([r.cited_match for r in answered if r.has_sources]),
        "answer_accuracy": _share([r.includes_any() for r in answered if r.must_include]),
        "abstain_precision": _share([r.expect != "answer" for r in abstained]),
        "abstain_recall": _share([r.abstained for r in should_abstain]),
        "conflict_handled": _share(
            [
                (r.abstained and r.reason == "conflict")
                or (not r.abstained and r.includes_all() and bool(r.must_include))
                for r in conflicts
            ]
        ),
        "leakage": sum(len(r.leaked) for r in rows),
        "forbidden_content": sum(len(r.forbidden_shown()) for r in rows),
        "invalid_citations": sum(len(r.invalid_citations) for r in rows),
        "answered_rate": _share([not r.abstained for r in rows if r.expect == "answer"]),
        "by_category": by_category(rows),
        "latency_ms": latency,
    }


def by_category(rows: Sequence[RowResult]) -> dict[str, dict[str, Any]]:
    """The answer-side figures per row category (e.g. formal vs chat-style phrasing, near misses):
    a set can meet its targets overall and still fail the way employees actually write."""
    out: dict[str, dict[str, Any]] = {}
    for category in sorted({r.category for r in rows if r.category}):
        mine = [r for r in rows if r.category == category]
        out[category] = {
            "n": len(mine),
            "answer_accuracy": _share(
                [r.includes_any() for r in mine if r.expect == "answer" and not r.abstained and r.must_include]
            ),
            "answered_rate": _share([not r.abstained for r in mine if r.expect == "answer"]),
            "abstain_recall": _share([r.abstained for r in mine if r.expect == "abstain"]),
        }
    return out
