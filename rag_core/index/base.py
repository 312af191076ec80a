from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

import numpy as np

from rag_core.sparse import SparseVector

DENSE = "dense"
SPARSE = "bm25"
LATE = "colbert"  # late interaction: one vector per token, scored by MaxSim (ColBERT)
RRF_K = 60  # the constant from the RRF paper; both backends get it explicitly

NO_LATE_VECTORS = (
    "the index at {where} holds no late-interaction (ColBERT) token vectors (built before they were stored, or "
    "with LATE_INTERACTION=none); re-ingest into a fresh data dir (or collection), or set LATE_INTERACTION=none"
)

KEYWORD_FIELDS = ("acl_groups", "jurisdiction", "document_id", "policy_id", "language")
DATETIME_FIELDS = ("effective_date",)

POINT_NAMESPACE = uuid.UUID("6f1c7c1e-3c1b-5e55-9a7e-b3e7f1c2d0aa")


def point_id_for(chunk_id: str) -> str:
    """A chunk's point id on both backends (Qdrant ids are UUIDs or integers): UUIDv5 of the chunk id."""
    return str(uuid.uuid5(POINT_NAMESPACE, chunk_id))


def late_vectors_by_chunk(records: Iterable[Any], chunk_of: Mapping[str, str]) -> dict[str, np.ndarray]:
    """Each record's late-interaction vectors as a float32 matrix, keyed by the chunk id its point id
    stands for (``chunk_of``): what both backends' ``token_vectors_of`` return."""
    found = {}
    for record in records:
        vectors = record.vector.get(LATE) if isinstance(record.vector, dict) else None
        if vectors:
            found[chunk_of[str(record.id)]] = np.asarray(vectors, dtype=np.float32)
    return found


@dataclass(frozen=True)
class AccessFilter:
    """The mandatory pre-filter every index query carries.

    ``group_sets``: the chunk's acl_groups must intersect *each* set (the asker's groups, plus
    one set per audience member when narrowing to a channel). ``jurisdiction_sets`` likewise.
    ``exclude_document_ids`` removes superseded, overridden and translated-away documents.
    """

    group_sets: tuple[frozenset[str], ...]
    jurisdiction_sets: tuple[frozenset[str], ...]
    as_of: date
    exclude_document_ids: frozenset[str] = frozenset()
    language: str | None = None

    def __post_init__(self) -> None:
        if not self.group_sets or any(not groups for groups in self.group_sets):
            raise ValueError("an access filter needs at least one group in every group set")
        if not self.jurisdiction_sets or any(not j for j in self.jurisdiction_sets):
            raise ValueError("an access filter needs at least one jurisdiction in every set")

    def narrowed(self, other: AccessFilter) -> AccessFilter:
        """Both filters at once: a runtime filter can narrow access, never replace it."""
        return AccessFilter(
            group_sets=self.group_sets + other.group_sets,
            jurisdiction_sets=self.jurisdiction_sets + other.jurisdiction_sets,
            as_of=min(self.as_of, other.as_of),
            exclude_document_ids=self.exclude_document_ids | other.exclude_document_ids,
            language=self.language or other.language,
        )


def as_datetime(day: date) -> str:
    return f"{day.isoformat()}T00:00:00Z"


def token_vectors(vectors: np.ndarray | Sequence[Sequence[float]]) -> list[list[float]]:
    """Token vectors as both backends store and score them: unit rows rounded to float16.

    The index stores the late-interaction vectors as float16 (half the disk of float32). Rounding
    here, on the client, means Qdrant Edge and the Qdrant server hold (and are queried with) the
    very same numbers; left to the index, Edge would round on write and qdrant-client's local mode
    would not. Rows are normalised first, so the index's dot product is the cosine (a Cosine
    distance would re-normalise the rounded values on one backend and not on the other).
    """
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim != 2 or not array.shape[0]:
        raise ValueError(f"token vectors must be a non-empty (tokens, dim) matrix, got shape {array.shape}")
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    unit = array / np.where(norms > 0, norms, 1.0)
    return unit.astype(np.float16).astype(np.float32).tolist()  # type: ignore[no-any-return]


@dataclass(frozen=True)
class IndexPoint:
    point_id: str
    dense: list[float]
    sparse: SparseVector
    payload: dict[str, Any]
    late: list[list[float]] | None = None  # token vectors (see ``token_vectors``) when the index has them


