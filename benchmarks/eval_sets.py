"""What the pipeline-sweep benchmarks share (reader_gate_sweep.py, key_word_rises.py): eval sets named
as ``GOLD.jsonl:DATA_DIR[:LABELS.jsonl]``, each run through the real pipeline (``set_runs``), and a
``collect OUT SPEC...`` / ``report PATH`` command line.
Run the scripts from the repo root (``.venv/bin/python benchmarks/<script>.py``): this module is
imported as their sibling."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag_core.eval.gold import GoldRow, apply_labels, load_gold
from rag_core.pipeline import Pipeline, build_pipeline
from rag_core.settings import CoreSettings


def load_spec(spec: str) -> tuple[Path, Path, list[GoldRow]]:
    """``GOLD.jsonl:DATA_DIR[:LABELS.jsonl]`` -> the set's path, its data dir and its rows (labelled)."""
    gold, data_dir, *labels = spec.split(":")
    rows = load_gold(Path(gold))
    if labels:
        rows = apply_labels(rows, Path(labels[0]))
    return Path(gold), Path(data_dir), rows


@dataclass(frozen=True)
class SetRun:
    """One set's rows and the real pipeline built for its data dir with the script's overrides."""

    gold: Path
    rows: list[GoldRow]
    settings: CoreSettings
    pipeline: Pipeline


async def set_runs(specs: list[str], **overrides: Any) -> AsyncIterator[SetRun]:
    """Each spec's set with a warmed-up pipeline (settings ``overrides`` on top of the data dir),
    closed once the caller moves on to the next set."""
    for spec in specs:
        gold, data_dir, rows = load_spec(spec)
        settings = CoreSettings(BENEFITSBOT_DATA_DIR=data_dir, **overrides)  # type: ignore[arg-type]
        pipeline = build_pipeline(settings)
        try:
            await pipeline.warm_up()
            yield SetRun(gold, rows, settings, pipeline)
        finally:
            await pipeline.aclose()


def write_records(out: Path, records: list[dict[str, Any]]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(records, indent=0), encoding="utf-8")


def collect_report_cli(
    doc: str | None,
    collect: Callable[[Path, list[str]], Awaitable[None]],
    report: Callable[[argparse.Namespace], None],
    report_options: Callable[[argparse.ArgumentParser], None] = lambda _: None,
) -> None:
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("out", type=Path)
    c.add_argument("specs", nargs="+", help="GOLD.jsonl:DATA_DIR[:LABELS.jsonl]")
    r = sub.add_parser("report")
    r.add_argument("path", type=Path)
    report_options(r)
    args = parser.parse_args()
    if args.command == "collect":
        asyncio.run(collect(args.out, args.specs))
    else:
        report(args)
