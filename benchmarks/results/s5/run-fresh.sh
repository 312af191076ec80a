#!/bin/bash
# usage: run_fresh.sh OUTDIR — the session-5 sealed sets (all run once already) on the cwd's code
export HF_HUB_OFFLINE=1 BENEFITSBOT_TODAY=2026-11-30
B="env PYTHONPATH=$PWD /work/main/.venv/bin/python -m bot.cli"
O=$1; mkdir -p $O; D=/tmp/final4
for f in holdout-chat-6 holdout-chat-7 holdout-chat-8 holdout-chat-9 holdout-chat-10 holdout-chat-11 holdout-chat-12; do $B eval corpus/$f.jsonl --data-dir $D/bb --json --no-progress --details $O/$f.details > $O/$f.json 2>$O/$f.err; done
for n in _3 _4 _5 _6 _7; do m=contoso-holdout${n//_/-}; $B eval benchmarks/contoso_holdout$n.jsonl --data-dir $D/contoso --json --no-progress --details $O/$m.details > $O/$m.json 2>$O/$m.err; done
