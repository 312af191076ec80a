"""How the key-word gate's rise changes with how much is read again (session 5; output:
key-word-rises-variants-14sets.json): all queries or the whole question only, top 4/2/1 sentences."""

import asyncio
import json
import sys
from pathlib import Path

from rag_core.eval.gold import apply_labels, load_gold
from rag_core.eval.harness import token_for
from rag_core.pipeline import build_pipeline
from rag_core.reading.topic import ablation_rise, key_words, without_words
from rag_core.settings import CoreSettings


def rise_whole(scorer, q, words, reading, top):
    ab = without_words(q, words)
    spans = reading.spans[:top]
    if not spans or not ab or ab == " ".join(q.split()):
        return None
    from rag_core.reading.question import expand_abbreviations

    return max(scorer.logits(expand_abbreviations(ab), [s.span.in_context() for s in spans])) - reading.best


async def main(out, specs):
    recs = []
    for spec in specs:
        gold, data, *lab = spec.split(":")
        s = CoreSettings(BENEFITSBOT_DATA_DIR=data, KEY_WORD_ABLATION=True)
        rows = load_gold(Path(gold))
        if lab:
            rows = apply_labels(rows, Path(lab[0]))
        p = build_pipeline(s)
        await p.warm_up()
        kw = next(x for x in p.stages if x.name == "key_word")
        for r in rows:
            st = await p.run_until("topic", r.question, token_for(s, r), as_of=r.as_of)
            if st.finished or st.reading is None:
                continue
            counts = kw.corpus.corrector_for(st.require_access()).stem_counts()
            words = key_words(st.question, counts, exclude=st.unknown_words, k=2)
            if not words:
                continue
            rec = {"set": Path(gold).stem, "id": r.id, "expect": r.expect, "best": st.reading.best}
            for name, fn, top in [
                ("all4", ablation_rise, 4),
                ("all2", ablation_rise, 2),
                ("all1", ablation_rise, 1),
                ("whole4", rise_whole, 4),
                ("whole2", rise_whole, 2),
                ("whole1", rise_whole, 1),
            ]:
                rec[name] = fn(kw.scorer, st.question, words, st.reading, top)
            recs.append(rec)
        await p.aclose()
    Path(out).write_text(json.dumps(recs, indent=0), encoding="utf-8")


asyncio.run(main(sys.argv[1], sys.argv[2:]))