@dataclass
class ScoredPoint:
    point_id: str
    fused_score: float
    payload: dict[str, Any]
    dense: list[float] = field(default_factory=list)
    late_score: float | None = None  # MaxSim against the query's token vectors, when asked for

    @property
    def tie_key(self) -> str:
        """Equal scores are ordered by chunk id (the point id for points that carry none)."""
        return str(self.payload.get("chunk_id", self.point_id))


def canonical_twins(hits: list[ScoredPoint]) -> list[ScoredPoint]:
    """Identical chunks (the same boilerplate paragraph in several documents) tie *inside* each
    prefetch, where the index orders them arbitrarily, so which twin gets which RRF rank — and so
    each twin's fused score — varies between runs and backends. Twins (the same dense vector) are
    indistinguishable, so each gets the group's mean fused score: the mean does not depend on how
    the index ordered them (the group's dense and BM25 rank terms are summed whatever the pairing),
    and the chunk-id tie-break then orders them the same way on both backends and every run."""
    twins: dict[tuple[float, ...], list[int]] = {}
    for position, hit in enumerate(hits):
        if hit.dense:
            twins.setdefault(tuple(hit.dense), []).append(position)
    out = list(hits)
    for positions in twins.values():
        if len(positions) < 2:
            continue
        mean = round(sum(sorted(hits[i].fused_score for i in positions)) / len(positions), 12)
        for i in positions:
            hit = hits[i]
            out[i] = ScoredPoint(hit.point_id, mean, hit.payload, hit.dense, late_score=hit.late_score)
    return out


def deterministic_top(hits: list[ScoredPoint], limit: int) -> list[ScoredPoint]:
    """RRF gives equal scores to mirrored ranks (dense #3 + sparse #7 == dense #7 + sparse #3), and Qdrant
    leaves the order of equal scores undefined (Qdrant Edge varies it from run to run). Callers fetch every
    fused candidate; twins share one score and ties are broken by chunk id here, so both
    backends and every run keep the same top."""
    return sorted(canonical_twins(hits), key=lambda hit: (-hit.fused_score, hit.tie_key))[:limit]


def late_top(fused: list[ScoredPoint], late: list[ScoredPoint], limit: int) -> list[ScoredPoint]:
    """The fused candidates in MaxSim order (ties by chunk id), each carrying both scores.

    ``late`` is the same candidates scored by MaxSim in the nested query; ``fused`` the sibling
    request of the batch that kept the RRF scores. A candidate the late stage scored but the fused
    request did not return (only possible for identical chunks tied at a prefetch cut) keeps a fused
    score of 0.0 rather than being dropped.
    """
    fused_by_id = {hit.point_id: hit for hit in fused}
    merged = []
    for hit in late:
        twin = fused_by_id.get(hit.point_id)
        merged.append(
            ScoredPoint(
                hit.point_id, twin.fused_score if twin else 0.0, hit.payload, hit.dense, late_score=hit.fused_score
            )
        )
    return sorted(canonical_twins(merged), key=lambda hit: (-(hit.late_score or 0.0), hit.tie_key))[:limit]


class VectorIndex(Protocol):
    """What the core needs from an index. Every read takes an AccessFilter: no unfiltered path."""

    backend: str

    async def prepare(self, dense_dimension: int, late_dimension: int | None = None) -> None:
        """Create the collection and its payload indexes (before any point is written); with
        ``late_dimension``, also the late-interaction multivector every point then carries."""

    async def upsert(self, points: Sequence[IndexPoint]) -> None: ...

    async def delete(self, point_ids: Sequence[str]) -> None: ...

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
        """Dense and BM25 candidates, both pre-filtered, fused by RRF inside Qdrant. With ``late``
        (the query's token vectors, see ``token_vectors``) every fused candidate is rescored by
        MaxSim in the same query and the result comes back in that order, carrying both scores."""

    async def token_vectors_of(self, chunk_ids: Sequence[str], access: AccessFilter) -> dict[str, np.ndarray]:
        """The stored late-interaction token vectors of the given chunks, by chunk id, as
        ``hybrid_query`` scores them (float16-rounded unit rows): only chunks ``access`` lets through."""

    async def count(self, access: AccessFilter) -> int: ...

    async def point_count(self) -> int:
        """All points, for ingest summaries and health checks (returns no content)."""

    async def read_meta(self) -> dict[str, Any] | None: ...

    async def write_meta(self, meta: dict[str, Any]) -> None: ...

    async def ping(self) -> None:
        """Raise IndexUnavailable when the index cannot serve."""

    async def aclose(self) -> None: ...
