"""A Qdrant server or cluster through ``qdrant_client.AsyncQdrantClient``.

Used when ``QDRANT_URL`` is set. Tests run the same code against ``location=":memory:"``
(qdrant-client's local mode), which is far too slow to be a default but fine for congruence.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, time
from typing import Any, cast

import numpy as np
from pydantic import SecretStr
from qdrant_client import AsyncQdrantClient, models

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
    deterministic_top,
    late_top,
    late_vectors_by_chunk,
    point_id_for,
)
from rag_core.sparse import SparseVector

_META_POINT = str(uuid.uuid5(uuid.NAMESPACE_URL, "benefitsbot:index-meta"))


def server_filter(access: AccessFilter, *, point_ids: Sequence[str] = ()) -> models.Filter:
    """``access`` as a server filter; with ``point_ids``, also only those points."""
    must: list[Any] = [
        models.FieldCondition(key="acl_groups", match=models.MatchAny(any=sorted(g))) for g in access.group_sets
    ]
    if point_ids:
        must.append(models.HasIdCondition(has_id=list(point_ids)))
    must += [
        models.FieldCondition(key="jurisdiction", match=models.MatchAny(any=sorted(j)))
        for j in access.jurisdiction_sets
    ]
    start_of_day = datetime.combine(access.as_of, time.min, tzinfo=UTC)  # same instant as the Edge filter
    must.append(models.FieldCondition(key="effective_date", range=models.DatetimeRange(lte=start_of_day)))
    if access.language:
        must.append(models.FieldCondition(key="language", match=models.MatchValue(value=access.language)))
    must_not: list[Any] = []
    if access.exclude_document_ids:
        must_not.append(
            models.FieldCondition(key="document_id", match=models.MatchAny(any=sorted(access.exclude_document_ids)))
        )
    return models.Filter(must=must, must_not=must_not or None)


def late_params(dimension: int) -> models.VectorParams:
    """The same late-interaction vector as Qdrant Edge's (see ``edge.late_params``)."""
    return models.VectorParams(
        size=dimension,
        distance=models.Distance.DOT,
        datatype=models.Datatype.FLOAT16,
        multivector_config=models.MultiVectorConfig(comparator=models.MultiVectorComparator.MAX_SIM),
        hnsw_config=models.HnswConfigDiff(m=0),
    )


def _vectors_of(point: IndexPoint) -> dict[str, Any]:
    vectors: dict[str, Any] = {
        DENSE: point.dense,
        SPARSE: models.SparseVector(indices=point.sparse.indices, values=point.sparse.values),
    }
    if point.late is not None:
        vectors[LATE] = point.late
    return vectors


def _hits(points: Sequence[models.ScoredPoint]) -> list[ScoredPoint]:
    out = []
    for point in points:
        vector = point.vector.get(DENSE) if isinstance(point.vector, dict) else None
        dense = cast(list[float], vector) if isinstance(vector, list) else []  # DENSE is a plain vector
        out.append(ScoredPoint(str(point.id), float(point.score), dict(point.payload or {}), list(dense)))
    return out


