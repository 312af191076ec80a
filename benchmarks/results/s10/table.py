"""The final-figures table from a run_all_sets.sh output directory (one-off; figures only):
    python3 benchmarks/results/s10/table.py benchmarks/results/s10/final
"""
import json
import sys
from pathlib import Path


def cell(value, digits=2):
    return "—" if value is None else f"{value:.{digits}f}"


def row(name, d):
    cats = d.get("by_category") or {}
    f, c, nm = cats.get("formal"), cats.get("chat"), cats.get("near-miss")
    if f or c:
        acc = " / ".join(cell(x["answer_accuracy"]) if x else "—" for x in (f, c))
        ans = " / ".join(cell(x["answered_rate"]) if x else "—" for x in (f, c))
    else:
        acc, ans = cell(d["answer_accuracy"]), cell(d["answered_rate"])
    recall = nm["abstain_recall"] if nm else d.get("abstain_recall")
    lat = d["latency_ms"]["total"]
    return (
        f"| {name} | {cell(d['hit_at_5'])} / {cell(d['mrr'], 3)} | {acc} | {ans} | {cell(recall) if recall is not None else 'n/a'} "
        f"| {d['leakage']} / {d['invalid_citations']} | {lat['p50']:.0f} / {lat['p95']:.0f} |"
    )


out = Path(sys.argv[1])
names = ["gold", "holdout", "chat-dev", "holdout-chat", *[f"holdout-chat-{i}" for i in range(2, 40)], "contoso",
         "contoso-holdout", *[f"contoso-holdout-{i}" for i in range(2, 40)]]
p95s = []
for name in names:
    path = out / f"{name}.json"
    if path.exists():
        d = json.loads(path.read_text())
        print(row(name, d))
        p95s.append(d["latency_ms"]["total"]["p95"])
print(f"p95 {min(p95s):.0f}-{max(p95s):.0f} ms, <= 250 on {sum(p <= 250 for p in p95s)} of {len(p95s)}", file=sys.stderr)
