#!/bin/bash
# usage: bash benchmarks/results/s7/run-all.sh OUTDIR   (from the repo root) — every set (36) on the
# checked-out code, one `benefitsbot eval … --json --details` each; extra env passes through.
# D: data dirs ingested with the default (`benefitsbot ingest corpus --data-dir $D/bb`, and the
# Contoso docs into $D/contoso); C: the Contoso benchmark (never copied into the repo).
export HF_HUB_OFFLINE=1 BENEFITSBOT_TODAY=2026-11-30
B="env PYTHONPATH=$PWD /work/main/.venv/bin/python -m bot.cli"
O=$1; mkdir -p $O
D=${D:-/tmp/final4}
C=${C:-/work/shared/benchmarks/contoso}
for f in gold holdout chat-dev holdout-chat holdout-chat-{2..18}; do
  $B eval corpus/$f.jsonl --data-dir $D/bb --json --no-progress --details $O/$f.details > $O/$f.json 2>$O/$f.err
done
$B eval $C/ground_truth.jsonl --data-dir $D/contoso --labels benchmarks/contoso_answers.jsonl --json --no-progress \
  --details $O/contoso.details > $O/contoso.json 2>$O/contoso.err
for n in "" _{2..14}; do
  m=contoso-holdout${n//_/-}
  $B eval benchmarks/contoso_holdout$n.jsonl --data-dir $D/contoso --json --no-progress --details $O/$m.details > $O/$m.json 2>$O/$m.err
done
touch $O/DONE
