from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from rag_core.sparse import SparseVector

DENSE = "dense"
SPARSE = "bm25"
RRF_K = 60  # the constant from the RRF paper; both backends get it explicitly

KEYWORD_FIELDS = ("acl_groups", "jurisdiction", "document_id", "policy_id", "language")
DATETIME_FIELDS = ("effective_date",)


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


@dataclass(frozen=True)
class IndexPoint:
    point_id: str
    dense: list[float]
    sparse: SparseVector
    payload: dict[str, Any]


@dataclass
class ScoredPoint:
    point_id: str
    fused_score: float
    payload: dict[str, Any]
    dense: list[float] = field(default_factory=list)


def deterministic_top(hits: list[ScoredPoint], limit: int) -> list[ScoredPoint]:
    """RRF gives equal scores to mirrored ranks (dense #3 + sparse #7 == dense #7 + sparse #3), and Qdrant
    leaves the order of equal scores undefined (Qdrant Edge varies it from run to run). Callers fetch every
    fused candidate; ties are broken by point id here, so both backends and every run keep the same top."""
    return sorted(hits, key=lambda hit: (-hit.fused_score, hit.point_id))[:limit]


class VectorIndex(Protocol):
    """What the core needs from an index. Every read takes an AccessFilter: no unfiltered path."""

    backend: str

    async def prepare(self, dense_dimension: int) -> None:
        """Create the collection and its payload indexes (before any point is written)."""

    async def upsert(self, points: Sequence[IndexPoint]) -> None: ...

    async def delete(self, point_ids: Sequence[str]) -> None: ...

    async def hybrid_query(
        self, dense: list[float], sparse: SparseVector, access: AccessFilter, *, limit: int, prefetch_limit: int
    ) -> list[ScoredPoint]:
        """Dense and BM25 candidates, both pre-filtered, fused by RRF inside Qdrant."""

    async def count(self, access: AccessFilter) -> int: ...

    async def point_count(self) -> int:
        """All points, for ingest summaries and health checks (returns no content)."""

    async def read_meta(self) -> dict[str, Any] | None: ...

    async def write_meta(self, meta: dict[str, Any]) -> None: ...

    async def ping(self) -> None:
        """Raise IndexUnavailable when the index cannot serve."""

    async def close(self) -> None: ...
