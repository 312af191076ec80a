#!/bin/bash
# usage: run_sets.sh OUTDIR  (runs from cwd's code)
export HF_HUB_OFFLINE=1 BENEFITSBOT_TODAY=2026-11-30
B="env PYTHONPATH=$PWD /work/main/.venv/bin/python -m bot.cli"
O=$1; mkdir -p $O
D=/tmp/final4
C=/work/shared/benchmarks/contoso
for f in gold holdout chat-dev holdout-chat holdout-chat-2 holdout-chat-3 holdout-chat-4 holdout-chat-5; do $B eval corpus/$f.jsonl --data-dir $D/bb --json --no-progress --details $O/$f.details > $O/$f.json 2>$O/$f.err; done
$B eval $C/ground_truth.jsonl --data-dir $D/contoso --labels benchmarks/contoso_answers.jsonl --json --no-progress --details $O/contoso.details > $O/contoso.json 2>$O/contoso.err
$B eval benchmarks/contoso_holdout.jsonl --data-dir $D/contoso --json --no-progress --details $O/contoso-holdout.details > $O/contoso-holdout.json 2>$O/contoso-holdout.err
$B eval benchmarks/contoso_holdout_2.jsonl --data-dir $D/contoso --json --no-progress --details $O/contoso-holdout-2.details > $O/contoso-holdout-2.json 2>$O/contoso-holdout-2.err
touch $O/DONE
