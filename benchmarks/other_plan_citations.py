"""How often an answer to a question that names one Northwind plan cites the other plan's document
(a benchmark tool, not a test; what the named-document scope was measured with).

Reads ``contoso*.details`` files of `benefitsbot eval --details` runs (``benchmarks/results/s6/run-all.sh``
names them so) and the Contoso question sets: a question names Standard or Health Plus when it says
"standard" or "plus" but not both.

    .venv/bin/python benchmarks/other_plan_citations.py RUN_DIR [RUN_DIR ...] \\
        --ground-truth ../shared/benchmarks/contoso/ground_truth.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PLANS = {"standard": "northwind_standard", "plus": "northwind_health_plus"}


def questions(ground_truth: Path | None) -> dict[str, str]:
    paths = sorted((REPO / "benchmarks").glob("contoso_holdout*.jsonl"))
    if ground_truth is not None:
        paths.append(ground_truth)
    out: dict[str, str] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            out[row["id"]] = row["question"]
    return out


def named_plan(question: str) -> str | None:
    named = [plan for plan in PLANS if re.search(rf"\b{plan}\b", question, re.IGNORECASE)]
    return named[0] if len(named) == 1 else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--ground-truth", type=Path)
    args = parser.parse_args()
    asked = questions(args.ground_truth)
    for run in args.runs:
        answered = other = 0
        for details in sorted(run.glob("contoso*.details")):
            for line in details.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                plan = named_plan(asked.get(record["id"], ""))
                if plan is None or record["abstained"]:
                    continue
                answered += 1
                (sibling,) = (PLANS[p] for p in PLANS if p != plan)
                other += any(sibling in source.lower() for source in record["cited_sources"])
        print(f"{run}: {answered} answers to a question naming one plan, {other} cite the other plan's document")


if __name__ == "__main__":
    main()
