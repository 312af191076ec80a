"""The final-figures table from a run_all_sets.sh output directory (one-off; figures only):

python3 benchmarks/results/s10/table.py DIR
"""

import json
import sys
from pathlib import Path


def cell(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def row(name: str, d: dict) -> str:
    cats = d.get("by_category") or {}
    formal, chat, near = cats.get("formal"), cats.get("chat"), cats.get("near-miss")
    if formal or chat:
        acc = " / ".join(cell(x["answer_accuracy"]) if x else "—" for x in (formal, chat))
        answered = " / ".join(cell(x["answered_rate"]) if x else "—" for x in (formal, chat))
    else:
        acc, answered = cell(d["answer_accuracy"]), cell(d["answered_rate"])
    recall = near["abstain_recall"] if near else d.get("abstain_recall")
    total = d["latency_ms"]["total"]
    return (
        f"| {name} | {cell(d['hit_at_5'])} / {cell(d['mrr'], 3)} | {acc} | {answered} "
        f"| {cell(recall) if recall is not None else 'n/a'} | {d['leakage']} / {d['invalid_citations']} "
        f"| {total['p50']:.0f} / {total['p95']:.0f} |"
    )


def main() -> None:
    out = Path(sys.argv[1])
    fabrikam = ["gold", "holdout", "chat-dev", "holdout-chat", *[f"holdout-chat-{i}" for i in range(2, 40)]]
    contoso = ["contoso", "contoso-holdout", *[f"contoso-holdout-{i}" for i in range(2, 40)]]
    p95s = []
    for name in fabrikam + contoso:
        path = out / f"{name}.json"
        if path.exists():
            d = json.loads(path.read_text())
            print(row(name, d))
            p95s.append(d["latency_ms"]["total"]["p95"])
    within = sum(p <= 250 for p in p95s)
    print(f"p95 {min(p95s):.0f}-{max(p95s):.0f} ms, <= 250 on {within} of {len(p95s)}", file=sys.stderr)


if __name__ == "__main__":
    main()
