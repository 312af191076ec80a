"""Per-row outcome change between two `benefitsbot eval --details` runs (session 33).

usage: python benchmarks/results/s33/diff_rows.py BEFORE_DIR AFTER_DIR   (from the repo root)

Strict scoring, as the benchmarks: an answerable row is right (R) when the answer shows every
`must_include`, wrong (W) when it answers without one, abstained (A) otherwise; a must-abstain row is
refused or answered. Prints the rows whose outcome changed, the rows whose answer changed wording only,
and the tallies.
"""

from __future__ import annotations

import collections
import glob
import json
import sys
from pathlib import Path

SETS = ("corpus/*.jsonl", "benchmarks/*.jsonl", "benchmarks/tailspin/*.jsonl")


def questions() -> dict[str, dict]:
    rows: dict[str, dict] = {}
    for pattern in SETS:
        for path in glob.glob(pattern):
            for line in Path(path).read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    if "id" in row:
                        rows.setdefault(row["id"], row)
    return rows


def outcome(result: dict, asked: dict) -> str:
    if result["expect"] == "abstain":
        return "refused" if result["abstained"] else "NM-ANSWERED"
    if result["abstained"]:
        return "A"
    answer = result["answer"].lower()
    wanted = asked.get("must_include", result.get("must_include") or [])
    return "R" if all(m.lower() in answer for m in wanted) else "W"


def load(folder: str) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path in glob.glob(f"{folder}/*.details"):
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            result = json.loads(line)
            out[result["id"]] = result
    return out


def main(before_dir: str, after_dir: str) -> None:
    asked = questions()
    before, after = load(before_dir), load(after_dir)
    common = sorted(set(before) & set(after))
    changes: collections.Counter[tuple[str, str]] = collections.Counter()
    tally_before: collections.Counter[str] = collections.Counter()
    tally_after: collections.Counter[str] = collections.Counter()
    for row_id in common:
        a, b = before[row_id], after[row_id]
        was, now = outcome(a, asked.get(row_id, {})), outcome(b, asked.get(row_id, {}))
        tally_before[was] += 1
        tally_after[now] += 1
        if was != now:
            changes[(was, now)] += 1
            question = asked.get(row_id, {}).get("question", "")[:110]
            how = f"{a.get('decided_by')} {a.get('best_reading')} -> {b.get('decided_by')} {b.get('best_reading')}"
            print(f"{row_id}: {was} -> {now} ({how}) | {question}")
        elif a["answer"] != b["answer"] and now in ("R", "W"):
            print(f"{row_id}: {now} same, wording changed")
    print(len(common), "rows; before", dict(tally_before), "after", dict(tally_after), "changes", dict(changes))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
