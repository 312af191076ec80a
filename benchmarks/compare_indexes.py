"""Are two Qdrant Edge indexes the same point for point (ids, payloads, dense, sparse and token vectors)?

    .venv/bin/python benchmarks/compare_indexes.py /tmp/before/index /tmp/after/index

Prints a JSON summary and exits 1 on any difference. Used to show that a faster ingest writes the
very same index (benchmarks/README.md, "Parallel ONNX inference (session 4)"). The payload's
``revision_hash`` is the file's hash, so both indexes must come from the same files.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import qdrant_edge as qe


def points_of(index_dir: Path) -> dict[str, Any]:
    """Every record of the shard under ``index_dir``, by point id (read-only, paged)."""
    shard = qe.EdgeShard.load(str(index_dir / "shard"))
    try:
        found: dict[str, Any] = {}
        offset = None
        while True:
            records, offset = shard.scroll(
                qe.ScrollRequest(offset=offset, limit=1_000, with_payload=True, with_vector=True)
            )
            found.update((str(r.id), r) for r in records)
            if offset is None:
                return found
    finally:
        shard.close()


def as_plain(vectors: dict[str, Any]) -> dict[str, Any]:
    """Vectors as comparable values (a sparse vector as its index and value lists)."""
    plain = {}
    for name, vector in vectors.items():
        if hasattr(vector, "indices"):
            plain[name] = (list(vector.indices), list(vector.values))
        else:
            plain[name] = vector
    return plain


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("first", type=Path, help="an index directory (holds shard/ and meta.json)")
    parser.add_argument("second", type=Path)
    args = parser.parse_args()
    first, second = points_of(args.first), points_of(args.second)
    shared = sorted(first.keys() & second.keys())
    payload_diff = [p for p in shared if first[p].payload != second[p].payload]
    vector_diff = [p for p in shared if as_plain(first[p].vector) != as_plain(second[p].vector)]
    summary = {
        "first": str(args.first),
        "second": str(args.second),
        "points": [len(first), len(second)],
        "only_in_first": len(first.keys() - second.keys()),
        "only_in_second": len(second.keys() - first.keys()),
        "payloads_differ": len(payload_diff),
        "vectors_differ": len(vector_diff),
        "vector_names": sorted(first[shared[0]].vector) if shared else [],
    }
    summary["identical"] = (
        summary["only_in_first"] == summary["only_in_second"] == summary["payloads_differ"] == 0
        and not vector_diff
        and bool(shared)
    )
    print(json.dumps(summary, indent=2))
    return 0 if summary["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
