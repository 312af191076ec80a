"""A Qdrant server or cluster through ``qdrant_client.AsyncQdrantClient``.

Used when ``QDRANT_URL`` is set. Tests run the same code against ``location=":memory:"``
(qdrant-client's local mode), which is far too slow to be a default but fine for congruence.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, time
from typing import Any

from pydantic import SecretStr
from qdrant_client import AsyncQdrantClient, models

from rag_core.errors import IndexUnavailable
from rag_core.index.base import (
    DATETIME_FIELDS,
    DENSE,
    KEYWORD_FIELDS,
    RRF_K,
    SPARSE,
    AccessFilter,
    IndexPoint,
    ScoredPoint,
    deterministic_top,
)
from rag_core.sparse import SparseVector

_META_POINT = str(uuid.uuid5(uuid.NAMESPACE_URL, "benefitsbot:index-meta"))


def server_filter(access: AccessFilter) -> models.Filter:
    must: list[Any] = [models.FieldCondition(key="acl_groups", match=models.MatchAny(any=sorted(g)))
                       for g in access.group_sets]
    must += [models.FieldCondition(key="jurisdiction", match=models.MatchAny(any=sorted(j)))
             for j in access.jurisdiction_sets]
    start_of_day = datetime.combine(access.as_of, time.min, tzinfo=UTC)  # same instant as the Edge filter
    must.append(models.FieldCondition(key="effective_date", range=models.DatetimeRange(lte=start_of_day)))
    if access.language:
        must.append(models.FieldCondition(key="language", match=models.MatchValue(value=access.language)))
    must_not: list[Any] = []
    if access.exclude_document_ids:
        must_not.append(models.FieldCondition(key="document_id",
                                              match=models.MatchAny(any=sorted(access.exclude_document_ids))))
    return models.Filter(must=must, must_not=must_not or None)


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

    async def prepare(self, dense_dimension: int) -> None:
        if not await self._call(self.client.collection_exists(self.collection)):
            await self._call(self.client.create_collection(
                self.collection,
                vectors_config={DENSE: models.VectorParams(size=dense_dimension, distance=models.Distance.COSINE)},
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            ))
            for name in KEYWORD_FIELDS:
                await self._call(self.client.create_payload_index(
                    self.collection, name, models.PayloadSchemaType.KEYWORD, wait=True))
            for name in DATETIME_FIELDS:
                await self._call(self.client.create_payload_index(
                    self.collection, name, models.PayloadSchemaType.DATETIME, wait=True))
        if not await self._call(self.client.collection_exists(self.meta_collection)):
            await self._call(self.client.create_collection(
                self.meta_collection, vectors_config=models.VectorParams(size=1, distance=models.Distance.DOT)))

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        structs = [
            models.PointStruct(
                id=p.point_id,
                vector={DENSE: p.dense, SPARSE: models.SparseVector(indices=p.sparse.indices, values=p.sparse.values)},
                payload=p.payload,
            )
            for p in points
        ]
        await self._call(self.client.upsert(self.collection, structs, wait=True))

    async def delete(self, point_ids: Sequence[str]) -> None:
        if point_ids:
            await self._call(self.client.delete(
                self.collection, models.PointIdsList(points=list(point_ids)), wait=True))

    async def hybrid_query(self, dense: list[float], sparse: SparseVector, access: AccessFilter, *, limit: int,
                           prefetch_limit: int) -> list[ScoredPoint]:
        flt = server_filter(access)
        if not sparse.indices:
            sparse = SparseVector([0], [0.0])
        response = await self._call(self.client.query_points(
            self.collection,
            prefetch=[
                models.Prefetch(query=dense, using=DENSE, filter=flt, limit=prefetch_limit),
                models.Prefetch(query=models.SparseVector(indices=sparse.indices, values=sparse.values),
                                using=SPARSE, filter=flt, limit=prefetch_limit),
            ],
            query=models.RrfQuery(rrf=models.Rrf(k=RRF_K)),
            query_filter=flt,
            limit=max(limit, 2 * prefetch_limit),  # every fused candidate: ties are cut in deterministic_top
            with_payload=True,
            with_vectors=[DENSE],
        ))
        out = []
        for point in response.points:
            vector = point.vector.get(DENSE, []) if isinstance(point.vector, dict) else []
            out.append(ScoredPoint(str(point.id), float(point.score), dict(point.payload or {}), list(vector)))
        return deterministic_top(out, limit)

    async def count(self, access: AccessFilter) -> int:
        result = await self._call(self.client.count(self.collection, count_filter=server_filter(access), exact=True))
        return int(result.count)

    async def point_count(self) -> int:
        if not await self._call(self.client.collection_exists(self.collection)):
            return 0
        result = await self._call(self.client.count(self.collection, exact=True))
        return int(result.count)

    async def read_meta(self) -> dict[str, Any] | None:
        if not await self._call(self.client.collection_exists(self.meta_collection)):
            return None
        records = await self._call(self.client.retrieve(self.meta_collection, [_META_POINT], with_payload=True))
        return dict(records[0].payload or {}) if records else None

    async def write_meta(self, meta: dict[str, Any]) -> None:
        await self._call(self.client.upsert(
            self.meta_collection, [models.PointStruct(id=_META_POINT, vector=[1.0], payload=meta)], wait=True))

    async def ping(self) -> None:
        await self._call(self.client.get_collections())

    async def close(self) -> None:
        await self.client.close()
