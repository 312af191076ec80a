"""Late interaction answers alike on both backends: the filtered dense + BM25 candidates, fused by RRF,
rescored by MaxSim against the question's token vectors in the same query, on EdgeIndex (Qdrant Edge)
and ServerIndex (qdrant-client's local ``:memory:`` mode).

Token vectors come from the test's hashed word vectors (``HashTokenEncoder``) plus a little noise per
point, so no two candidates' MaxSim scores coincide unless a test makes them (identical chunks). The
data, filters and queries are those of ``test_congruence``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import pytest_asyncio

from rag_core.errors import IndexModelMismatch
from rag_core.index.base import AccessFilter, IndexPoint, ScoredPoint, point_id_for, token_vectors
from rag_core.index.edge import EdgeIndex
from rag_core.index.server import ServerIndex
from rag_core.sparse import SparseVector, bm25_document
from tests.fakes.embedder import HashTokenEncoder
from tests.rag_core.index.test_congruence import (
    DIM,
    FILTERS,
    QUERIES,
    VOCAB,
    af,
    allowed,
    duplicate_points,
    fast_local_datetimes,  # noqa: F401  (module fixture: qdrant-client's local datetime parsing, memoised)
    make_points,
    point_id,
    query_vector,
    random_filters,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning"),
]

LATE_DIM = 32
ENCODER = HashTokenEncoder(LATE_DIM)


def with_tokens(points: list[IndexPoint], noise: float = 0.05) -> list[IndexPoint]:
    """Each point's text as hashed word vectors, nudged by noise of its own (no accidental ties)."""
    out = []
    for n, point in enumerate(points):
        words = ENCODER.encode_documents([point.payload.get("content", point.payload["chunk_id"])])[0]
        jitter = np.random.default_rng(n).normal(scale=noise, size=words.shape) if noise else 0.0
        out.append(IndexPoint(point.point_id, point.dense, point.sparse, point.payload, token_vectors(words + jitter)))
    return out


def query_tokens(text: str) -> list[list[float]]:
    return token_vectors(ENCODER.encode_query(text))


def max_sim(query: list[list[float]], document: list[list[float]]) -> float:
    """MaxSim written out independently of both backends."""
    return float((np.asarray(query) @ np.asarray(document).T).max(axis=1).sum())


@dataclass
class LateBackends:
    edge: EdgeIndex
    server: ServerIndex
    points: dict[str, IndexPoint]

    async def both(
        self,
        dense: list[float],
        sparse: SparseVector,
        access: AccessFilter,
        *,
        late: list[list[float]] | None,
        limit: int = 10,
        prefetch_limit: int = 40,
    ) -> tuple[list[ScoredPoint], list[ScoredPoint]]:
        kwargs = {"limit": limit, "prefetch_limit": prefetch_limit, "late": late}
        return (
            await self.edge.hybrid_query(dense, sparse, access, **kwargs),  # type: ignore[arg-type]
            await self.server.hybrid_query(dense, sparse, access, **kwargs),
        )  # type: ignore[arg-type]

    async def aclose(self) -> None:
        await self.edge.aclose()
        await self.server.aclose()


async def open_late_backends(directory: Path, points: list[IndexPoint]) -> LateBackends:
    edge = EdgeIndex(directory)
    server = ServerIndex.connect(":memory:", None, "t")
    for index in (edge, server):
        await index.prepare(DIM, LATE_DIM)
        await index.upsert(points)
    return LateBackends(edge, server, {p.point_id: p for p in points})


