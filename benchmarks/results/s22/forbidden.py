"""Where an answer shows a `must_not_include` figure: in the same quoted span as the asked figure
(a table row or sentence holding both), or in another quoted span beside the answer.

usage: python benchmarks/results/s22/forbidden.py SET.jsonl RUN.details
"""

from __future__ import annotations

import json
import re
import sys


def squash(text: str) -> str:
    return text.lower().replace(" ", "")


def main(set_path: str, details_path: str) -> None:
    with open(set_path, encoding="utf-8") as handle:
        rows = {row["id"]: row for row in map(json.loads, handle)}
    same, apart = 0, []
    with open(details_path, encoding="utf-8") as handle:
        for record in map(json.loads, handle):
            row = rows[record["id"]]
            if record["abstained"] or row["expect"] != "answer":
                continue
            spans = [s for s in re.split(r"\[\^[^\]]+\]", record["answer"]) if s.strip()]
            for figure in row.get("must_not_include", []):
                holding = [s for s in spans if figure.lower() in s.lower()]
                if not holding:
                    continue
                if any(squash(m) in squash(s) for s in holding for m in row["must_include"]):
                    same += 1
                else:
                    apart.append(record["id"])
    print(f"forbidden shown: {same} beside the asked figure in the same span, {len(apart)} in another span {apart}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
