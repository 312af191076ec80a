cd /work/main
export HF_HUB_OFFLINE=1 BENEFITSBOT_TODAY=2026-11-30
B=".venv/bin/benefitsbot"
O=/tmp/final4; mkdir -p $O
C=/work/shared/benchmarks/contoso
uptime > $O/uptime-start.txt
( time $B ingest corpus --data-dir $O/bb --json --no-progress ) > $O/ingest-bb.json 2> $O/ingest-bb.err
( time $B ingest $C/docs --data-dir $O/contoso --json --no-progress ) > $O/ingest-contoso.json 2> $O/ingest-contoso.err
uptime >> $O/uptime-start.txt
for f in gold holdout chat-dev holdout-chat holdout-chat-2; do $B eval corpus/$f.jsonl --data-dir $O/bb --json --no-progress --details $O/$f.details > $O/$f.json 2>$O/$f.err; done
$B eval $C/ground_truth.jsonl --data-dir $O/contoso --labels benchmarks/contoso_answers.jsonl --json --no-progress --details $O/contoso.details > $O/contoso.json 2>$O/contoso.err
$B eval benchmarks/contoso_holdout.jsonl --data-dir $O/contoso --json --no-progress --details $O/contoso-holdout.details > $O/contoso-holdout.json 2>$O/contoso-holdout.err
uptime > $O/uptime-heldout.txt
# sealed, run once
$B eval corpus/holdout-chat-3.jsonl --data-dir $O/bb --json --no-progress --details $O/holdout-chat-3.details > $O/holdout-chat-3.json 2>$O/holdout-chat-3.err
$B eval benchmarks/contoso_holdout_2.jsonl --data-dir $O/contoso --json --no-progress --details $O/contoso-holdout-2.details > $O/contoso-holdout-2.json 2>$O/contoso-holdout-2.err
uptime > $O/uptime-end.txt
touch $O/DONE
