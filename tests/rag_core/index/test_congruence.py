"""The two index backends answer alike: EdgeIndex (embedded Qdrant Edge) and ServerIndex (here over
qdrant-client's local ``:memory:`` mode) get the same upserts and the same filtered hybrid queries
and must return the same ids in the same order, the same counts, and never a point outside the filter.

The data has no ties inside either prefetch (random vectors; every text has its own length and holds
a query word at most once, so no two BM25 scores coincide). Equal *fused* scores still happen all the
time (RRF scores dense #3 + sparse #7 exactly like dense #7 + sparse #3), and neither backend defines
the order among them: ``assert_congruent`` checks everything that is defined (same candidates, same
scores, same order between different scores, the filter, the counts). Equal fused scores are put in
one order by the index layer (``deterministic_top``), so ``test_same_ids_in_the_same_order_including_ties``
and ``test_deletes_keep_bm25_scores_congruent`` hold strictly, and so does
``test_tied_candidates_come_back_in_one_deterministic_order``: identical chunks tie *inside* a
prefetch, where Qdrant's order decides their RRF ranks, so the client gives twins one score (their
mean, which that order cannot change) before the chunk-id tie-break (``rag_core.index.base.canonical_twins``).
"""

from __future__ import annotations

import functools
import random
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytest_asyncio

from rag_core.index.base import AccessFilter, IndexPoint, ScoredPoint, as_datetime
from rag_core.index.edge import EdgeIndex
from rag_core.index.server import ServerIndex
from rag_core.sparse import SparseVector, bm25_document, bm25_query

pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning"),
]

DIM = 16
N_POINTS = 200
GROUPS = ["employees", "managers", "contractors", "hr", "executives"]
JURISDICTIONS = ["US-ALL", "US-CA", "US-NY", "US-TX"]
VOCAB = (
    "deductible copay premium dental vision leave parental medical pharmacy claim network provider "
    "savings flexible coverage enrollment dependent spouse child orthodontia bonding commuter "
    "retirement match vesting disability wellness"
).split()
FILLER = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu"
).split()
DOCS = [f"doc-{i:02d}" for i in range(20)]
AS_OF_EDGE = date(2026, 1, 1)  # one point is effective exactly on this day


def unit(rng: np.random.Generator) -> list[float]:
    vector = rng.normal(size=DIM)
    return (vector / np.linalg.norm(vector)).tolist()  # type: ignore[no-any-return]


def point_id(i: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"congruence/{i}"))


def make_points(seed: int = 20260101) -> list[IndexPoint]:
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    points = []
    for i in range(N_POINTS):
        # No BM25 ties: a query word occurs at most once per text and every text has its own length.
        words = pick.sample(VOCAB, pick.randint(1, 8))
        words += [pick.choice(FILLER) for _ in range(8 + i - len(words))]
        pick.shuffle(words)
        text = " ".join(words)
        day = AS_OF_EDGE if i == 7 else date(2023, 1, 1) + timedelta(days=pick.randrange(0, 5 * 365))
        payload: dict[str, Any] = {
            "chunk_id": f"{DOCS[i % len(DOCS)]}_p{i // 20 + 1}_c{i % 20:02d}",
            "document_id": DOCS[i % len(DOCS)],
            "policy_id": f"policy-{i % 7}",
            "title": f"Document {i % len(DOCS)}",
            "page_number": i // 20 + 1,
            "content": text,
            "jurisdiction": pick.choice(JURISDICTIONS),
            "effective_date": as_datetime(day),
            "version": "1",
            "acl_groups": sorted(pick.sample(GROUPS, pick.choice([1, 1, 2, 3]))),
            "language": "es" if i % 9 == 0 else "en",
            "source_uri": "https://hr.example.com/doc.pdf",
            "revision_hash": "abc",
        }
        points.append(IndexPoint(point_id(i), unit(rng), bm25_document(text), payload))
    return points


def allowed(payload: dict[str, Any], access: AccessFilter) -> bool:
    """The access contract, written out independently of both backends."""
    groups = set(payload["acl_groups"])
    return (
        all(groups & group_set for group_set in access.group_sets)
        and all(payload["jurisdiction"] in js for js in access.jurisdiction_sets)
        and payload["effective_date"] <= as_datetime(access.as_of)
        and payload["document_id"] not in access.exclude_document_ids
        and (access.language is None or payload["language"] == access.language)
    )


