"""Analysis half of ``reading_ablations.py``: answer accuracy per sentence selector, answerability
per model signal, and cost, from the files ``collect`` wrote. Pure arithmetic over those files."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

Row = dict[str, Any]
SpanRow = dict[str, Any]
Selector = Callable[[Row], list[SpanRow]]

STOP_PIECES = frozenset(
    """
what whats is are the a an of to for on in my i me do does did how much many can could will would
should we our your it its this that there with at by be been have has had get got or and if as any
""".split()
)


def load(paths: Sequence[Path]) -> dict[str, list[Row]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8"))["rows"] for p in paths}


def hit(text: str, must: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(m.lower() in lowered for m in must)


# -- selectors ---------------------------------------------------------------------------------------------


def shipped_lexical(row: Row) -> list[SpanRow]:
    """What ExtractiveGenerator.compose picks: best lexical score, then up to 3 within 60% of it."""
    scored = sorted(
        (s for s in row["spans"] if s["lexical"] is not None and s["lexical"] > 0), key=lambda s: -s["lexical"]
    )
    if not scored:
        return []
    best = scored[0]["lexical"]
    return [s for s in scored[:3] if s["lexical"] >= 0.6 * best]


def by(key: str, k: int = 3, margin: float | None = None) -> Selector:
    """Order every span by ``key``; keep the best and up to ``k`` within ``margin`` of it."""

    def select(row: Row) -> list[SpanRow]:
        ranked = sorted(row["spans"], key=lambda s: -s[key])
        if not ranked:
            return []
        if margin is None:
            return ranked[:k]
        return [s for s in ranked[:k] if s[key] >= ranked[0][key] - margin]

    return select


def prefiltered(pre: str, keep: int, key: str = "ce_heading", k: int = 3, margin: float | None = 2.0) -> Selector:
    """Cheap score ``pre`` keeps the top ``keep`` spans; the cross-encoder orders those."""

    def select(row: Row) -> list[SpanRow]:
        pool = sorted(row["spans"], key=lambda s: -_value(s, pre))[:keep]
        ranked = sorted(pool, key=lambda s: -s[key])
        if not ranked:
            return []
        return [s for s in ranked[:k] if margin is None or s[key] >= ranked[0][key] - margin]

    return select


def _value(span: SpanRow, key: str) -> float:
    if key == "lexical":
        return span["lexical"] if span["lexical"] is not None else -1.0
    if key == "colbert+lexical":
        return span["colbert"] + 0.5 * (span["lexical"] or 0.0)
    return float(span[key])


def selectors() -> dict[str, Selector]:
    out: dict[str, Selector] = {"lexical (shipped)": shipped_lexical}
    for key in ("ce", "ce_heading", "ce_title", "colbert", "dense"):
        out[f"{key} top1"] = by(key, k=1)
    for key in ("ce", "ce_heading", "ce_title"):
        out[f"{key} top3 margin2"] = by(key, k=3, margin=2.0)
    for pre in ("colbert", "dense", "lexical", "colbert+lexical"):
        for keep in (6, 8, 10, 12):
            out[f"{pre}->{keep}->ce_heading top1"] = prefiltered(pre, keep, k=1)
            out[f"{pre}->{keep}->ce_heading top3 margin2"] = prefiltered(pre, keep)
    return out


def answer_accuracy(rows: Sequence[Row], select: Selector) -> tuple[int, int, int, float]:
    """(answered correctly, answerable rows with labels whose context holds the answer, all labelled rows,
    mean spans shown)."""
    labelled = [r for r in rows if r["expect"] == "answer" and r["must_include"]]
    reachable = [r for r in labelled if any(hit(s["text"], r["must_include"]) for s in r["spans"])]
    correct, shown = 0, []
    for row in labelled:
        chosen = select(row)
        shown.append(len(chosen))
        correct += hit(" ".join(s["text"] for s in chosen), row["must_include"])
    return correct, len(reachable), len(labelled), float(np.mean(shown)) if shown else 0.0


# -- answerability signals ------------------------------------------------------------------------------


def content_coverage(row: Row) -> list[float]:
    return [
        c["best"]
        for c in row["coverage"]
        if c["piece"].lower() not in STOP_PIECES
        and re.search(r"[a-z0-9]", c["piece"])
        and not c["piece"].startswith("##")
    ]


def signals() -> dict[str, Callable[[Row], float]]:
    def best(key: str) -> Callable[[Row], float]:
        return lambda r: max((s[key] for s in r["spans"]), default=-20.0)

    def best_prefiltered(keep: int, pre: str = "colbert") -> Callable[[Row], float]:
        return lambda r: max(
            (s["ce_heading"] for s in sorted(r["spans"], key=lambda s: -_value(s, pre))[:keep]), default=-20.0
        )

    return {
        "dense cosine (MiniLM, shipped gate)": lambda r: r["dense_best"],
        "dense cosine + topic gate (shipped)": lambda r: -1.0 if r["topic_gate_blocks"] else r["dense_best"],
        "max CE logit (all spans)": best("ce"),
        "max CE logit, heading (all spans)": best("ce_heading"),
        "max CE logit, title+heading": best("ce_title"),
        "max CE logit, heading, colbert->8": best_prefiltered(8),
        "max CE logit, heading, colbert->12": best_prefiltered(12),
        "max ColBERT span": best("colbert"),
        "min soft coverage (ColBERT)": lambda r: min(content_coverage(r), default=0.0),
        "mean soft coverage (ColBERT)": lambda r: float(np.mean(content_coverage(r) or [0.0])),
    }


def must_abstain(row: Row) -> bool:
    return row["expect"] == "abstain"


def safest_threshold(tuning: Sequence[Row], signal: Callable[[Row], float]) -> float | None:
    """The lowest threshold that abstains on every tuning row that must abstain (recall 1.0)."""
    negatives = [signal(r) for r in tuning if must_abstain(r)]
    return max(negatives) + 1e-6 if negatives else None


def report(paths: Sequence[Path]) -> None:
    sets = load(paths)
    print(
        "== answer accuracy: rows whose shown sentences contain a must_include string "
        "(correct / context holds it / labelled) =="
    )
    names = list(sets)
    print(f"{'selector':<44}" + "".join(f"{n:>22}" for n in names))
    for name, select in selectors().items():
        cells = []
        for rows in sets.values():
            correct, reachable, labelled, mean = answer_accuracy(rows, select)
            cells.append(f"{correct:>3}/{reachable:<3}/{labelled:<3} ({mean:.1f})")
        print(f"{name:<44}" + "".join(f"{c:>22}" for c in cells))

    tuning = [r for n, rows in sets.items() if n in ("gold", "chat") for r in rows]
    print("\n== answerability: threshold = just above the highest must-abstain row of gold+chat ==")
    print(f"{'signal':<40}{'thr':>8}" + "".join(f"{n + ' kept/abst':>26}" for n in names))
    for name, signal in signals().items():
        threshold = safest_threshold(tuning, signal)
        cells = []
        for rows in sets.values():
            answerable = [r for r in rows if r["expect"] == "answer"]
            negatives = [r for r in rows if must_abstain(r)]
            kept = sum(signal(r) >= threshold for r in answerable) if threshold is not None else 0
            abstained = sum(signal(r) < threshold for r in negatives) if threshold is not None else 0
            cells.append(f"{kept}/{len(answerable)} {abstained}/{len(negatives)}")
        print(
            f"{name:<40}{threshold if threshold is not None else float('nan'):>8.3f}"
            + "".join(f"{c:>26}" for c in cells)
        )

    print("\n== cost per question (s, mean over rows) ==")
    for name, rows in sets.items():
        keys = sorted({k for r in rows for k in r["cost_s"]})
        spans = np.mean([len(r["spans"]) for r in rows])
        print(
            name,
            f"spans/question {spans:.1f}",
            {k: round(float(np.mean([r["cost_s"][k] for r in rows if k in r["cost_s"]])), 4) for k in keys},
        )
