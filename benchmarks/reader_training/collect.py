"""Step 1 (project venv): every row of the given sets through the real pipeline; per row, the
reader's questions and every sentence of the context as the reader frames it, labelled 1 when it
holds every ``must_include`` string of the row.

    PYTHONPATH=. .venv/bin/python benchmarks/reader_training/collect.py --data-dir DATA --out R.jsonl SET...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from pathlib import Path

from rag_core.eval.gold import load_gold
from rag_core.eval.harness import token_for
from rag_core.pipeline import build_pipeline
from rag_core.reading.question import reader_queries
from rag_core.reading.spans import spans_of
from rag_core.settings import CoreSettings


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


async def collect(data_dir: Path, out: Path, sets: list[Path]) -> None:
    settings = CoreSettings(data_dir=data_dir)
    pipeline = build_pipeline(settings)
    with out.open("w", encoding="utf-8") as sink:
        for path in sets:
            for row in load_gold(path):
                _, state = await pipeline.answer_traced(row.question, token_for(settings, row), as_of=row.as_of)
                if not state.context:
                    continue
                must = [squeezed(m) for m in row.must_include]
                record = {
                    "set": path.stem,
                    "id": row.id,
                    "category": row.category,
                    "expect": row.expect,
                    "language": state.language,
                    "queries": reader_queries(row.question),
                    "corrected": state.spelling_fixed,
                    "read": [rs.span.for_reader() for rs in state.reading.spans] if state.reading else [],
                    "spans": [
                        {
                            "text": span.for_reader(),
                            "label": int(bool(must) and all(m in squeezed(span.text) for m in must)),
                        }
                        for span in spans_of(state.context)
                    ],
                }
                sink.write(json.dumps(record) + "\n")
    await pipeline.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("sets", type=Path, nargs="+")
    args = parser.parse_args()
    asyncio.run(collect(args.data_dir, args.out, args.sets))


if __name__ == "__main__":
    main()
