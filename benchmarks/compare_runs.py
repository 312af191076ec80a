"""Compare two directories of `benefitsbot eval --details` runs (a benchmark tool, not a test).

Each directory holds ``<set>.details`` files, as ``benchmarks/results/s6/run-all.sh OUT`` writes them.
Rows are scored the way the eval's strict measure does (every ``must_include`` string shown), pooled
per kind: formal answerable (every answerable category but chat), chat answerable, must-abstain. Then
every row whose score changed is listed. How each session-6 change was measured:

    .venv/bin/python benchmarks/compare_runs.py BEFORE_DIR AFTER_DIR
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def gold_rows(contoso_answers: Path) -> dict[str, dict[str, Any]]:
    """Every row of the repo's sets by id, with Contoso's answer labels merged in."""
    rows: dict[str, dict[str, Any]] = {}
    sets = [
        *sorted((REPO / "corpus").glob("*.jsonl")),
        *sorted((REPO / "benchmarks").glob("contoso_holdout*.jsonl")),
        *sorted((REPO / "benchmarks").glob("contoso_terse*.jsonl")),
        *sorted((REPO / "benchmarks" / "tailspin").glob("*.jsonl")),
        *sorted((REPO / "benchmarks" / "tier_phrases").glob("*.jsonl")),
    ]
    for path in sets:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rows[row["id"]] = row
    if contoso_answers.exists():
        for line in contoso_answers.read_text(encoding="utf-8").splitlines():
            label = json.loads(line)
            rows.setdefault(label["id"], {}).update(label)
    return rows


def _squash(text: str) -> str:
    return text.replace(" ", "").lower()


def outcomes(run: Path, rows: dict[str, dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """id -> (kind, outcome): outcome is right / wrong / abstained for answerable rows and
    answered / abstained for must-abstain rows; unlabelled answerable rows are skipped."""
    out: dict[str, tuple[str, str]] = {}
    for details in sorted(run.glob("*.details")):
        for line in details.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            row = rows.get(record["id"], {})
            if record["expect"] == "abstain":
                out[record["id"]] = ("must-abstain", "abstained" if record["abstained"] else "answered")
                continue
            must = row.get("must_include") or []
            if record["expect"] != "answer" or not must:
                continue
            kind = "chat" if row.get("category") == "chat" else "formal"
            if record["abstained"]:
                out[record["id"]] = (kind, "abstained")
            else:
                right = all(_squash(m) in _squash(record["answer"]) for m in must)
                out[record["id"]] = (kind, "right" if right else "wrong")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--contoso-answers", type=Path, default=REPO / "benchmarks" / "contoso_answers.jsonl")
    args = parser.parse_args()
    rows = gold_rows(args.contoso_answers)
    before, after = outcomes(args.before, rows), outcomes(args.after, rows)
    shared = sorted(set(before) & set(after))
    for name, run in (("before", before), ("after", after)):
        tally = Counter(run[i] for i in shared)
        print(
            f"{name:6}: formal right {tally['formal', 'right']} wrong {tally['formal', 'wrong']} | "
            f"chat right {tally['chat', 'right']} wrong {tally['chat', 'wrong']} | "
            f"must-abstain answered {tally['must-abstain', 'answered']} of "
            f"{tally['must-abstain', 'answered'] + tally['must-abstain', 'abstained']}"
        )
    for row_id in shared:
        if before[row_id] != after[row_id]:
            question = rows.get(row_id, {}).get("question", "")[:90]
            print(f"  {row_id:8} {before[row_id][0]:12} {before[row_id][1]:9} -> {after[row_id][1]:9} {question}")


if __name__ == "__main__":
    main()
