"""Session 10's once-run sets, before/after (one-off; run from the repo root):
    SETS=h31,c31 python3 benchmarks/results/s10/cmp_sealed.py benchmarks/results/s10/once/base benchmarks/results/s10/once/combo2
Each row's outcome by the strict measure (every must_include string in the answer)."""
import json,sys
from pathlib import Path
import os
FILES={'h29':'corpus/holdout-chat-29.jsonl','h30':'corpus/holdout-chat-30.jsonl','h31':'corpus/holdout-chat-31.jsonl',
       'c29':'benchmarks/contoso_holdout_24.jsonl','c30':'benchmarks/contoso_holdout_25.jsonl','c31':'benchmarks/contoso_holdout_26.jsonl'}
sets={k:FILES[k] for k in os.environ.get('SETS','h29,c29').split(',')}
def sq(t): return t.replace(' ','').lower()
for name,path in sets.items():
    rows={json.loads(l)['id']:json.loads(l) for l in open(path)}
    res={}
    for run in sys.argv[1:]:
        out={}
        for l in open(f'{run}/{name}.details'):
            d=json.loads(l); r=rows[d['id']]
            if r['expect']=='abstain': o='abstained' if d['abstained'] else 'answered'
            elif d['abstained']: o='abstained'
            else: o='right' if all(sq(m) in sq(d['answer']) for m in r['must_include']) else 'wrong'
            out[d['id']]=(r['category'],o)
        res[run]=out
        from collections import Counter
        print(name, run, sorted(Counter(out.values()).items()))
    a,b=sys.argv[1],sys.argv[-1]
    for i in rows:
        if res[a][i]!=res[b][i]: print('  ',i,res[a][i],'->',res[b][i][1])
