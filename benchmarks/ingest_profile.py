"""Where ingest time goes: CPU and wall seconds per phase, one document after the other, one thread.

    .venv/bin/python benchmarks/ingest_profile.py ../shared/benchmarks/contoso/docs [--threads 1]

Runs the ingest phases of every catalogued document in sequence (no pool, no worker process, no
index): PDF parsing, the prompt-injection screen, chunking, bge-small, ColBERT, the float16 token
vectors, BM25 and the spelling vocabulary. CPU seconds are what each phase costs wherever it runs;
their sum over two cores bounds the wall time of a parallel ingest from below. Not a test.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from rag_core.catalog import load_catalog
from rag_core.embeddings.local import LocalEmbedder
from rag_core.index.base import token_vectors
from rag_core.ingest.chunking import chunk_document
from rag_core.ingest.extract import extract
from rag_core.ingest.quarantine import Screen
from rag_core.models import ColbertEncoder, DenseOnnxEncoder
from rag_core.sparse import bm25_document
from rag_core.spelling import vocabulary_of

T = TypeVar("T")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads per model session")
    args = parser.parse_args()
    catalog = load_catalog(args.folder.resolve())
    spent: dict[str, list[float]] = {}

    def clock(phase: str, work: Callable[..., T], *inputs: Any) -> T:
        cpu, wall = time.process_time(), time.perf_counter()
        out = work(*inputs)
        totals = spent.setdefault(phase, [0.0, 0.0])
        totals[0] += time.process_time() - cpu
        totals[1] += time.perf_counter() - wall
        return out

    dense = LocalEmbedder(DenseOnnxEncoder(threads=args.threads))
    colbert = ColbertEncoder(threads=args.threads)
    dense.embed_query_sync("warm up")  # model load is not ingestion
    colbert.encode_query("warm up")
    pages = chunks = 0
    for meta in catalog.documents:
        extracted = clock("parse (pdfplumber)", extract, catalog.path_of(meta))
        pages += extracted.pages
        text = clock("screen", Screen.for_hosts([meta.source_uri]).apply, extracted)
        found = clock("chunk", partial(chunk_document, max_tokens=400, overlap=40), meta, text)
        texts = [chunk.content for chunk in found]
        chunks += len(texts)
        clock("bge-small", dense.embed_documents_sync, texts)
        matrices = clock("colbert", colbert.encode_documents, texts)
        clock("token vectors (float16)", lambda ms: [token_vectors(m) for m in ms], matrices)
        clock("bm25 + vocabulary", lambda ts: ([bm25_document(t) for t in ts], vocabulary_of(ts)), texts)
    total_cpu = sum(cpu for cpu, _ in spent.values())
    print(
        json.dumps(
            {
                "folder": str(args.folder),
                "threads": args.threads,
                "pages": pages,
                "chunks": chunks,
                "phases": {k: {"cpu_s": round(c, 2), "wall_s": round(w, 2)} for k, (c, w) in spent.items()},
                "cpu_s": round(total_cpu, 1),
                "pages_per_s_bound_on_2_idle_cores": round(pages / (total_cpu / 2), 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