@pytest_asyncio.fixture(scope="module")
async def late_backends(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[LateBackends]:
    opened = await open_late_backends(tmp_path_factory.mktemp("late") / "index", with_tokens(make_points()))
    yield opened
    await opened.aclose()


async def assert_late_congruent(
    b: LateBackends,
    access: AccessFilter,
    text: str,
    seed: int,
    label: str,
    *,
    limit: int = 10,
    prefetch_limit: int = 40,
) -> list[ScoredPoint]:
    dense, sparse = query_vector(text, seed)
    tokens = query_tokens(text)
    everything = 2 * prefetch_limit
    edge_all, server_all = await b.both(
        dense, sparse, access, late=tokens, limit=everything, prefetch_limit=prefetch_limit
    )
    edge_fused, server_fused = await b.both(
        dense, sparse, access, late=None, limit=everything, prefetch_limit=prefetch_limit
    )

    # The late stage rescored every fused candidate and dropped none, on both backends.
    assert {h.point_id for h in edge_all} == {h.point_id for h in edge_fused}, label
    assert {h.point_id for h in server_all} == {h.point_id for h in server_fused}, label
    # Same ids in the same order, same MaxSim scores, and those are MaxSim of the stored vectors.
    assert [h.point_id for h in edge_all] == [h.point_id for h in server_all], label
    assert [h.late_score for h in edge_all] == pytest.approx([h.late_score for h in server_all], rel=1e-5), label
    for hit in edge_all:
        assert hit.late_score == pytest.approx(max_sim(tokens, b.points[hit.point_id].late or []), rel=1e-4), label
    # Best MaxSim first, equal scores by chunk id.
    keys = [(-(h.late_score or 0.0), h.payload["chunk_id"]) for h in edge_all]
    assert keys == sorted(keys), label
    # Each candidate keeps its RRF score (from the fused request of the same batch).
    for late_hits, fused_hits in ((edge_all, edge_fused), (server_all, server_fused)):
        fused = {h.point_id: h.fused_score for h in fused_hits}
        for hit in late_hits:
            assert hit.fused_score == pytest.approx(fused[hit.point_id], rel=1e-6), label
    # The filter holds at every level: nothing outside it, payloads and dense vectors intact.
    for hit in edge_all + server_all:
        assert allowed(hit.payload, access), f"{label}: a point outside the filter came back"
        assert hit.payload == b.points[hit.point_id].payload
        assert np.allclose(hit.dense, b.points[hit.point_id].dense, atol=1e-5)

    # The top `limit` is the head of that order.
    edge_top, server_top = await b.both(dense, sparse, access, late=tokens, limit=limit, prefetch_limit=prefetch_limit)
    assert (
        [h.point_id for h in edge_top] == [h.point_id for h in server_top] == [h.point_id for h in edge_all[:limit]]
    ), label
    return edge_all


@pytest.mark.parametrize("name", list(FILTERS))
async def test_late_filter_matrix(late_backends: LateBackends, name: str) -> None:
    offset = list(FILTERS).index(name)
    for n in range(offset, offset + 2):  # two of the queries per filter, rotating: all are used
        text = QUERIES[n % len(QUERIES)]
        await assert_late_congruent(late_backends, FILTERS[name], text, n, f"{name} / {text!r}")


async def test_late_random_filters_never_leak(late_backends: LateBackends) -> None:
    for n, access in enumerate(random_filters(30)):
        text = " ".join(VOCAB[(7 * n + i) % len(VOCAB)] for i in range(1 + n % 3))
        await assert_late_congruent(
            late_backends, access, text, 1000 + n, f"random filter {n}: {access}", limit=1 + n % 15
        )


async def test_maxsim_reorders_the_fused_candidates(late_backends: LateBackends) -> None:
    """Not vacuous: the late stage changes the fused order, and ranks a chunk holding every question
    word first (the hashed word vectors make MaxSim count the question's words)."""
    reordered = 0
    for n, text in enumerate(QUERIES[:4]):
        hits = await assert_late_congruent(late_backends, FILTERS["many-groups"], text, n, text, limit=20)
        fused = sorted(hits, key=lambda h: (-h.fused_score, h.payload["chunk_id"]))
        reordered += [h.point_id for h in hits] != [h.point_id for h in fused]
        words = set(text.split())
        assert words <= set(hits[0].payload["content"].split()) or not any(
            words <= set(h.payload["content"].split()) for h in hits
        ), text
    assert reordered >= 3


async def test_the_best_token_match_outside_the_filter_never_comes_back(late_backends: LateBackends) -> None:
    """The query's token vectors equal a point's own; MaxSim would rank it first, but the asker may not see it."""
    target = late_backends.points[point_id(42)]
    tokens = target.late
    assert tokens is not None
    dense = target.dense
    sparse = bm25_document(target.payload["content"])
    everyone = FILTERS["many-groups"]
    first, _ = await late_backends.both(dense, sparse, everyone, late=tokens, limit=5)
    assert first[0].point_id == target.point_id
    others = [
        g for g in ("employees", "managers", "contractors", "hr", "executives") if g not in target.payload["acl_groups"]
    ]
    blocked = af(set(others), {"US-ALL", "US-CA", "US-NY", "US-TX"})
    for hits in await late_backends.both(dense, sparse, blocked, late=tokens, limit=80):
        assert target.point_id not in {h.point_id for h in hits}
        assert all(allowed(h.payload, blocked) for h in hits)


async def test_equal_maxsim_scores_are_ordered_by_chunk_id(tmp_path: Path) -> None:
    """Identical chunks score identically; both backends, every run, order them by chunk id."""
    same = token_vectors(ENCODER.encode_documents(["dental coverage rule"])[0])
    points = [IndexPoint(p.point_id, p.dense, p.sparse, p.payload, same) for p in duplicate_points()]
    b = await open_late_backends(tmp_path / "index", points)
    try:
        access = af({"employees"}, {"US-ALL"})
        dense, sparse = query_vector("dental coverage", 3)
        tokens = query_tokens("dental coverage rule")
        orders = set()
        for _ in range(20):
            edge_hits, server_hits = await b.both(dense, sparse, access, late=tokens, limit=30, prefetch_limit=30)
            orders.add(tuple(h.point_id for h in edge_hits))
            orders.add(tuple(h.point_id for h in server_hits))
        assert len(orders) == 1
        hits = edge_hits
        assert len(hits) == 30
        scores = [h.late_score for h in hits]
        assert len(set(scores)) == 1  # all tie: every chunk holds the same three words
        keys = [(-(h.late_score or 0.0), h.payload["chunk_id"]) for h in hits]
        assert keys == sorted(keys)
    finally:
        await b.aclose()


async def test_updates_and_deletes_stay_congruent(tmp_path: Path) -> None:
    b = await open_late_backends(tmp_path / "index", with_tokens(make_points(seed=99)))
    try:
        originals = list(b.points.values())
        rewritten = with_tokens(
            [
                IndexPoint(
                    p.point_id,
                    p.dense,
                    bm25_document("dental deductible " + p.payload["content"]),
                    {**p.payload, "content": "dental deductible " + p.payload["content"]},
                )
                for p in originals
                if p.payload["document_id"] == "doc-11"
            ],
            noise=0.01,
        )
        gone = [p.point_id for p in originals if p.payload["document_id"] == "doc-09"]
        for index in (b.edge, b.server):
            await index.upsert(rewritten)
            await index.delete(gone)
        b.points.update({p.point_id: p for p in rewritten})
        for point in gone:
            b.points.pop(point)
        for n, text in enumerate(QUERIES[:3]):
            hits = await assert_late_congruent(b, FILTERS["many-groups"], text, n, f"after update: {text!r}")
            assert not {h.point_id for h in hits} & set(gone)
    finally:
        await b.aclose()


async def test_an_index_without_token_vectors_refuses_a_late_query(tmp_path: Path) -> None:
    edge = EdgeIndex(tmp_path / "index")
    server = ServerIndex.connect(":memory:", None, "t")
    points = make_points()[:20]
    try:
        for index in (edge, server):
            await index.prepare(DIM)  # built the old way: dense and BM25 only
            await index.upsert(points)
            dense, sparse = query_vector("dental", 1)
            assert await index.hybrid_query(dense, sparse, FILTERS["many-groups"], limit=5, prefetch_limit=5)
            with pytest.raises(IndexModelMismatch, match="LATE_INTERACTION=none"):
                await index.hybrid_query(
                    dense, sparse, FILTERS["many-groups"], limit=5, prefetch_limit=5, late=query_tokens("dental")
                )
    finally:
        await edge.aclose()
        await server.aclose()


async def test_stored_token_vectors_are_read_back_under_the_filter(tmp_path: Path) -> None:
    """``token_vectors_of`` returns, on both backends, exactly the vectors stored for the chunks asked
    (what MaxSim scores), and only for chunks the asker's filter lets through: a chunk outside it is
    missing from the answer though asked for by id (the mutation "fetch by id, no filter" returns it)."""
    points = [  # ingest's point ids: UUIDv5 of the chunk id
        IndexPoint(point_id_for(p.payload["chunk_id"]), p.dense, p.sparse, p.payload, p.late)
        for p in with_tokens(make_points()[:60])
    ]
    b = await open_late_backends(tmp_path / "index", points)
    by_chunk = {p.payload["chunk_id"]: p for p in points}
    try:
        asked = [*by_chunk, "no-such-chunk_p1_c00"]
        partly = 0
        for name, access in FILTERS.items():
            visible = sorted(c for c in by_chunk if allowed(by_chunk[c].payload, access))
            partly += 0 < len(visible) < len(by_chunk)
            for index in (b.edge, b.server):
                found = await index.token_vectors_of(asked, access)
                assert sorted(found) == visible, name
                for chunk_id, vectors in found.items():
                    assert vectors.dtype == np.float32
                    assert np.array_equal(vectors, np.asarray(by_chunk[chunk_id].late, dtype=np.float32)), name
        assert partly >= 5  # not vacuous: most filters keep some of the chunks out
        visible = sorted(c for c in by_chunk if allowed(by_chunk[c].payload, FILTERS["many-groups"]))
        target = by_chunk[visible[0]]
        others = {"employees", "managers", "contractors", "hr", "executives"} - set(target.payload["acl_groups"])
        blocked = af(others, {"US-ALL", "US-CA", "US-NY", "US-TX"})
        for index in (b.edge, b.server):
            assert target.payload["chunk_id"] not in await index.token_vectors_of([target.payload["chunk_id"]], blocked)
            assert await index.token_vectors_of([], blocked) == {}
    finally:
        await b.aclose()
