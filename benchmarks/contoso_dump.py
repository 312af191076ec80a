"""Retrieve every answerable gold row's candidates once, with the answer path up to its retrieve stage,
and keep them (pickle) with each row's reference pages and the rank of the first reference-page chunk
under the index's two first-stage signals alone (BM25, dense; over the whole visible corpus). The
orderings in benchmarks/contoso_retrieval.py are then measured over these very candidates.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/contoso_dump.py GOLD DATA_DIR OUT.pkl [--candidates 30]
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from rag_core.eval.gold import chunk_location, load_gold, matches
from rag_core.eval.harness import token_for
from rag_core.index import open_index
from rag_core.index.base import DENSE, SPARSE
from rag_core.index.edge import EdgeIndex, edge_filter
from rag_core.pipeline import build_pipeline
from rag_core.settings import CoreSettings
from rag_core.sparse import bm25_query


def signal(
    shard: Any, query: Any, using: str, flt: Any, sources: list[str], files: dict[str, str]
) -> tuple[int | None, dict[str, float]]:
    """Under one signal alone (top 200 of the visible corpus): the 1-based rank of the first chunk on a
    reference page, and every returned chunk's score."""
    request = qe.QueryRequest(limit=200, query=qe.Query.Nearest(query, using=using), filter=flt, with_payload=True)
    hits = shard.query(request)
    scores = {str(hit.payload["chunk_id"]): float(hit.score) for hit in hits}
    rank = next(
        (
            r
            for r, hit in enumerate(hits, start=1)
            if matches(chunk_location(str(hit.payload["chunk_id"]), files), sources)
        ),
        None,
    )
    return rank, scores


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("gold", type=Path)
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--candidates", type=int, default=30)
    args = parser.parse_args()
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=str(args.data_dir), RETRIEVAL_CANDIDATES=args.candidates)
    index = open_index(settings)
    assert isinstance(index, EdgeIndex)
    pipeline = build_pipeline(settings, index=index)
    manifest = await pipeline.corpus.manifest()
    files = {doc_id: record.meta.file for doc_id, record in manifest.documents.items()}
    rows = []
    for row in load_gold(args.gold):
        if row.expect != "answer" or not row.sources:
            continue
        state = await pipeline.run_until("retrieve", row.question, token_for(settings, row), as_of=row.as_of)
        flt = edge_filter(state.require_access())
        shard = index._open()
        sparse = bm25_query(state.query)
        assert state.query_vector is not None
        bm25_rank, bm25_scores = (
            signal(shard, qe.SparseVector(sparse.indices, sparse.values), SPARSE, flt, row.sources, files)
            if sparse.indices
            else (None, {})
        )
        dense_rank, _ = signal(shard, state.query_vector.tolist(), DENSE, flt, row.sources, files)
        rows.append(
            {
                "id": row.id,
                "question": row.question,
                "query": state.query,
                "sources": row.sources,
                "candidates": [c.model_dump() for c in state.candidates],
                "located": [chunk_location(c.chunk_id, files) for c in state.candidates],
                "bm25_rank": bm25_rank,
                "dense_rank": dense_rank,
                "bm25": {c.chunk_id: bm25_scores.get(c.chunk_id, 0.0) for c in state.candidates},
                "query_tokens": len(state.query_tokens or ()),
            }
        )
    await pipeline.aclose()
    args.out.write_bytes(pickle.dumps({"gold": str(args.gold), "files": files, "rows": rows}))
    print(f"{len(rows)} rows -> {args.out}")


if __name__ == "__main__":
    asyncio.run(main())
