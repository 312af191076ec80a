"""The embedded default: a Qdrant Edge shard (Qdrant's Rust engine, in process) on local disk."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import qdrant_edge as qe

from rag_core.errors import IndexModelMismatch, IndexUnavailable
from rag_core.index.base import (
    DATETIME_FIELDS,
    DENSE,
    KEYWORD_FIELDS,
    LATE,
    NO_LATE_VECTORS,
    RRF_K,
    SPARSE,
    AccessFilter,
    IndexPoint,
    ScoredPoint,
    as_datetime,
    deterministic_top,
    late_top,
    late_vectors_by_chunk,
    point_id_for,
)
from rag_core.sparse import SparseVector


def edge_filter(access: AccessFilter, *, point_ids: Sequence[str] = ()) -> qe.Filter:
    """``access`` as an Edge filter; with ``point_ids``, also only those points."""
    must: list[Any] = [qe.FieldCondition("acl_groups", match=qe.MatchAny(sorted(g))) for g in access.group_sets]
    if point_ids:
        must.append(qe.HasIdCondition(set(point_ids)))
    must += [qe.FieldCondition("jurisdiction", match=qe.MatchAny(sorted(j))) for j in access.jurisdiction_sets]
    must.append(qe.FieldCondition("effective_date", range=qe.RangeDateTime(lte=as_datetime(access.as_of))))
    if access.language:
        must.append(qe.FieldCondition("language", match=qe.MatchValue(access.language)))
    must_not: list[Any] = []
    if access.exclude_document_ids:
        must_not.append(qe.FieldCondition("document_id", match=qe.MatchAny(sorted(access.exclude_document_ids))))
    return qe.Filter(must=must, must_not=must_not or None)


def _dense_of(vector: Any) -> list[float]:
    """The named dense vector of a result (we always ask for it by name)."""
    if isinstance(vector, dict):
        return [float(x) for x in vector.get(DENSE, [])]
    return []


def late_params(dimension: int) -> qe.EdgeVectorParams:
    """Token vectors: float16 storage (rounded on the client, see ``token_vectors``), dot product of
    unit rows (the cosine), MaxSim across tokens. No HNSW graph: they only rescore candidates the
    dense and BM25 prefetches found, never search on their own (m=0 disables the graph)."""
    return qe.EdgeVectorParams(
        size=dimension,
        distance=qe.Distance.Dot,
        datatype=qe.VectorStorageDatatype.Float16,
        multivector_config=qe.MultiVectorConfig(qe.MultiVectorComparator.MaxSim),
        hnsw_config=qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000),
    )


def _vectors_of(point: IndexPoint) -> dict[str, Any]:
    vectors: dict[str, Any] = {DENSE: point.dense, SPARSE: qe.SparseVector(point.sparse.indices, point.sparse.values)}
    if point.late is not None:
        vectors[LATE] = point.late
    return vectors


class EdgeIndex:
    backend = "edge"

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._shard_dir = directory / "shard"
        self._meta_path = directory / "meta.json"
        self._shard: qe.EdgeShard | None = None
        self._lock = threading.Lock()

    def _open(self) -> qe.EdgeShard:
        if self._shard is None:
            try:
                if not (self._shard_dir.exists() and any(self._shard_dir.iterdir())):
                    raise IndexUnavailable(f"no index at {self.directory}; run `benefitsbot ingest PATH` first")
                self._shard = qe.EdgeShard.load(str(self._shard_dir))
            except IndexUnavailable:
                raise
            except Exception as exc:  # the Rust side reports I/O and format problems as plain errors
                if "WouldBlock" in str(exc):  # the shard's write-ahead log is locked by another process
                    raise IndexUnavailable(
                        f"the index at {self.directory} is in use by another process (is `benefitsbot serve` "
                        "running?); stop it to re-ingest, or use a Qdrant server (QDRANT_URL)"
                    ) from exc
                raise IndexUnavailable(f"cannot open the index at {self.directory}: {exc}") from exc
        return self._shard

    def _prepare_sync(self, dense_dimension: int, late_dimension: int | None) -> None:
        with self._lock:
            if self._shard_dir.exists() and any(self._shard_dir.iterdir()):
                self._open()
                return
            self._shard_dir.mkdir(parents=True, exist_ok=True)
            vectors = {DENSE: qe.EdgeVectorParams(size=dense_dimension, distance=qe.Distance.Cosine)}
            if late_dimension:
                vectors[LATE] = late_params(late_dimension)
            config = qe.EdgeConfig(
                vectors=vectors,
                sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            )
            shard = qe.EdgeShard.create(str(self._shard_dir), config)
            # Payload indexes first, so every point is indexed on write (the filter is always applied).
            for name in KEYWORD_FIELDS:
                shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Keyword))
            for name in DATETIME_FIELDS:
                shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Datetime))
            shard.flush()
            self._shard = shard

    async def prepare(self, dense_dimension: int, late_dimension: int | None = None) -> None:
        await asyncio.to_thread(self._prepare_sync, dense_dimension, late_dimension)

    def _upsert_sync(self, points: Sequence[IndexPoint]) -> None:
        shard = self._open()
        edge_points = [qe.Point(p.point_id, _vectors_of(p), p.payload) for p in points]
        with self._lock:
            shard.update(qe.UpdateOperation.upsert_points(edge_points))
            shard.flush()

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        if points:
            await asyncio.to_thread(self._upsert_sync, points)

    def _delete_sync(self, point_ids: Sequence[str]) -> None:
        shard = self._open()
        with self._lock:
            shard.update(qe.UpdateOperation.delete_points(list(point_ids)))
            shard.flush()
            # Qdrant Edge keeps counting deleted points in the BM25 IDF statistics until the shard is
            # loaded again: reload, so sparse scores match a fresh index (and the Qdrant server).
            shard.close()
            self._shard = qe.EdgeShard.load(str(self._shard_dir))

    async def delete(self, point_ids: Sequence[str]) -> None:
        if point_ids:
            await asyncio.to_thread(self._delete_sync, point_ids)

    def _query_sync(
        self,
        dense: list[float],
        sparse: SparseVector,
        access: AccessFilter,
        limit: int,
        prefetch_limit: int,
        late: list[list[float]] | None,
    ) -> list[ScoredPoint]:
        shard = self._open()
        flt = edge_filter(access)  # on every prefetch and on every stage above them: no unfiltered path
        every = max(limit, 2 * prefetch_limit)  # every fused candidate: ties are cut in deterministic_top

        rrf = qe.Fusion.Rrf(k=RRF_K)
        leaves = [  # the dense and BM25 candidates, each found under the filter
            qe.Prefetch(limit=prefetch_limit, query=qe.Query.Nearest(dense, using=DENSE), filter=flt),
            qe.Prefetch(
                limit=prefetch_limit,
                filter=flt,
                query=qe.Query.Nearest(qe.SparseVector(sparse.indices, sparse.values), using=SPARSE),
            ),
        ]
        fused = qe.QueryRequest(
            limit=every,
            prefetches=leaves,
            filter=flt,
            query=rrf,  # type: ignore[arg-type]  # the stub omits Fusion's inner classes
            with_payload=late is None,
            with_vector=[DENSE] if late is None else False,
        )
        if late is None:
            return deterministic_top(self._hits(shard.query(fused)), limit)
        # The same fused candidates rescored by MaxSim inside the shard (nested prefetch), batched with
        # the plain fused request that keeps their RRF scores: one call, one pass over the segments.
        fused_stage = qe.Prefetch(limit=every, prefetches=leaves, filter=flt, query=rrf)  # type: ignore[arg-type]
        rescored = qe.QueryRequest(
            limit=every,
            prefetches=[fused_stage],
            filter=flt,
            query=qe.Query.Nearest(late, using=LATE),
            with_payload=True,
            with_vector=[DENSE],
        )
        try:
            fused_hits, late_hits = shard.query_batch(qe.QueryBatchRequest([fused, rescored]))
        except Exception as exc:
            if LATE in str(exc):
                raise IndexModelMismatch(NO_LATE_VECTORS.format(where=self.directory)) from exc
            raise
        return late_top(self._hits(fused_hits), self._hits(late_hits), limit)

    @staticmethod
    def _hits(results: Sequence[Any]) -> list[ScoredPoint]:
        return [ScoredPoint(str(r.id), float(r.score), dict(r.payload or {}), _dense_of(r.vector)) for r in results]

    async def hybrid_query(
        self,
        dense: list[float],
        sparse: SparseVector,
        access: AccessFilter,
        *,
        limit: int,
        prefetch_limit: int,
        late: list[list[float]] | None = None,
    ) -> list[ScoredPoint]:
        if not sparse.indices:
            sparse = SparseVector([0], [0.0])  # a query of only stop words: BM25 contributes nothing
        return await asyncio.to_thread(self._query_sync, dense, sparse, access, limit, prefetch_limit, late)

    def _token_vectors_sync(self, chunk_ids: Sequence[str], access: AccessFilter) -> dict[str, np.ndarray]:
        by_point = {point_id_for(chunk_id): chunk_id for chunk_id in chunk_ids}
        request = qe.ScrollRequest(
            limit=len(by_point),
            filter=edge_filter(access, point_ids=list(by_point)),  # the asker's filter here too
            with_payload=False,
            with_vector=[LATE],
        )
        try:
            records, _ = self._open().scroll(request)
        except Exception as exc:
            if LATE in str(exc):
                raise IndexModelMismatch(NO_LATE_VECTORS.format(where=self.directory)) from exc
            raise
        return late_vectors_by_chunk(records, by_point)

    async def token_vectors_of(self, chunk_ids: Sequence[str], access: AccessFilter) -> dict[str, np.ndarray]:
        if not chunk_ids:
            return {}
        return await asyncio.to_thread(self._token_vectors_sync, chunk_ids, access)

    async def count(self, access: AccessFilter) -> int:
        shard = self._open()
        return await asyncio.to_thread(shard.count, qe.CountRequest(filter=edge_filter(access), exact=True))

    async def point_count(self) -> int:
        if not (self._shard_dir.exists() and any(self._shard_dir.iterdir())):
            return 0
        return int(self._open().info().points_count)

    async def read_meta(self) -> dict[str, Any] | None:
        if not self._meta_path.exists():
            return None
        return json.loads(self._meta_path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]

    async def write_meta(self, meta: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self._meta_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(meta, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self._meta_path)  # atomic: a crash never leaves half a manifest

    async def ping(self) -> None:
        await asyncio.to_thread(self._open)

    async def aclose(self) -> None:
        with self._lock:
            if self._shard is not None:
                # Every write above is flushed already: a read-only process (`benefitsbot ask`)
                # closes without another flush (~0.2 s of a cold question).
                self._shard.close()
                self._shard = None
