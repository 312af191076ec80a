from __future__ import annotations

import argparse
from pathlib import Path


def _run_eval(args: argparse.Namespace) -> int:
    from rag_core.eval.harness import cmd_eval  # imported on use: it pulls in matplotlib

    return cmd_eval(args)


def add_eval_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    ev = sub.add_parser("eval", help="evaluate on a gold JSONL set")
    ev.add_argument("gold", type=Path)
    ev.add_argument("--corpus", type=Path, help="ingest this folder first (incremental)")
    ev.add_argument("--data-dir", type=Path)
    ev.add_argument("--k", type=int, default=5, help="the k of the headline hit@k line")
    ev.add_argument("--json", action="store_true", help="print the metrics as one JSON object")
    ev.add_argument("--details", type=Path, help="write one JSON line per row to this file")
    ev.add_argument(
        "--labels",
        type=Path,
        help="JSONL of {id, must_include} merged into the gold rows (answer labels kept apart "
        "from a third-party question set)",
    )
    ev.add_argument("--calibrate", action="store_true", help="sweep the similarity cutoff and plot the curve")
    ev.add_argument(
        "--signal",
        choices=["similarity", "reader"],
        default="similarity",
        help="what --calibrate sweeps: the dense cosine gate or the reader's answerability gate",
    )
    ev.add_argument("--plot", type=Path, help="where to save the calibration curve (PNG)")
    ev.add_argument(
        "--reranker", choices=["auto", "none", "late", "cross", "lexical", "cohere"], help="override RERANKER"
    )
    ev.add_argument("--no-progress", action="store_true")
    ev.set_defaults(handler=_run_eval)
