"""For each row answered by the benefits reader: ms-marco's logit on the quoted best span, and ms-marco's best over the spans read."""
import asyncio, sys, json, re
from pathlib import Path
from rag_core.settings import CoreSettings
from rag_core.pipeline import build_pipeline
from rag_core.eval.gold import load_gold
from rag_core.eval.harness import token_for
from rag_core.models import CrossEncoder
from rag_core.reading.reader import read_logits
sq=lambda s: re.sub(r'\s+','',s).lower()
async def main(out, specs):
    ms=CrossEncoder.shared(None, max_length=128, workers=None, files=None)
    with open(out,'w') as sink:
        for spec in specs:
            path, dd = spec.split(':')
            s=CoreSettings(BENEFITSBOT_DATA_DIR=dd, READER_WEIGHTS='benefits')
            pipe=build_pipeline(s)
            for row in load_gold(Path(path)):
                a, st = await pipe.answer_traced(row.question, token_for(s,row), as_of=row.as_of)
                if a.abstained or not st.reading or not st.reading.spans: 
                    sink.write(json.dumps({'id':row.id,'expect':row.expect,'cat':row.category,'answered':False})+'\n'); continue
                spans=sorted(st.reading.spans, key=lambda r:-r.score)
                top=spans[0]
                msl=read_logits(ms, row.question, [r.span for r in spans[:3]], corrected=st.spelling_fixed)
                ok = row.expect=='answer' and all(sq(m) in sq(a.answer) for m in row.must_include)
                sink.write(json.dumps({'id':row.id,'expect':row.expect,'cat':row.category,'answered':True,'right':ok,'v2':top.score,'ms_top':msl[0],'ms_best3':max(msl)})+'\n')
            await pipe.aclose()
asyncio.run(main(sys.argv[1], sys.argv[2:]))
