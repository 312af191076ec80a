"""Spies and scripted stand-ins for the pipeline's collaborators (index, generator)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rag_core.errors import GenerationFailed
from rag_core.generation.base import GenerationResult, Generator
from rag_core.index.base import AccessFilter, IndexPoint, ScoredPoint, VectorIndex
from rag_core.reading.reader import Reading
from rag_core.sparse import SparseVector
from rag_core.types import Candidate


@dataclass
class IndexQuery:
    access: AccessFilter
    limit: int
    prefetch_limit: int
    results: list[ScoredPoint]
    late: list[list[float]] | None = None

    def contents(self) -> list[str]:
        return [str(p.payload.get("content", "")) for p in self.results]

    def document_ids(self) -> set[str]:
        return {str(p.payload.get("document_id")) for p in self.results}


class SpyIndex:
    """Delegates to a real index and records every read that can return document content."""

    def __init__(self, inner: VectorIndex) -> None:
        self.inner = inner
        self.backend = inner.backend
        self.queries: list[IndexQuery] = []
        self.counts: list[AccessFilter] = []
        self.meta_reads = 0
        self.vector_reads: list[tuple[list[str], AccessFilter]] = []

    # Reads that touch documents --------------------------------------------------------------
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
        # No query without a proper filter, whatever the caller did.
        assert isinstance(access, AccessFilter), f"hybrid_query without an AccessFilter: {access!r}"
        assert access.group_sets and all(access.group_sets), "hybrid_query with an empty group set"
        results = await self.inner.hybrid_query(
            dense, sparse, access, limit=limit, prefetch_limit=prefetch_limit, late=late
        )
        self.queries.append(IndexQuery(access, limit, prefetch_limit, results, late))
        return results

    async def count(self, access: AccessFilter) -> int:
        self.counts.append(access)
        return await self.inner.count(access)

    async def token_vectors_of(self, chunk_ids: Sequence[str], access: AccessFilter) -> dict[str, np.ndarray]:
        assert isinstance(access, AccessFilter), f"token_vectors_of without an AccessFilter: {access!r}"
        assert access.group_sets and all(access.group_sets), "token_vectors_of with an empty group set"
        self.vector_reads.append((list(chunk_ids), access))
        return await self.inner.token_vectors_of(chunk_ids, access)

    @property
    def touched(self) -> int:
        """How many content reads (queries, counts and token-vector reads) happened."""
        return len(self.queries) + len(self.counts) + len(self.vector_reads)

    def returned_contents(self) -> list[str]:
        return [content for q in self.queries for content in q.contents()]

    def returned_document_ids(self) -> set[str]:
        return {d for q in self.queries for d in q.document_ids()}

    # Pass-through ----------------------------------------------------------------------------
    async def prepare(self, dense_dimension: int, late_dimension: int | None = None) -> None:
        await self.inner.prepare(dense_dimension, late_dimension)

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        await self.inner.upsert(points)

    async def delete(self, point_ids: Sequence[str]) -> None:
        await self.inner.delete(point_ids)

    async def point_count(self) -> int:
        return await self.inner.point_count()

    async def read_meta(self) -> dict[str, Any] | None:
        self.meta_reads += 1
        return await self.inner.read_meta()

    async def write_meta(self, meta: dict[str, Any]) -> None:
        await self.inner.write_meta(meta)

    async def ping(self) -> None:
        await self.inner.ping()

    async def aclose(self) -> None:
        """The shared session index outlives every per-test pipeline: never close it from here."""


@dataclass
class GenerateCall:
    question: str
    context: list[Candidate]
    history: list[str]


@dataclass
class SpyGenerator:
    """Records what reached the generator (the prompt context), then delegates."""

    inner: Generator
    calls: list[GenerateCall] = field(default_factory=list)

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    async def generate(
        self,
        question: str,
        context: Sequence[Candidate],
        *,
        history: Sequence[str] = (),
        reading: Reading | None = None,
    ) -> GenerationResult:
        self.calls.append(GenerateCall(question, list(context), list(history)))
        return await self.inner.generate(question, context, history=history, reading=reading)


class ScriptedGenerator:
    """Returns whatever ``script(question, context)`` says: for validator paths through the pipeline."""

    model_name = "scripted"

    def __init__(self, script: Callable[[str, Sequence[Candidate]], str]) -> None:
        self.script = script
        self.calls: list[GenerateCall] = []

    async def generate(
        self,
        question: str,
        context: Sequence[Candidate],
        *,
        history: Sequence[str] = (),
        reading: Reading | None = None,
    ) -> GenerationResult:
        self.calls.append(GenerateCall(question, list(context), list(history)))
        return GenerationResult(text=self.script(question, context), model=self.model_name)


class FailingGenerator:
    model_name = "failing"

    def __init__(self) -> None:
        self.calls = 0

    async def generate(
        self,
        question: str,
        context: Sequence[Candidate],
        *,
        history: Sequence[str] = (),
        reading: Reading | None = None,
    ) -> GenerationResult:
        self.calls += 1
        raise GenerationFailed("provider timed out after 2 retries")