def af(
    groups: set[str],
    jurisdictions: set[str],
    as_of: date = date(2030, 1, 1),
    *,
    exclude: set[str] = frozenset(),
    language: str | None = None,
) -> AccessFilter:
    return AccessFilter((frozenset(groups),), (frozenset(jurisdictions),), as_of, frozenset(exclude), language)


BASE = af({"employees", "managers"}, {"US-ALL", "US-CA"}, date(2026, 6, 30))
FILTERS: dict[str, AccessFilter] = {
    "employees-all": af({"employees"}, {"US-ALL"}),
    "employees-ca": af({"employees"}, {"US-ALL", "US-CA"}),
    "hr-everywhere": af({"hr"}, set(JURISDICTIONS)),
    "many-groups": af(set(GROUPS), set(JURISDICTIONS)),
    "executives-ny": af({"executives"}, {"US-NY"}),
    "as-of-edge-day": af(set(GROUPS), set(JURISDICTIONS), AS_OF_EDGE),
    "day-before-edge": af(set(GROUPS), set(JURISDICTIONS), AS_OF_EDGE - timedelta(days=1)),
    "long-ago": af(set(GROUPS), set(JURISDICTIONS), date(2023, 3, 1)),
    "before-everything": af(set(GROUPS), set(JURISDICTIONS), date(2000, 1, 1)),
    "exclusions": af(set(GROUPS), set(JURISDICTIONS), exclude={"doc-00", "doc-03", "doc-07", "doc-19"}),
    "spanish": af(set(GROUPS), set(JURISDICTIONS), language="es"),
    "english-ca": af({"employees", "contractors"}, {"US-ALL", "US-CA"}, language="en"),
    "nobody-has-this-group": af({"interns"}, set(JURISDICTIONS)),
    "base": BASE,
    "base+audience": BASE.narrowed(af({"employees"}, {"US-ALL", "US-NY"})),
    "base+two-audiences": BASE.narrowed(af({"employees", "hr"}, {"US-ALL", "US-CA"})).narrowed(
        af({"managers", "employees"}, {"US-ALL"}, date(2025, 12, 31), exclude={"doc-05"}, language="en")
    ),
    "base+later-as-of": BASE.narrowed(af(set(GROUPS), set(JURISDICTIONS), date(2029, 1, 1))),
}

QUERIES = [
    "dental deductible",
    "parental bonding leave",
    "retirement match vesting schedule",
    "orthodontia for my child",
    "spouse",
    "the of and",
    "",
    "unrelated words like zebra",
]


def random_filters(count: int, seed: int = 7) -> list[AccessFilter]:
    pick = random.Random(seed)
    out = []
    for _ in range(count):
        access = af(
            set(pick.sample(GROUPS, pick.randint(1, 3))),
            set(pick.sample(JURISDICTIONS, pick.randint(1, 3))),
            date(2023, 1, 1) + timedelta(days=pick.randrange(0, 5 * 365)),
            exclude=set(pick.sample(DOCS, pick.choice([0, 0, 1, 3]))),
            language=pick.choice([None, None, "en", "es"]),
        )
        if pick.random() < 0.4:
            access = access.narrowed(
                af(
                    set(pick.sample(GROUPS, pick.randint(1, 4))),
                    set(pick.sample(JURISDICTIONS, pick.randint(1, 4))),
                )
            )
        out.append(access)
    return out


@pytest.fixture(scope="module", autouse=True)
def fast_local_datetimes() -> Iterator[None]:
    """qdrant-client's local mode re-parses every stored datetime with strptime on every filter check,
    which dominates this module's runtime; memoising the pure parser changes nothing else."""
    from qdrant_client.local import datetime_utils

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(datetime_utils, "parse", functools.lru_cache(maxsize=4096)(datetime_utils.parse))
        yield


@dataclass
class Backends:
    edge: EdgeIndex
    server: ServerIndex
    points: dict[str, IndexPoint]

    async def both(
        self,
        dense: list[float],
        sparse: SparseVector,
        access: AccessFilter,
        *,
        limit: int = 10,
        prefetch_limit: int = 40,
    ) -> tuple[list[ScoredPoint], list[ScoredPoint]]:
        a = await self.edge.hybrid_query(dense, sparse, access, limit=limit, prefetch_limit=prefetch_limit)
        b = await self.server.hybrid_query(dense, sparse, access, limit=limit, prefetch_limit=prefetch_limit)
        return a, b

    async def upsert(self, points: list[IndexPoint]) -> None:
        await self.edge.upsert(points)
        await self.server.upsert(points)
        self.points.update({p.point_id: p for p in points})

    async def delete(self, ids: list[str]) -> None:
        await self.edge.delete(ids)
        await self.server.delete(ids)
        for i in ids:
            self.points.pop(i, None)


