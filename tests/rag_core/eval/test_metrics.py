"""Per-category figures: formal and chat-style rows are judged on their own."""

from __future__ import annotations

import pytest

from rag_core.eval.metrics import RowResult, compute

pytestmark = pytest.mark.unit


def _row(
    id_: str,
    category: str,
    *,
    expect: str = "answer",
    abstained: bool = False,
    answer: str = "",
    must_include: list[str] | None = None,
) -> RowResult:
    return RowResult(
        id=id_,
        expect=expect,
        abstained=abstained,
        reason=None,
        first_hit_rank=1,
        has_sources=expect == "answer",
        cited_match=True,
        must_include=must_include or [],
        answer=answer,
        leaked=[],
        invalid_citations=[],
        latency_ms={},
        category=category,
    )


def test_figures_per_category() -> None:
    rows = [
        _row("f1", "formal", answer="It is $1,250.", must_include=["$1,250"]),
        _row("c1", "chat", answer="It is $500.", must_include=["$1,250"]),
        _row("c2", "chat", abstained=True, must_include=["$9,000"]),
        _row("n1", "near-miss", expect="abstain", abstained=True),
    ]
    by = compute(rows)["by_category"]
    assert by["formal"] == {"n": 1, "answer_accuracy": 1.0, "answered_rate": 1.0, "abstain_recall": None}
    assert by["chat"] == {"n": 2, "answer_accuracy": 0.0, "answered_rate": 0.5, "abstain_recall": None}
    assert by["near-miss"]["abstain_recall"] == 1.0
