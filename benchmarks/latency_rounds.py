"""Before/after `benefitsbot eval` rounds: per-stage latency medians, and proof the answers did not move.

    .venv/bin/python benchmarks/latency_rounds.py DIR [--stages embed,read,total] [--max-load L] [--json OUT]

DIR holds ``<set>-<side>-<round>.json`` (``eval --json`` output), ``.details.jsonl`` (``--details``)
and ``.load`` (two ``uptime`` lines, before and after the run) files, written by alternating runs
of the two builds on the same data dirs (benchmarks/README.md, "Parallel ONNX inference (session 4)").
Prints one line per run with the 1-minute load average, the median over rounds per set and side,
and whether every quality metric and every per-row detail (latencies left out) is identical
across all runs of a set. ``--max-load L`` keeps only the rounds whose before and after runs both
saw a 1-minute load average of at most L (the quiet moments of a shared machine). Not a test:
latencies depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path
from typing import Any

RUN = re.compile(r"(?P<set>[\w-]+)-(?P<side>before|after)-(?P<round>\d+)\.json$")


def load_averages(path: Path) -> list[float]:
    """The 1-minute load averages in an ``uptime`` log."""
    if not path.exists():
        return []
    return [float(part.split(",")[0]) for part in path.read_text().split("load average:")[1:]]


def details_without_latency(path: Path) -> list[str]:
    rows = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        row.pop("latency_ms", None)
        rows.append(json.dumps(row, sort_keys=True))
    return rows


def runs_in(folder: Path) -> list[dict[str, Any]]:
    runs = []
    for path in sorted(folder.glob("*.json")):
        match = RUN.match(path.name)
        if not match:
            continue
        report = json.loads(path.read_text())
        details = path.with_name(path.name.removesuffix(".json") + ".details.jsonl")
        runs.append(
            {
                "set": match["set"],
                "side": match["side"],
                "round": int(match["round"]),
                "latency_ms": report["latency_ms"],
                "quality": {k: v for k, v in report.items() if not isinstance(v, dict | list)},
                "details": details_without_latency(details) if details.exists() else None,
                "load_1min": load_averages(path.with_suffix(".load")),
            }
        )
    return sorted(runs, key=lambda run: (run["set"], run["round"], run["side"]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--stages", default="embed,read,total")
    parser.add_argument("--json", type=Path, help="also write the summary here")
    parser.add_argument(
        "--max-load", type=float, help="only rounds whose runs (both sides) started and ended at most this busy"
    )
    args = parser.parse_args()
    stages = args.stages.split(",")
    runs = runs_in(args.folder)
    if args.max_load is not None:
        busy = {(run["set"], run["round"]) for run in runs if max(run["load_1min"], default=0) > args.max_load}
        runs = [run for run in runs if (run["set"], run["round"]) not in busy]
    for run in runs:
        figures = "  ".join(
            f"{stage} {run['latency_ms'][stage]['p50']:6.1f}/{run['latency_ms'][stage]['p95']:6.1f}"
            for stage in stages
            if stage in run["latency_ms"]
        )
        print(f"{run['set']:8} r{run['round']:<2} {run['side']:6} p50/p95 ms: {figures}  load {run['load_1min']}")
    summary: dict[str, Any] = {}
    for name in sorted({run["set"] for run in runs}):
        of_set = [run for run in runs if run["set"] == name]
        entry: dict[str, Any] = {
            "runs": len(of_set),
            "quality_identical": all(run["quality"] == of_set[0]["quality"] for run in of_set),
            "details_identical": all(run["details"] == of_set[0]["details"] for run in of_set),
            "quality": of_set[0]["quality"],
        }
        for side in ("before", "after"):
            sided = [run for run in of_set if run["side"] == side]
            entry[side] = {
                "rounds": len(sided),
                "load_1min_median": statistics.median(x for run in sided for x in run["load_1min"]),
                **{
                    stage: {
                        q: round(statistics.median(run["latency_ms"][stage][q] for run in sided), 1)
                        for q in ("p50", "p95")
                    }
                    for stage in stages
                },
            }
        summary[name] = entry
        medians = "  ".join(
            f"{side}: " + ", ".join(f"{s} {entry[side][s]['p50']}/{entry[side][s]['p95']}" for s in stages)
            for side in ("before", "after")
        )
        print(f"{name}: median of {entry['before']['rounds']} rounds (p50/p95 ms) {medians}")
        print(f"{name}: quality identical {entry['quality_identical']}, details identical {entry['details_identical']}")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
