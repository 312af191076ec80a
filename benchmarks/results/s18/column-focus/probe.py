import asyncio, sys, json
from rag_core.settings import CoreSettings
from rag_core.pipeline import build_pipeline
from rag_core.eval.gold import GoldRow
from rag_core.access import mint_token
QS=[l.strip() for l in open(sys.argv[2]) if l.strip()]
async def main():
    for w in ("ms-marco","benefits"):
        s=CoreSettings(BENEFITSBOT_DATA_DIR=sys.argv[1], READER_WEIGHTS=w)
        pipe=build_pipeline(s)
        tok=lambda: mint_token(s.rbac_signing_key.get_secret_value(), subject="p", acl_groups=["employees"], state=None, language=None, ttl_s=600)
        for q in QS:
            st=await pipe.run_until("read", q, tok())
            top=sorted(st.reading.spans, key=lambda r:-r.score)[:2] if st.reading else []
            a=await pipe.answer(q, tok())
            print(f"{w:8} {'ABST' if a.abstained else 'ANS '} {q[:50]!r:54}", " | ".join(f"{r.score:.2f} {r.span.text[:70]!r}" for r in top))
            if not a.abstained: print("          ->", a.answer[:110])
        await pipe.aclose()
asyncio.run(main())
