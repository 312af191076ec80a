#!/bin/bash
# usage: bash benchmarks/results/s6/run-all.sh OUTDIR   (from the repo root) — session 6's 34 sets:
# benchmarks/run_all_sets.sh with that session's set list (held-out sets up to 17 and Contoso's up to 13).
FABRIKAM_LAST=17 CONTOSO_LAST=13 exec bash "$(dirname "$0")/../../run_all_sets.sh" "$@"
