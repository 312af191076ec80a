"""Rerank sweep (a benchmark, not a test): hit@5 and MRR of Qdrant's fused RRF order against the
lexical-dense blend at several weights, on one gold set and an already-ingested data dir.

    .venv/bin/python benchmarks/rerank_sweep.py corpus/gold.jsonl /tmp/bb
    .venv/bin/python benchmarks/rerank_sweep.py ../shared/benchmarks/contoso/ground_truth.jsonl /tmp/contoso

Candidates are retrieved once per question by the answer path itself, run up to its retrieve
stage (the same access filter, spelling correction and candidate count); only the ordering
differs between rows.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from rag_core.eval.gold import chunk_location, load_gold, matches
from rag_core.eval.harness import token_for
from rag_core.pipeline import Pipeline, build_pipeline
from rag_core.rerank import FusedOrder, LexicalDenseReranker, Reranker
from rag_core.settings import CoreSettings
from rag_core.types import Candidate

Retrieved = list[tuple[list[str], str, list[Candidate]]]


async def retrieve_gold(gold: Path, data_dir: Path) -> tuple[Pipeline, dict[str, str], Retrieved]:
    """The fused candidates of every answerable gold row: (reference sources, rewritten query,
    candidates), plus the document-id → file map that matching a source needs."""
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=str(data_dir))
    pipeline = build_pipeline(settings)
    manifest = await pipeline.corpus.manifest()
    files = {doc_id: record.meta.file for doc_id, record in manifest.documents.items()}
    rows = [r for r in load_gold(gold) if r.expect == "answer" and r.sources]
    retrieved: Retrieved = []
    for row in rows:
        state = await pipeline.run_until("retrieve", row.question, token_for(settings, row), as_of=row.as_of)
        retrieved.append((row.sources, state.query, state.candidates))
    return pipeline, files, retrieved


def first_hit(ranked: list[Candidate], sources: list[str], files: dict[str, str]) -> int | None:
    """1-based rank of the first candidate on a reference page (within one page), within the top 10."""
    return next((i for i, c in enumerate(ranked[:10], start=1)
                 if matches(chunk_location(c.chunk_id, files), sources)), None)


async def retrieve_from_argv() -> tuple[Pipeline, dict[str, str], Retrieved]:
    """``GOLD DATA_DIR`` from the command line, retrieved (the benchmarks' shared entry)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("gold", type=Path)
    parser.add_argument("data_dir", type=Path)
    args = parser.parse_args()
    return await retrieve_gold(args.gold, args.data_dir)


async def main() -> None:
    pipeline, files, retrieved = await retrieve_from_argv()

    rerankers: list[tuple[str, Reranker]] = [("fused RRF order", FusedOrder())]
    rerankers += [(f"lexical w={w} rrf={r} title={t}", LexicalDenseReranker(w, r, t))
                  for w in (0.35, 0.5, 0.8) for r in (0.0, 0.05) for t in (0.0, 0.05, 0.1)]
    for name, reranker in rerankers:
        hits = 0
        reciprocal = 0.0
        for sources, query, candidates in retrieved:
            rank = first_hit(await reranker.rerank(query, candidates), sources, files)
            hits += bool(rank and rank <= 5)
            reciprocal += 1 / rank if rank else 0.0
        print(f"{name:24} hit@5 {hits / len(retrieved):.3f}   MRR {reciprocal / len(retrieved):.4f}")
    await pipeline.aclose()


if __name__ == "__main__":
    asyncio.run(main())
