"""Session 10's once-run sets, before / after (one-off; run from the repo root):

    SETS=h31,c31 python3 benchmarks/results/s10/cmp_sealed.py \
        benchmarks/results/s10/once/base benchmarks/results/s10/once/combo2

Each row's outcome by the strict measure (every must_include string in the answer), counted per run,
then the rows whose outcome differs between the first and the last run.
"""

import json
import os
import sys
from collections import Counter

FILES = {
    "h29": "corpus/holdout-chat-29.jsonl",
    "h30": "corpus/holdout-chat-30.jsonl",
    "h31": "corpus/holdout-chat-31.jsonl",
    "c29": "benchmarks/contoso_holdout_24.jsonl",
    "c30": "benchmarks/contoso_holdout_25.jsonl",
    "c31": "benchmarks/contoso_holdout_26.jsonl",
}


def squash(text: str) -> str:
    return text.replace(" ", "").lower()


def outcome(record: dict, row: dict) -> str:
    if row["expect"] == "abstain":
        return "abstained" if record["abstained"] else "answered"
    if record["abstained"]:
        return "abstained"
    return "right" if all(squash(m) in squash(record["answer"]) for m in row["must_include"]) else "wrong"


def main() -> None:
    runs = sys.argv[1:]
    for name in os.environ.get("SETS", "h29,c29").split(","):
        with open(FILES[name], encoding="utf-8") as handle:
            rows = {r["id"]: r for r in map(json.loads, handle)}
        results = {}
        for run in runs:
            with open(f"{run}/{name}.details", encoding="utf-8") as handle:
                records = [json.loads(line) for line in handle]
            results[run] = {r["id"]: (rows[r["id"]]["category"], outcome(r, rows[r["id"]])) for r in records}
            print(name, run, sorted(Counter(results[run].values()).items()))
        first, last = results[runs[0]], results[runs[-1]]
        for row_id in rows:
            if first[row_id] != last[row_id]:
                print("  ", row_id, first[row_id], "->", last[row_id][1])


if __name__ == "__main__":
    main()
