"""Index size on disk with and without late-interaction token vectors (a benchmark, not a test).

    .venv/bin/python benchmarks/late_index_size.py /tmp/contoso

Reads every point of an embedded index ingested with token vectors (the default) and writes it again
into fresh Qdrant Edge shards: without token vectors, with them stored as float32, and as float16
(what ``EdgeIndex`` creates). Prints each shard's bytes on disk after a flush and an optimize.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from rag_core.index.base import DENSE, KEYWORD_FIELDS, LATE, SPARSE
from rag_core.index.edge import late_params


def size_of(directory: Path) -> int:
    """Allocated bytes, as `du` counts them (Qdrant's preallocated mmap chunks are mostly sparse)."""
    return sum(f.stat().st_blocks * 512 for f in directory.rglob("*") if f.is_file())


def read_points(shard_dir: Path) -> list[Any]:
    shard = qe.EdgeShard.load(str(shard_dir))
    records, _ = shard.scroll(qe.ScrollRequest(limit=1_000_000, with_payload=True, with_vector=True))
    shard.close()
    return list(records)


def rebuild(records: list[Any], target: Path, late: str | None, dense_dimension: int) -> int:
    vectors = {DENSE: qe.EdgeVectorParams(size=dense_dimension, distance=qe.Distance.Cosine)}
    if late is not None:
        dimension = len(records[0].vector[LATE][0])
        vectors[LATE] = (
            late_params(dimension)
            if late == "float16"
            else qe.EdgeVectorParams(
                size=dimension,
                distance=qe.Distance.Dot,
                multivector_config=qe.MultiVectorConfig(qe.MultiVectorComparator.MaxSim),
                hnsw_config=qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000),
            )
        )
    shard = qe.EdgeShard.create(
        str(target),
        qe.EdgeConfig(vectors=vectors, sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)}),
    )
    for name in KEYWORD_FIELDS:
        shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Keyword))
    for start in range(0, len(records), 64):
        batch = []
        for record in records[start : start + 64]:
            kept = {k: v for k, v in record.vector.items() if k != LATE or late is not None}
            batch.append(qe.Point(record.id, kept, record.payload))
        shard.update(qe.UpdateOperation.upsert_points(batch))
    shard.flush()
    shard.optimize()
    shard.flush()
    shard.close()
    return size_of(target)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir", type=Path)
    args = parser.parse_args()
    shard_dir = args.data_dir / "index" / "shard"
    records = read_points(shard_dir)
    if LATE not in records[0].vector:
        raise SystemExit(f"{args.data_dir} has no token vectors: ingest it with LATE_INTERACTION=colbert")
    dense_dimension = len(records[0].vector[DENSE])
    tokens = sum(len(r.vector[LATE]) for r in records)
    out: dict[str, Any] = {
        "data_dir": str(args.data_dir),
        "points": len(records),
        "token_vectors": tokens,
        "as_ingested_bytes": size_of(shard_dir),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for late in (None, "float32", "float16"):
            out[f"rebuilt_{late or 'without_token_vectors'}_bytes"] = rebuild(
                records, Path(tmp) / str(late), late, dense_dimension
            )
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
