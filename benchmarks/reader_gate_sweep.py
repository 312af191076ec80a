"""The answer path with the reader's own cutoff swept (a benchmark, not a test).

``collect`` runs every row of the given sets through the REAL pipeline with ``READER_MIN_SCORE``
lowered out of the way, and records the best read logit, which stage decided and whether the answer
holds the row's ``must_include`` strings. Every other gate (dense cutoff, topic, precedence) decides
independently of the reader cutoff, so ``report`` can tell, for any cutoff T, what the pipeline would
answer: the recorded outcome, or an abstention where the best logit is under T.

    .venv/bin/python benchmarks/reader_gate_sweep.py collect OUT.json \\
        corpus/gold.jsonl:/tmp/bb corpus/chat-dev.jsonl:/tmp/bb \\
        ../shared/benchmarks/contoso/ground_truth.jsonl:/tmp/contoso:benchmarks/contoso_answers.jsonl
    .venv/bin/python benchmarks/reader_gate_sweep.py report OUT.json [--cutoffs 0,1,2,2.75,4]

Rows are pooled per kind: formal answerable (every answerable category but chat), chat answerable,
and must-abstain (any set, any category).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

from eval_sets import collect_report_cli, set_runs, write_records
from tqdm import tqdm

from rag_core.eval.harness import score_row, token_for

GATE_OFF = -100.0


async def collect(out: Path, specs: list[str]) -> None:
    records: list[dict[str, Any]] = []
    async for run in set_runs(specs, READER_MIN_SCORE=GATE_OFF):
        manifest = await run.pipeline.corpus.manifest()
        files = {doc_id: record.meta.file for doc_id, record in manifest.documents.items()}
        docs = {doc_id: record.meta for doc_id, record in manifest.documents.items()}
        today = run.settings.today or date.today()
        for row in tqdm(run.rows, desc=run.gold.stem, leave=False, disable=not sys.stderr.isatty()):
            token = token_for(run.settings, row)
            answer, state = await run.pipeline.answer_traced(row.question, token, as_of=row.as_of)
            scored = score_row(row, answer, files, docs, today)  # what `benefitsbot eval` scores
            read = state.reading is not None and bool(state.reading.spans)
            records.append(
                {
                    "set": run.gold.stem,
                    "id": row.id,
                    "category": row.category,
                    "expect": row.expect,
                    "labelled": bool(row.must_include),
                    "abstained": answer.abstained,
                    "decided_by": state.decided_by,
                    "best": state.reading.best if read and state.reading is not None else None,
                    "second": (
                        state.reading.spans[1].score
                        if read and state.reading is not None and len(state.reading.spans) > 1
                        else None
                    ),
                    "unknown": list(state.unknown_words),
                    # every must_include string shown (the eval's strict measure)
                    "correct": not answer.abstained and bool(row.must_include) and scored.includes_all(),
                }
            )
    write_records(out, records)


def kind(record: dict[str, Any]) -> str | None:
    if record["expect"] == "answer":
        if not record["labelled"]:
            return None  # nothing to score an answer against
        return "chat" if record["category"] == "chat" else "formal"
    return "must-abstain" if record["expect"] == "abstain" else None


def report(path: Path, cutoffs: list[float]) -> None:
    records = json.loads(path.read_text(encoding="utf-8"))
    print(f"{path.name}: {len(records)} rows")
    for cutoff in cutoffs:
        tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # rows, answered, correct
        for record in records:
            group = kind(record)
            if group is None:
                continue
            answered = not record["abstained"] and (record["best"] is None or record["best"] >= cutoff)
            tally[group][0] += 1
            tally[group][1] += answered
            tally[group][2] += answered and record["correct"]
        cells = []
        for group in ("formal", "chat"):
            rows, answered, correct = tally[group]
            if not rows:
                continue  # a set without rows of this kind (holdout has no chat rows)
            cells.append(
                f"{group} answered {answered / rows:.2f} ({answered}/{rows}), correct of answered "
                f"{(correct / answered if answered else 0):.2f}"
            )
        rows, answered, _ = tally["must-abstain"]
        cells.append(f"must-abstain answered {answered}/{rows}")
        print(f"  cutoff {cutoff:5.2f}: " + " | ".join(cells))


def main() -> None:
    collect_report_cli(
        __doc__,
        collect,
        lambda args: report(args.path, [float(x) for x in args.cutoffs.split(",")]),
        lambda parser: parser.add_argument("--cutoffs", default="0,1,2,2.75,3.5,4,5"),
    )


if __name__ == "__main__":
    main()
