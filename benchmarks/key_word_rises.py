"""The key-word gate's rise for every row that reaches it (a benchmark, not a test).

``collect`` runs each row of the given sets through the REAL pipeline up to the ``topic`` stage; for
a row the reader is about to answer it records what ``KeyWordGate`` computes: the question's 2 most
specific documented words and how much the best read sentences rise once they are taken out.
``report`` prints, per margin, how many must-abstain and answerable rows the gate would stop, and
the rows with the highest rises.

    .venv/bin/python benchmarks/key_word_rises.py collect OUT.json corpus/gold.jsonl:/tmp/bb \\
        ../shared/benchmarks/contoso/ground_truth.jsonl:/tmp/contoso:benchmarks/contoso_answers.jsonl
    .venv/bin/python benchmarks/key_word_rises.py report OUT.json
With ``collect``, each row also gets the rise re-read over the best 1, 2 and 4 sentences
(``TOPS``): how the gate's ``top`` was chosen (report: "by top").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eval_sets import collect_report_cli, set_runs, write_records

from rag_core.eval.harness import token_for
from rag_core.pipeline.read import KeyWordGate
from rag_core.reading.topic import ablation_rise, key_words

MARGINS = (2.0, 2.5, 2.6, 2.7, 2.75, 2.8, 3.0)
TOPS = (1, 2, 4)


async def collect(out: Path, specs: list[str]) -> None:
    records: list[dict[str, Any]] = []
    async for run in set_runs(specs, KEY_WORD_ABLATION=True):
        gate = next(stage for stage in run.pipeline.stages if isinstance(stage, KeyWordGate))
        for row in run.rows:
            token = token_for(run.settings, row)
            state = await run.pipeline.run_until("topic", row.question, token, as_of=row.as_of)
            if state.finished or state.reading is None:
                continue
            counts = gate.corpus.corrector_for(state.require_access()).stem_counts()
            words = key_words(state.question, counts, exclude=state.unknown_words, k=gate.k)
            rises = {
                top: ablation_rise(gate.scorer, state.question, words, state.reading, top) if words else None
                for top in TOPS
            }
            records.append(
                {
                    "set": run.gold.stem,
                    "id": row.id,
                    "expect": row.expect,
                    "words": words,
                    "rise": rises[gate.top],
                    "rises": rises,
                    "best": state.reading.best,
                }
            )
    write_records(out, records)


def report(path: Path) -> None:
    records = [r for r in json.loads(path.read_text(encoding="utf-8")) if r["rise"] is not None]
    print(f"{path.name}: {len(records)} rows reach the gate with key words")
    for margin in MARGINS:
        stopped = [r for r in records if r["rise"] > margin]
        must = sum(r["expect"] == "abstain" for r in stopped)
        print(f"  margin {margin:4.2f}: stops {must} must-abstain and {len(stopped) - must} answerable rows")
    print("by top (sentences re-read): highest must-abstain rises | highest answerable rise")
    for top in TOPS:
        rises = [(r["rises"][str(top)], r) for r in records if r.get("rises", {}).get(str(top)) is not None]
        must = sorted((x for x, r in rises if r["expect"] == "abstain"), reverse=True)[:3]
        answer = max((x for x, r in rises if r["expect"] == "answer"), default=None)
        print(f"  top {top}: {[round(x, 2) for x in must]} | {answer if answer is None else round(answer, 2)}")
    print("highest rises:")
    for r in sorted(records, key=lambda r: -r["rise"])[:12]:
        print(f"  {r['rise']:5.2f} {r['expect']:8} {r['set']}:{r['id']} best {r['best']:.2f} words {r['words']}")


def main() -> None:
    collect_report_cli(__doc__, collect, lambda args: report(args.path))


if __name__ == "__main__":
    main()
