#!/bin/bash
# usage: bash benchmarks/run_all_sets.sh OUTDIR   (from the repo root) — every eval set on the checked-out
# code, one `benefitsbot eval … --json --details` each; extra env passes through to the core's settings.
# D: data dirs ingested with the default (`benefitsbot ingest corpus --data-dir $D/bb`, and the
# Contoso docs into $D/contoso); C: the Contoso benchmark (never copied into the repo).
# FABRIKAM_LAST / CONTOSO_LAST: the last held-out set of each corpus to run (a session's set list);
# TERSE_LAST: the last terse set of each corpus (two-to-eight-word questions; benchmarks/README.md "Reading, session 17").
# $D/tailspin: the third corpus (benchmarks/tailspin/README.md), ingested with its trusted link hosts.
# Contoso's sets run with Contoso's own e-mail domains trusted (benchmarks/contoso-trusted-link-hosts.txt,
# since session 28: before, its e-mail addresses were shown as "[link removed]"; benchmarks/README.md "Session 28").
CH=$(cat benchmarks/contoso-trusted-link-hosts.txt)
export HF_HUB_OFFLINE=1 BENEFITSBOT_TODAY=2026-11-30
B="env PYTHONPATH=$PWD /work/main/.venv/bin/python -m bot.cli"
O=$1; mkdir -p $O
D=${D:-/tmp/final4}
C=${C:-/work/shared/benchmarks/contoso}
for f in gold holdout chat-dev holdout-chat $(seq -f "holdout-chat-%g" 2 "${FABRIKAM_LAST:-76}") \
  $(seq -f "terse-%g" 1 "${TERSE_LAST:-2}"); do
  [ -f corpus/$f.jsonl ] || continue  # FABRIKAM_LAST past the last set sealed: skipped, not an error
  $B eval corpus/$f.jsonl --data-dir $D/bb --json --no-progress --details $O/$f.details > $O/$f.json 2>$O/$f.err
done
TRUSTED_LINK_HOSTS=$CH $B eval $C/ground_truth.jsonl --data-dir $D/contoso --labels benchmarks/contoso_answers.jsonl --json --no-progress \
  --details $O/contoso.details > $O/contoso.json 2>$O/contoso.err
for n in "" $(seq -f "_%g" 2 "${CONTOSO_LAST:-66}"); do
  m=contoso-holdout${n//_/-}
  TRUSTED_LINK_HOSTS=$CH $B eval benchmarks/contoso_holdout$n.jsonl --data-dir $D/contoso --json --no-progress --details $O/$m.details > $O/$m.json 2>$O/$m.err
done
for n in $(seq 1 "${TERSE_LAST:-2}"); do
  TRUSTED_LINK_HOSTS=$CH $B eval benchmarks/contoso_terse_$n.jsonl --data-dir $D/contoso --json --no-progress --details $O/contoso-terse-$n.details \
    > $O/contoso-terse-$n.json 2>$O/contoso-terse-$n.err
done
for f in benchmarks/tailspin/tailspin-*.jsonl; do m=$(basename $f .jsonl)
  TRUSTED_LINK_HOSTS=$(cat benchmarks/tailspin/trusted-link-hosts.txt) $B eval $f --data-dir $D/tailspin --json --no-progress \
    --details $O/$m.details > $O/$m.json 2>$O/$m.err
done
# The self-only tier phrases ("just me", "only me"…) on each corpus (benchmarks/README.md "Session 23").
for f in benchmarks/tier_phrases/*.jsonl; do m=tier-$(basename $f .jsonl) H=
  case $m in
    tier-fabrikam-*) R=bb;;
    tier-contoso-*) R=contoso H=$CH;;
    tier-tailspin-*) R=tailspin H=$(cat benchmarks/tailspin/trusted-link-hosts.txt);;
  esac
  TRUSTED_LINK_HOSTS=$H $B eval $f --data-dir $D/$R --json --no-progress --details $O/$m.details > $O/$m.json 2>$O/$m.err
done
touch $O/DONE
