"""Ingestion benchmark: first run into a fresh index, then the unchanged corpus again.

    .venv/bin/python benchmarks/ingest_bench.py ../shared/benchmarks/contoso/docs [--keep /tmp/contoso]

Prints pages/s, chunks/s, peak RSS, and the re-ingest time as a share of the first run
(target: at most 5%), the index's bytes on disk and the CPU seconds of this process and of the
parsing workers (the machine may be shared: CPU seconds say what the work cost, wall seconds what
it took, ``cores_used`` is their ratio). ``--keep DIR`` ingests into DIR/index (kept, e.g. for the
rerank sweep) instead of a temporary folder. Not a test: numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import tempfile
import time
from pathlib import Path

from rag_core.embeddings import build_embedder, build_late_encoder
from rag_core.index.edge import EdgeIndex
from rag_core.ingest.pipeline import Ingestor
from rag_core.settings import CoreSettings


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--keep", type=Path, help="ingest into DIR/index and keep it")
    args = parser.parse_args()
    settings = CoreSettings()
    embedder = build_embedder(settings)
    late = build_late_encoder(settings)
    await embedder.embed_query("warm up")  # model load is not ingestion
    if late is not None:
        late.encode_query("warm up")
    with tempfile.TemporaryDirectory() as tmp:
        directory = (args.keep or Path(tmp)) / "index"
        index = EdgeIndex(directory)
        cpu = time.process_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        first = await Ingestor(
            index,
            embedder,
            late=late,
            chunk_tokens=settings.chunk_tokens,
            chunk_overlap=settings.chunk_overlap,
            progress=True,
        ).run(args.folder)
        cpu = time.process_time() - cpu
        reaped = resource.getrusage(resource.RUSAGE_CHILDREN)  # the parsing workers, reaped at the end of run()
        worker_cpu = (reaped.ru_utime + reaped.ru_stime) - (children.ru_utime + children.ru_stime)
        again = await Ingestor(
            index,
            embedder,
            late=late,
            chunk_tokens=settings.chunk_tokens,
            chunk_overlap=settings.chunk_overlap,
            progress=False,
        ).run(args.folder)
        await index.aclose()
        # Allocated blocks, as `du` counts them: Qdrant preallocates 32 MiB mmap chunks and WAL segments
        # that stay mostly sparse, so the files' apparent sizes overstate the disk used several times over.
        index_bytes = sum(f.stat().st_blocks * 512 for f in directory.rglob("*") if f.is_file())
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker_peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the PDF-parsing worker
    print(
        json.dumps(
            {
                "folder": str(args.folder),
                "machine": f"{platform.machine()} {os.cpu_count()} cores, {platform.python_version()}",
                "embedding_model": embedder.model_name,
                "late_interaction_model": late.model_name if late else None,
                "documents": first.documents,
                "pages": first.pages,
                "chunks": first.chunks,
                "failed": first.failed,
                "pages_without_text": first.pages_without_text,
                "first_run_s": round(first.seconds, 2),
                "pages_per_s": round(first.pages / first.seconds, 2),
                "chunks_per_s": round(first.chunks / first.seconds, 2),
                "first_run_cpu_s_main_process": round(cpu, 1),
                "first_run_cpu_s_parsing_workers": round(worker_cpu, 1),
                "pages_per_cpu_s": round(first.pages / (cpu + worker_cpu), 2),
                # Cores kept busy on average: 2.0 on an idle 2-core machine is the most there is.
                "cores_used": round((cpu + worker_cpu) / first.seconds, 2),
                "load_average_1min_after": round(os.getloadavg()[0], 2),
                "index_bytes": index_bytes,
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
