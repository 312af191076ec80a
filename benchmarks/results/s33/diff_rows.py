"""diff.py BASEDIR NEWDIR [rowsdir] — per-row outcome change (strict: every must_include shown)."""
import json, glob, sys, collections, re
Q = {}
for f in glob.glob('/work/main/corpus/*.jsonl') + glob.glob('/work/main/benchmarks/*.jsonl') + glob.glob('/work/main/benchmarks/tailspin/*.jsonl') + glob.glob('/work/sealed-s33/*/set.jsonl'):
    for l in open(f):
        if l.strip():
            r = json.loads(l)
            if 'id' in r: Q.setdefault(r['id'], r)
def outcome(r):
    q = Q.get(r['id'], {})
    if r['expect'] == 'abstain':
        return 'refused' if r['abstained'] else 'NM-ANSWERED'
    if r['abstained']: return 'A'
    ans = r['answer'].lower()
    ok = all(m.lower() in ans for m in q.get('must_include', r.get('must_include') or []))
    return 'R' if ok else 'W'
def load(d):
    out = {}
    for f in glob.glob(d + '/*.details'):
        for l in open(f):
            r = json.loads(l); out[r['id']] = r
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
common = sorted(set(a) & set(b))
tr = collections.Counter(); ta = collections.Counter(); tb = collections.Counter()
for i in common:
    oa, ob = outcome(a[i]), outcome(b[i]); ta[oa] += 1; tb[ob] += 1
    if oa != ob:
        tr[(oa, ob)] += 1
        print(f"{i}: {oa} -> {ob} ({a[i].get('decided_by')} {a[i].get('best_reading')} -> {b[i].get('decided_by')} {b[i].get('best_reading')}) | {Q.get(i,{}).get('question','')[:110]}")
    elif a[i]['answer'] != b[i]['answer'] and ob in ('R', 'W'):
        print(f"{i}: {oa} same, wording changed")
print(len(common), 'rows; before', dict(ta), 'after', dict(tb), 'changes', dict(tr))
