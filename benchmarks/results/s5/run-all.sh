#!/bin/bash
# usage: run_all.sh OUTDIR  — every tuning set (14) on the cwd's code; extra env passes through
export HF_HUB_OFFLINE=1 BENEFITSBOT_TODAY=2026-11-30
B="env PYTHONPATH=$PWD /work/main/.venv/bin/python -m bot.cli"
O=$1; mkdir -p $O
D=/tmp/final4
C=/work/shared/benchmarks/contoso
for f in gold holdout chat-dev holdout-chat holdout-chat-2 holdout-chat-3 holdout-chat-4 holdout-chat-5 holdout-chat-6 holdout-chat-7 holdout-chat-8 holdout-chat-9 holdout-chat-10 holdout-chat-11 holdout-chat-12 holdout-chat-13; do $B eval corpus/$f.jsonl --data-dir $D/bb --json --no-progress --details $O/$f.details > $O/$f.json 2>$O/$f.err; done
$B eval $C/ground_truth.jsonl --data-dir $D/contoso --labels benchmarks/contoso_answers.jsonl --json --no-progress --details $O/contoso.details > $O/contoso.json 2>$O/contoso.err
for n in "" _2 _3 _4 _5 _6 _7 _8; do m=contoso-holdout${n//_/-}; $B eval benchmarks/contoso_holdout$n.jsonl --data-dir $D/contoso --json --no-progress --details $O/$m.details > $O/$m.json 2>$O/$m.err; done
touch $O/DONE
