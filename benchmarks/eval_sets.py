"""What the pipeline-sweep benchmarks share (reader_gate_sweep.py, key_word_rises.py): eval sets named
as ``GOLD.jsonl:DATA_DIR[:LABELS.jsonl]`` and a ``collect OUT SPEC...`` / ``report PATH`` command line.
Run the scripts from the repo root (``.venv/bin/python benchmarks/<script>.py``): this module is
imported as their sibling."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from rag_core.eval.gold import GoldRow, apply_labels, load_gold


def load_spec(spec: str) -> tuple[Path, Path, list[GoldRow]]:
    """``GOLD.jsonl:DATA_DIR[:LABELS.jsonl]`` -> the set's path, its data dir and its rows (labelled)."""
    gold, data_dir, *labels = spec.split(":")
    rows = load_gold(Path(gold))
    if labels:
        rows = apply_labels(rows, Path(labels[0]))
    return Path(gold), Path(data_dir), rows


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