async def open_backends(directory: Path, points: list[IndexPoint]) -> Backends:
    edge = EdgeIndex(directory)
    server = ServerIndex.connect(":memory:", None, "t")
    for index in (edge, server):
        await index.prepare(DIM)
        await index.upsert(points)
    return Backends(edge, server, {p.point_id: p for p in points})


@pytest_asyncio.fixture(scope="module")
async def backends(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Backends]:
    opened = await open_backends(tmp_path_factory.mktemp("congruence") / "index", make_points())
    yield opened
    await opened.edge.aclose()
    await opened.server.aclose()


def query_vector(text: str, seed: int) -> tuple[list[float], SparseVector]:
    return unit(np.random.default_rng(seed)), bm25_query(text)


def tie_groups(hits: list[ScoredPoint]) -> list[set[str]]:
    """Ids grouped by equal fused score, best first (RRF ties mirrored ranks: dense #3 + sparse #7 ==
    dense #7 + sparse #3; the order inside a group is not defined by Qdrant)."""
    groups: list[set[str]] = []
    last: float | None = None
    for hit in hits:
        if last is None or not np.isclose(hit.fused_score, last, rtol=1e-6, atol=0):
            groups.append(set())
        groups[-1].add(hit.point_id)
        last = hit.fused_score
    return groups


def canonical(hits: list[ScoredPoint]) -> list[str]:
    return [h.point_id for h in sorted(hits, key=lambda h: (-round(h.fused_score, 7), h.point_id))]


async def assert_congruent(
    b: Backends,
    access: AccessFilter,
    dense: list[float],
    sparse: SparseVector,
    label: str,
    *,
    limit: int = 10,
    prefetch_limit: int = 40,
) -> list[str]:
    """Everything both backends define must agree; only the order among equal scores may differ."""
    edge_hits, server_hits = await b.both(dense, sparse, access, limit=limit, prefetch_limit=prefetch_limit)
    edge_ids = [h.point_id for h in edge_hits]

    # Every fused candidate (2 x prefetch_limit bounds them): same ids, same scores.
    everything = 2 * prefetch_limit
    edge_all, server_all = await b.both(dense, sparse, access, limit=everything, prefetch_limit=prefetch_limit)
    assert canonical(edge_all) == canonical(server_all), label
    by_id = {h.point_id: h.fused_score for h in server_all}
    for hit in edge_all:
        assert hit.fused_score == pytest.approx(by_id[hit.point_id], rel=1e-5), label

    # The top `limit`: same scores position by position, and the same ids in the same order except
    # inside a group of equal scores (and at the cut, any members of the tied group may make it).
    assert [h.fused_score for h in edge_hits] == pytest.approx([h.fused_score for h in server_hits], rel=1e-5), label
    for hits in (edge_hits, server_hits):
        scores = [h.fused_score for h in hits]
        assert scores == sorted(scores, reverse=True), label
    edge_groups, server_groups = tie_groups(edge_hits), tie_groups(server_hits)
    assert edge_groups[:-1] == server_groups[:-1], label
    if edge_groups:
        full_groups = tie_groups(sorted(edge_all, key=lambda h: -h.fused_score))
        boundary = next(g for g in full_groups if edge_groups[-1] <= g)
        assert edge_groups[-1] <= boundary and server_groups[-1] <= boundary, label

    # The filter: nothing outside it, and nothing it allows is missing from the count.
    truth = {pid for pid, p in b.points.items() if allowed(p.payload, access)}
    assert {h.point_id for h in edge_all + server_all} <= truth, f"{label}: a point outside the filter came back"
    assert len(edge_hits) == len(server_hits) == min(limit, len(truth), len(edge_all)), label
    for hit in edge_all + server_all:
        assert allowed(hit.payload, access), label
        assert hit.payload == b.points[hit.point_id].payload
        assert np.allclose(hit.dense, b.points[hit.point_id].dense, atol=1e-5)
    edge_count, server_count = await b.edge.count(access), await b.server.count(access)
    assert edge_count == server_count == len(truth), label
    return edge_ids


async def test_point_counts(backends: Backends) -> None:
    assert await backends.edge.point_count() == await backends.server.point_count() == N_POINTS


