"""Run a snippet under several string-hash seeds: Python randomises the order sets of strings iterate
in per process, so a result that must not depend on that order is checked across processes."""

from __future__ import annotations

import os
import subprocess
import sys

SEEDS = range(8)


def outputs_across_hash_seeds(script: str) -> set[str]:
    """The distinct standard outputs of ``python -c script`` under each of the seeds."""
    return {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in SEEDS
    }
