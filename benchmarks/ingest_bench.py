"""Ingestion benchmark: first run into a fresh index, then the unchanged corpus again.

    .venv/bin/python benchmarks/ingest_bench.py ../shared/benchmarks/contoso/docs

Prints pages/s, chunks/s, peak RSS, and the re-ingest time as a share of the first run
(target: at most 5%). Not a test: numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import resource
import tempfile
from pathlib import Path

from rag_core.embeddings import build_embedder
from rag_core.index.edge import EdgeIndex
from rag_core.ingest.pipeline import Ingestor
from rag_core.settings import CoreSettings


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    args = parser.parse_args()
    settings = CoreSettings()
    embedder = build_embedder(settings)
    await embedder.embed_query("warm up")  # model load is not ingestion
    with tempfile.TemporaryDirectory() as tmp:
        index = EdgeIndex(Path(tmp) / "index")
        first = await Ingestor(index, embedder, progress=True).run(args.folder)
        again = await Ingestor(index, embedder, progress=False).run(args.folder)
        await index.aclose()
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker_peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the PDF-parsing worker
    print(
        json.dumps(
            {
                "folder": str(args.folder),
                "machine": f"{platform.machine()} {__import__('os').cpu_count()} cores, {platform.python_version()}",
                "embedding_model": embedder.model_name,
                "documents": first.documents,
                "pages": first.pages,
                "chunks": first.chunks,
                "failed": first.failed,
                "pages_without_text": first.pages_without_text,
                "first_run_s": round(first.seconds, 2),
                "pages_per_s": round(first.pages / first.seconds, 2),
                "chunks_per_s": round(first.chunks / first.seconds, 2),
                "reingest_unchanged_s": round(again.seconds, 3),
                "reingest_share_of_first": round(again.seconds / first.seconds, 4),
                "reingest_skipped": again.skipped,
                "peak_rss_mib": round(peak_mib, 1),
        "extraction_worker_peak_rss_mib": round(worker_peak_mib, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