@pytest.mark.parametrize("name", list(FILTERS))
async def test_filter_matrix(backends: Backends, name: str) -> None:
    access = FILTERS[name]
    offset = list(FILTERS).index(name)
    for n in range(offset, offset + 2):  # two of the queries per filter, rotating: all are used
        text = QUERIES[n % len(QUERIES)]
        dense, sparse = query_vector(text, n)
        await assert_congruent(backends, access, dense, sparse, f"{name} / {text!r}")


async def test_filter_matrix_is_not_vacuous(backends: Backends) -> None:
    sizes = {
        name: sum(allowed(p.payload, access) for p in backends.points.values()) for name, access in FILTERS.items()
    }
    assert sizes["nobody-has-this-group"] == sizes["before-everything"] == 0
    assert sizes["many-groups"] == N_POINTS
    assert sizes["as-of-edge-day"] == sizes["day-before-edge"] + 1  # the point effective that very day
    assert 0 < sizes["spanish"] < sizes["many-groups"]
    assert sizes["base+two-audiences"] < sizes["base+audience"] < sizes["base"]
    assert sum(0 < size < 10 for size in sizes.values()) >= 1  # a filter with fewer hits than the limit
    assert sum(size > 40 for size in sizes.values()) >= 3  # and ones where the prefetch limit bites


async def test_random_filters_never_leak(backends: Backends) -> None:
    filters = random_filters(30)
    for n, access in enumerate(filters):
        text = " ".join(random.Random(n).sample(VOCAB, 1 + n % 3))
        dense, sparse = query_vector(text, 1000 + n)
        await assert_congruent(backends, access, dense, sparse, f"random filter {n}: {access}", limit=1 + n % 15)


async def test_query_equal_to_a_stored_vector_finds_it_first(backends: Backends) -> None:
    target = backends.points[point_id(42)]
    access = af(set(target.payload["acl_groups"]), {target.payload["jurisdiction"]})
    ids = await assert_congruent(backends, access, target.dense, bm25_query(target.payload["content"]), "self")
    assert ids[0] == target.point_id


async def test_updates_stay_congruent(tmp_path: Path) -> None:
    b = await open_backends(tmp_path / "index", make_points(seed=99))
    try:
        originals = list(b.points.values())
        # A document moves to HR only (payload update); another one's text changes (new sparse vector).
        moved = [
            IndexPoint(p.point_id, p.dense, p.sparse, {**p.payload, "acl_groups": ["hr"], "version": "2"})
            for p in originals
            if p.payload["document_id"] == "doc-04"
        ]
        rewritten = [
            IndexPoint(
                p.point_id,
                p.dense,
                bm25_document("dental deductible " + p.payload["content"]),
                {**p.payload, "content": "dental deductible " + p.payload["content"]},
            )
            for p in originals
            if p.payload["document_id"] == "doc-11"
        ]
        await b.upsert(moved + rewritten)
        assert await b.edge.point_count() == await b.server.point_count() == N_POINTS
        for name in ("employees-all", "hr-everywhere", "many-groups", "base+audience"):
            for n, text in enumerate(QUERIES[:2]):
                dense, sparse = query_vector(text, n)
                ids = await assert_congruent(b, FILTERS[name], dense, sparse, f"after update: {name}")
                if name in ("employees-all", "base+audience"):
                    assert not any(b.points[i].payload["document_id"] == "doc-04" for i in ids)
    finally:
        await b.edge.aclose()
        await b.server.aclose()


async def test_deleted_points_never_come_back(tmp_path: Path) -> None:
    b = await open_backends(tmp_path / "index", make_points(seed=99))
    try:
        gone = [p.point_id for p in b.points.values() if p.payload["document_id"] in ("doc-09", "doc-13")]
        await b.delete(gone)
        assert await b.edge.point_count() == await b.server.point_count() == N_POINTS - 20
        for name in ("many-groups", "hr-everywhere", "base"):
            for n, text in enumerate(QUERIES[:3]):
                dense, sparse = query_vector(text, n)
                for hits in await b.both(dense, sparse, FILTERS[name], limit=80, prefetch_limit=40):
                    assert not {h.point_id for h in hits} & set(gone)
            assert await b.edge.count(FILTERS[name]) == await b.server.count(FILTERS[name])
    finally:
        await b.edge.aclose()
        await b.server.aclose()


