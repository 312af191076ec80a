"""Derive the unknown-word cutoff for the configured embedding model (a benchmark, not a test).

    .venv/bin/python benchmarks/unknown_word_cutoff.py corpus/gold.jsonl /tmp/bb --check corpus/holdout.jsonl

Lists every row whose question has a word no searchable document contains (what the topic gate
stops) with its best dense cosine, then proposes the cutoff the way the shipped value was set:
just above (+0.01, rounded up to 0.01) the best match of every *unanswerable* row of the tuning set
with such a word, so no such row gets through. The --check set is reported against that value, not
tuned on.
"""

from __future__ import annotations

import argparse
import asyncio
import math
from pathlib import Path

from rag_core.eval.gold import GoldRow, load_gold
from rag_core.eval.harness import token_for
from rag_core.pipeline import Pipeline, build_pipeline
from rag_core.settings import CoreSettings


async def gated_rows(pipeline: Pipeline, rows: list[GoldRow]) -> list[tuple[GoldRow, list[str], float]]:
    """Rows with a word no searchable document contains, with their best dense cosine."""
    out = []
    for row in rows:
        state = await pipeline.run_until("retrieve", row.question, token_for(pipeline.settings, row), as_of=row.as_of)
        if state.unknown_words:
            out.append((row, list(state.unknown_words), state.best_similarity))
    return out


def show(title: str, rows: list[tuple[GoldRow, list[str], float]], cutoff: float | None) -> None:
    print(f"\n{title}")
    for row, unknown, best in sorted(rows, key=lambda item: -item[2]):
        verdict = "" if cutoff is None else ("passes" if best >= cutoff else "blocked")
        print(f"  {row.id:8} {row.expect:8} {best:.3f} {verdict:8} {','.join(unknown):24} {row.question}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("gold", type=Path)
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--check", type=Path, help="a held-out gold set reported against the derived cutoff")
    args = parser.parse_args()
    pipeline = build_pipeline(CoreSettings(BENEFITSBOT_DATA_DIR=str(args.data_dir)))
    try:
        tuned = await gated_rows(pipeline, load_gold(args.gold))
        worst = max((best for row, _, best in tuned if row.expect != "answer"), default=0.0)
        cutoff = math.ceil((worst + 0.01) * 100) / 100
        print(
            f"model {pipeline.corpus.model_name}: best unanswerable match with an unknown word {worst:.3f} "
            f"-> cutoff {cutoff:.2f}"
        )
        show(f"{args.gold} (tuned on)", tuned, cutoff)
        if args.check:
            show(f"{args.check} (held out)", await gated_rows(pipeline, load_gold(args.check)), cutoff)
    finally:
        await pipeline.aclose()


if __name__ == "__main__":
    asyncio.run(main())
