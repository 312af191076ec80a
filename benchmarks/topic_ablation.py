"""Topic gate after the reader (a benchmark, not a test): for each question with a word no visible
document contains, how much the best read sentence rises when that word is taken out of the
question (``rag_core.reading.topic``), next to whether the row must abstain.

    # 1. run the real pipeline up to the reader's gate with the topic left to the reader
    .venv/bin/python benchmarks/topic_ablation.py collect corpus/chat-dev.jsonl /tmp/bb /tmp/t/chat.json
    # 2. per margin: must-abstain rows still blocked, answerable rows let through; and, pooled over
    #    the files, how high the rows the ablation blocks read (the TOPIC_STRONG_READING choice)
    .venv/bin/python benchmarks/topic_ablation.py report /tmp/t/gold.json /tmp/t/chat.json

Rows the dense cutoff or the reader's own gate already stop are listed but need no topic decision.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
from pathlib import Path
from typing import Any

from rag_core.eval.gold import load_gold
from rag_core.eval.harness import token_for
from rag_core.models import CrossEncoder
from rag_core.pipeline import build_pipeline
from rag_core.reading.topic import ablation_rise, without_words
from rag_core.settings import DEFAULT_TOPIC_ABLATION_MARGIN, CoreSettings

TOPS = (1, 4, 12)
MARGINS = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)


async def collect(gold: Path, data_dir: Path, out: Path) -> None:
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=str(data_dir), TOPIC_GATE="read", TOPIC_ABLATION_MARGIN=math.inf)  # type: ignore[call-arg]
    pipeline = build_pipeline(settings)
    scorer = CrossEncoder.shared(max_length=128)
    records: list[dict[str, Any]] = []
    try:
        for row in load_gold(gold):
            state = await pipeline.run_until("answerable", row.question, token_for(settings, row), as_of=row.as_of)
            record: dict[str, Any] = {
                "id": row.id,
                "expect": row.expect,
                "unknown": state.unknown_words,
                "stopped_by": state.decided_by if state.finished else None,
                "dense_best": round(state.best_similarity, 4),
            }
            if state.unknown_words and not state.finished and state.reading is not None:
                record["ablated"] = without_words(row.question, state.unknown_words)
                record["best"] = round(state.reading.best, 3)
                for top in TOPS:
                    rise = ablation_rise(scorer, row.question, state.unknown_words, state.reading, top)
                    record[f"rise@{top}"] = None if rise is None else round(rise, 3)
            records.append(record)
    finally:
        await pipeline.aclose()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"gold": str(gold), "rows": records}, indent=1), encoding="utf-8")


def report(paths: list[Path]) -> None:
    pooled: list[dict[str, Any]] = []
    for path in paths:
        rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
        decided = [r for r in rows if "rise@1" in r]
        pooled.extend(decided)
        print(
            f"\n{path.name}: {len(rows)} rows, {sum(bool(r['unknown']) for r in rows)} with unknown words, "
            f"{len(decided)} reach the topic decision"
        )
        for r in decided:
            rises = " ".join(f"{r[f'rise@{t}']}" for t in TOPS)
            print(f"  {r['id']:8} {r['expect']:9} best {r['best']:6} rise@{TOPS} {rises:22} {r['unknown']}")
        for top in TOPS:
            cells = []
            for margin in MARGINS:
                blocked = [r for r in decided if r[f"rise@{top}"] is None or r[f"rise@{top}"] > margin]
                must = sum(r["expect"] != "answer" for r in blocked)
                passed = sum(r["expect"] == "answer" for r in decided if r not in blocked)
                cells.append(
                    f"{margin}: abstain-rows blocked {must}/{sum(r['expect'] != 'answer' for r in decided)}"
                    f", answerable passed {passed}/{sum(r['expect'] == 'answer' for r in decided)}"
                )
            print(f"  top {top}:\n    " + "\n    ".join(cells))
    strong_reading_summary(pooled)


def strong_reading_summary(rows: list[dict[str, Any]], top: int = 4) -> None:
    """Of the rows the shipped ablation blocks (any rise, the gate's top 4), how high the must-abstain
    ones read, and which answerable ones read above all of them: what a strong-reading pass
    (``TOPIC_STRONG_READING``) may let through."""
    blocked = [r for r in rows if r[f"rise@{top}"] is None or r[f"rise@{top}"] > DEFAULT_TOPIC_ABLATION_MARGIN]
    must = [r["best"] for r in blocked if r["expect"] != "answer"]
    answerable = sorted((r["best"] for r in blocked if r["expect"] == "answer"), reverse=True)
    highest = max(must, default=float("-inf"))
    above = [best for best in answerable if best > highest]
    print(
        f"\npooled, blocked by the ablation: {len(must)} must-abstain rows, best read at most {highest}; "
        f"{len(answerable)} answerable rows, {len(above)} of them above that"
        + (f" ({min(above)} to {max(above)})" if above else "")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("gold", type=Path)
    c.add_argument("data_dir", type=Path)
    c.add_argument("out", type=Path)
    r = sub.add_parser("report")
    r.add_argument("files", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "collect":
        asyncio.run(collect(args.gold, args.data_dir, args.out))
    else:
        report(args.files)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
