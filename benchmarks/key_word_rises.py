"""The key-word gate's rise for every row that reaches it (a benchmark, not a test).

``collect`` runs each row of the given sets through the REAL pipeline up to the ``topic`` stage; for
a row the reader is about to answer it records what ``KeyWordGate`` computes: the question's 2 most
specific documented words and how much the best read sentences rise once they are taken out.
``report`` prints, per margin, how many must-abstain and answerable rows the gate would stop, and
the rows with the highest rises.

    .venv/bin/python benchmarks/key_word_rises.py collect OUT.json corpus/gold.jsonl:/tmp/bb \\
        ../shared/benchmarks/contoso/ground_truth.jsonl:/tmp/contoso:benchmarks/contoso_answers.jsonl
    .venv/bin/python benchmarks/key_word_rises.py report OUT.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from rag_core.eval.gold import apply_labels, load_gold
from rag_core.eval.harness import token_for
from rag_core.pipeline import build_pipeline
from rag_core.pipeline.read import KeyWordGate
from rag_core.reading.topic import ablation_rise, key_words
from rag_core.settings import CoreSettings

MARGINS = (2.0, 2.5, 2.6, 2.7, 2.75, 2.8, 3.0)


async def collect(out: Path, specs: list[str]) -> None:
    records: list[dict[str, Any]] = []
    for spec in specs:
        gold, data_dir, *labels = spec.split(":")
        settings = CoreSettings(BENEFITSBOT_DATA_DIR=Path(data_dir), KEY_WORD_ABLATION=True)  # type: ignore[call-arg]
        rows = load_gold(Path(gold))
        if labels:
            rows = apply_labels(rows, Path(labels[0]))
        pipeline = build_pipeline(settings)
        gate = next(stage for stage in pipeline.stages if isinstance(stage, KeyWordGate))
        try:
            for row in rows:
                state = await pipeline.run_until("topic", row.question, token_for(settings, row), as_of=row.as_of)
                if state.finished or state.reading is None:
                    continue
                counts = gate.corpus.corrector_for(state.require_access()).stem_counts()
                words = key_words(state.question, counts, exclude=state.unknown_words, k=gate.k)
                rise = ablation_rise(gate.scorer, state.question, words, state.reading, gate.top) if words else None
                records.append(
                    {
                        "set": Path(gold).stem,
                        "id": row.id,
                        "expect": row.expect,
                        "words": words,
                        "rise": rise,
                        "best": state.reading.best,
                    }
                )
        finally:
            await pipeline.aclose()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(records, indent=0), encoding="utf-8")


def report(path: Path) -> None:
    records = [r for r in json.loads(path.read_text(encoding="utf-8")) if r["rise"] is not None]
    print(f"{path.name}: {len(records)} rows reach the gate with key words")
    for margin in MARGINS:
        stopped = [r for r in records if r["rise"] > margin]
        must = sum(r["expect"] == "abstain" for r in stopped)
        print(f"  margin {margin:4.2f}: stops {must} must-abstain and {len(stopped) - must} answerable rows")
    print("highest rises:")
    for r in sorted(records, key=lambda r: -r["rise"])[:12]:
        print(f"  {r['rise']:5.2f} {r['expect']:8} {r['set']}:{r['id']} best {r['best']:.2f} words {r['words']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("out", type=Path)
    c.add_argument("specs", nargs="+", help="GOLD.jsonl:DATA_DIR[:LABELS.jsonl]")
    r = sub.add_parser("report")
    r.add_argument("path", type=Path)
    args = parser.parse_args()
    if args.command == "collect":
        asyncio.run(collect(args.out, args.specs))
    else:
        report(args.path)


if __name__ == "__main__":
    main()