async def test_deletes_keep_bm25_scores_congruent(tmp_path: Path) -> None:
    b = await open_backends(tmp_path / "index", make_points(seed=99))
    try:
        await b.delete([p.point_id for p in b.points.values() if p.payload["document_id"] == "doc-09"])
        for n, text in enumerate(QUERIES[:4]):
            dense, sparse = query_vector(text, n)
            await assert_congruent(b, FILTERS["many-groups"], dense, sparse, f"after delete: {text!r}")
    finally:
        await b.edge.aclose()
        await b.server.aclose()


async def test_meta_round_trip_on_both(tmp_path: Path) -> None:
    edge = EdgeIndex(tmp_path / "index")
    server = ServerIndex.connect(":memory:", None, "t")
    meta = {"schema": 1, "embedding_model": "m", "dimension": DIM, "documents": {"a": {"chunk_ids": ["x"]}}}
    for index in (edge, server):
        assert await index.read_meta() is None
        await index.prepare(DIM)
        await index.write_meta(meta)
        assert await index.read_meta() == meta
        assert await index.point_count() == 0  # the meta record is not a searchable point
    await edge.aclose()
    await server.aclose()


async def test_same_ids_in_the_same_order_including_ties(backends: Backends) -> None:
    for name, access in FILTERS.items():
        for n, text in enumerate(QUERIES):
            dense, sparse = query_vector(text, n)
            first, server_hits = await backends.both(dense, sparse, access, limit=10)
            again, _ = await backends.both(dense, sparse, access, limit=10)
            assert [h.point_id for h in first] == [h.point_id for h in again], f"edge not repeatable: {name}"
            assert [h.point_id for h in first] == [h.point_id for h in server_hits], f"{name} / {text!r}"


async def test_mirrored_rank_ties_are_common(backends: Backends) -> None:
    """Why the tie rule matters: with RRF, equal scores are the norm, not a corner case."""
    tied = 0
    for n, text in enumerate(QUERIES):
        dense, sparse = query_vector(text, n)
        _, hits = await backends.both(dense, sparse, FILTERS["many-groups"], limit=10)  # server: repeatable
        tied += sum(len(g) > 1 for g in tie_groups(hits))
    assert tied >= 2


def duplicate_points() -> list[IndexPoint]:
    """Thirty points in ten groups of three identical chunks (same vector, same text): the same
    boilerplate paragraph in several documents."""
    points = []
    for i in range(30):
        group = i // 3
        text = " ".join(["dental coverage rule"] * (group + 1))
        payload = {
            "chunk_id": f"doc{i}_p1_c00",
            "document_id": f"doc{i}",
            "acl_groups": ["employees"],
            "jurisdiction": "US-ALL",
            "language": "en",
            "effective_date": as_datetime(date(2025, 1, 1)),
        }
        points.append(IndexPoint(point_id(1000 + i), unit(np.random.default_rng(group)), bm25_document(text), payload))
    return points


async def test_tied_candidates_come_back_in_one_deterministic_order(tmp_path: Path) -> None:
    b = await open_backends(tmp_path / "index", duplicate_points())
    try:
        access = af({"employees"}, {"US-ALL"})
        dense, sparse = query_vector("dental coverage", 3)
        edge_orders, server_orders = set(), set()
        for _ in range(30):
            edge_hits, server_hits = await b.both(dense, sparse, access, limit=9, prefetch_limit=30)
            edge_orders.add(tuple(h.point_id for h in edge_hits))
            server_orders.add(tuple(h.point_id for h in server_hits))
        assert len(edge_orders) == 1, f"Qdrant Edge gave {len(edge_orders)} different orders for one query"
        assert edge_orders == server_orders
    finally:
        await b.edge.aclose()
        await b.server.aclose()


async def test_tied_candidates_still_respect_the_filter_and_agree_as_sets_of_scores(tmp_path: Path) -> None:
    """What does hold with ties: the same multiset of fused scores, and the filter."""
    points = duplicate_points()
    b = await open_backends(tmp_path / "index", points)
    try:
        access = af({"employees"}, {"US-ALL"}, exclude={"doc0", "doc4", "doc8"})
        dense, sparse = query_vector("dental coverage", 3)
        edge_hits, server_hits = await b.both(dense, sparse, access, limit=9, prefetch_limit=30)
        assert len(edge_hits) == len(server_hits) == 9
        assert not {h.payload["document_id"] for h in edge_hits + server_hits} & {"doc0", "doc4", "doc8"}
        # (Even the fused scores differ here: a tie broken differently inside a prefetch shifts ranks.)
        assert await b.edge.count(access) == await b.server.count(access) == 27
    finally:
        await b.edge.aclose()
        await b.server.aclose()