class ServerIndex:
    backend = "server"

    def __init__(self, client: AsyncQdrantClient, collection: str) -> None:
        self.client = client
        self.collection = collection
        # Index metadata (model, manifest) lives in a tiny side collection, never in the searched one.
        self.meta_collection = f"{collection}__meta"

    @classmethod
    def connect(cls, url: str, api_key: SecretStr | None, collection: str) -> ServerIndex:
        key = api_key.get_secret_value() if api_key else None
        if url == ":memory:":
            return cls(AsyncQdrantClient(location=":memory:"), collection)
        return cls(AsyncQdrantClient(url=url, api_key=key, timeout=10), collection)

    async def _call(self, coro: Any) -> Any:
        try:
            return await coro
        except IndexUnavailable:
            raise
        except Exception as exc:  # connection refused, timeouts, 5xx: all mean "cannot serve now"
            raise IndexUnavailable(f"Qdrant server error: {type(exc).__name__}: {exc}") from exc

    async def prepare(self, dense_dimension: int, late_dimension: int | None = None) -> None:
        if not await self._call(self.client.collection_exists(self.collection)):
            vectors = {DENSE: models.VectorParams(size=dense_dimension, distance=models.Distance.COSINE)}
            if late_dimension:
                vectors[LATE] = late_params(late_dimension)
            await self._call(
                self.client.create_collection(
                    self.collection,
                    vectors_config=vectors,
                    sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                )
            )
            for name in KEYWORD_FIELDS:
                await self._call(
                    self.client.create_payload_index(self.collection, name, models.PayloadSchemaType.KEYWORD, wait=True)
                )
            for name in DATETIME_FIELDS:
                await self._call(
                    self.client.create_payload_index(
                        self.collection, name, models.PayloadSchemaType.DATETIME, wait=True
                    )
                )
        if not await self._call(self.client.collection_exists(self.meta_collection)):
            await self._call(
                self.client.create_collection(
                    self.meta_collection, vectors_config=models.VectorParams(size=1, distance=models.Distance.DOT)
                )
            )

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        structs = [models.PointStruct(id=p.point_id, vector=_vectors_of(p), payload=p.payload) for p in points]
        await self._call(self.client.upsert(self.collection, structs, wait=True))

    async def delete(self, point_ids: Sequence[str]) -> None:
        if point_ids:
            await self._call(
                self.client.delete(self.collection, models.PointIdsList(points=list(point_ids)), wait=True)
            )

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
        flt = server_filter(access)  # on every prefetch and on every stage above them: no unfiltered path
        if not sparse.indices:
            sparse = SparseVector([0], [0.0])
        every = max(limit, 2 * prefetch_limit)  # every fused candidate: ties are cut in deterministic_top
        rrf = models.RrfQuery(rrf=models.Rrf(k=RRF_K))
        leaves = [
            models.Prefetch(query=dense, using=DENSE, filter=flt, limit=prefetch_limit),
            models.Prefetch(
                query=models.SparseVector(indices=sparse.indices, values=sparse.values),
                using=SPARSE,
                filter=flt,
                limit=prefetch_limit,
            ),
        ]
        if late is None:
            response = await self._call(
                self.client.query_points(
                    self.collection,
                    prefetch=leaves,
                    query=rrf,
                    query_filter=flt,
                    limit=every,
                    with_payload=True,
                    with_vectors=[DENSE],
                )
            )
            return deterministic_top(_hits(response.points), limit)
        fused = models.QueryRequest(prefetch=leaves, query=rrf, filter=flt, limit=every, with_payload=False)
        # As on Qdrant Edge: the fused candidates rescored by MaxSim in a nested query, batched with
        # the plain fused request that keeps their RRF scores.
        rescored = models.QueryRequest(
            prefetch=[models.Prefetch(prefetch=leaves, query=rrf, filter=flt, limit=every)],
            query=models.NearestQuery(nearest=late),
            using=LATE,
            filter=flt,
            limit=every,
            with_payload=True,
            with_vector=[DENSE],
        )
        try:
            fused_response, late_response = await self.client.query_batch_points(self.collection, [fused, rescored])
        except Exception as exc:
            if LATE in str(exc):  # the collection was created without the token vectors
                raise IndexModelMismatch(NO_LATE_VECTORS.format(where=f"collection {self.collection}")) from exc
            raise IndexUnavailable(f"Qdrant server error: {type(exc).__name__}: {exc}") from exc
        return late_top(_hits(fused_response.points), _hits(late_response.points), limit)

    async def count(self, access: AccessFilter) -> int:
        result = await self._call(self.client.count(self.collection, count_filter=server_filter(access), exact=True))
        return int(result.count)

    async def point_count(self) -> int:
        if not await self._call(self.client.collection_exists(self.collection)):
            return 0
        result = await self._call(self.client.count(self.collection, exact=True))
        return int(result.count)

    async def token_vectors_of(self, chunk_ids: Sequence[str], access: AccessFilter) -> dict[str, np.ndarray]:
        if not chunk_ids:
            return {}
        by_point = {point_id_for(chunk_id): chunk_id for chunk_id in chunk_ids}
        records, _ = await self._call(
            self.client.scroll(
                self.collection,
                scroll_filter=server_filter(access, point_ids=list(by_point)),  # the asker's filter here too
                limit=len(by_point),
                with_payload=False,
                with_vectors=[LATE],
            )
        )
        return late_vectors_by_chunk(records, by_point)

    async def read_meta(self) -> dict[str, Any] | None:
        if not await self._call(self.client.collection_exists(self.meta_collection)):
            return None
        records = await self._call(self.client.retrieve(self.meta_collection, [_META_POINT], with_payload=True))
        return dict(records[0].payload or {}) if records else None

    async def write_meta(self, meta: dict[str, Any]) -> None:
        await self._call(
            self.client.upsert(
                self.meta_collection, [models.PointStruct(id=_META_POINT, vector=[1.0], payload=meta)], wait=True
            )
        )

    async def ping(self) -> None:
        await self._call(self.client.get_collections())

    async def aclose(self) -> None:
        await self.client.close()
