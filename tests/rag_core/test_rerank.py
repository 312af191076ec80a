"""Rerank stage: the fused order, the local lexical-dense blend, and Cohere Rerank against a local fake."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from rag_core.pipeline import build_reranker
from rag_core.rerank import CohereReranker, FusedOrder, LateDenseBlend, LexicalDenseReranker
from rag_core.settings import CoreSettings
from tests.rag_core.candidates import candidate

CANDIDATES = [
    candidate("plan_p1_c00", "Specialist visits cost a $50 copay.", dense=0.62),
    candidate("plan_p2_c00", "The PPO individual deductible is $1,250 per year.", dense=0.60),
    candidate("plan_p3_c00", "Vision exams are covered once a year.", dense=0.61),
]


@pytest.mark.unit
async def test_fused_order_is_kept() -> None:
    ranked = await FusedOrder().rerank("What is the PPO deductible?", CANDIDATES)
    assert [c.chunk_id for c in ranked] == [c.chunk_id for c in CANDIDATES]


@pytest.mark.unit
async def test_the_late_blend_orders_by_maxsim_plus_a_share_of_the_cosine() -> None:
    scored = [
        CANDIDATES[0].model_copy(update={"chunk_id": "b", "late_score": 0.80, "dense_score": 0.50}),
        CANDIDATES[0].model_copy(update={"chunk_id": "a", "late_score": 0.81, "dense_score": 0.40}),
        CANDIDATES[0].model_copy(update={"chunk_id": "c", "late_score": 0.70, "dense_score": 0.80}),
        CANDIDATES[0].model_copy(update={"chunk_id": "d", "late_score": 0.80, "dense_score": 0.50}),
    ]
    ranked = await LateDenseBlend(dense_weight=0.25).rerank("q", scored)
    # b and d tie at 0.925 (ordered by chunk id), ahead of a (0.91: the better MaxSim, a weaker
    # cosine) and c (0.90: the best cosine, a weak MaxSim).
    assert [c.chunk_id for c in ranked] == ["b", "d", "a", "c"]
    assert ranked[0].rerank_score == pytest.approx(0.925)


@pytest.mark.unit
async def test_the_lexical_blend_can_weigh_the_maxsim_score() -> None:
    """late_weight adds the MaxSim score (per question token) to the blend: a large weight follows it."""
    scored = [c.model_copy(update={"late_score": 0.9 - 0.1 * i}) for i, c in enumerate(reversed(CANDIDATES))]
    ranked = await LexicalDenseReranker(late_weight=100.0).rerank("What is the PPO deductible?", scored)
    assert [c.chunk_id for c in ranked] == [c.chunk_id for c in scored]


@pytest.mark.unit
async def test_lexical_blend_lifts_the_chunk_that_names_what_was_asked() -> None:
    ranked = await LexicalDenseReranker().rerank("What is the PPO deductible?", CANDIDATES)
    assert ranked[0].chunk_id == "plan_p2_c00"
    assert all(c.rerank_score is not None for c in ranked)
    assert sorted(c.chunk_id for c in ranked) == sorted(c.chunk_id for c in CANDIDATES)  # reorders, never drops


@pytest.mark.unit
def test_the_reranker_is_chosen_by_settings() -> None:
    # The default blends MaxSim with the cosine (late interaction on); without it, the lexical blend.
    assert isinstance(build_reranker(CoreSettings(_env_file=None, LATE_INTERACTION="colbert")), LateDenseBlend)
    assert isinstance(build_reranker(CoreSettings(_env_file=None, RERANKER="late")), LateDenseBlend)
    assert isinstance(build_reranker(CoreSettings(_env_file=None, LATE_INTERACTION="none")), LexicalDenseReranker)
    assert isinstance(build_reranker(CoreSettings(_env_file=None, RERANKER="lexical")), LexicalDenseReranker)
    assert isinstance(build_reranker(CoreSettings(_env_file=None, RERANKER="none")), FusedOrder)
    assert isinstance(build_reranker(CoreSettings(_env_file=None, COHERE_API_KEY="co-key")), CohereReranker)


class FakeCohere:
    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.status = 200

    async def rerank(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append((request.headers.get("Authorization", ""), body))
        if self.status != 200:
            return web.json_response({"message": "boom"}, status=self.status)
        # Most relevant first: the document that mentions "deductible".
        order = sorted(range(len(body["documents"])), key=lambda i: "deductible" not in body["documents"][i])
        return web.json_response(
            {"results": [{"index": i, "relevance_score": 1.0 - n / 10} for n, i in enumerate(order)]}
        )


@pytest.fixture
async def cohere() -> Any:
    fake = FakeCohere()
    app = web.Application()
    app.router.add_post("/v2/rerank", fake.rerank)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        yield fake, str(server.make_url("/v2"))
    finally:
        await server.close()


# The fake Cohere server is a fixture on the session loop: these tests must run on that loop too.
@pytest.mark.integration
@pytest.mark.asyncio(loop_scope="session")
async def test_cohere_orders_by_its_relevance_scores(cohere: tuple[FakeCohere, str]) -> None:
    fake, base_url = cohere
    reranker = CohereReranker("co-key", base_url=base_url)
    try:
        ranked = await reranker.rerank("What is the PPO deductible?", CANDIDATES)
        again = await reranker.rerank("What is the PPO deductible?", CANDIDATES)
    finally:
        await reranker.aclose()
    assert [c.chunk_id for c in again] == [c.chunk_id for c in ranked]  # the pooled session is reused
    assert ranked[0].chunk_id == "plan_p2_c00" and ranked[0].rerank_score == 1.0
    authorization, body = fake.requests[0]
    assert authorization == "Bearer co-key" and body["query"] == "What is the PPO deductible?"


@pytest.mark.integration
@pytest.mark.asyncio(loop_scope="session")
async def test_cohere_failure_keeps_the_fused_order(cohere: tuple[FakeCohere, str]) -> None:
    fake, base_url = cohere
    fake.status = 503
    reranker = CohereReranker("co-key", base_url=base_url)
    try:
        ranked = await reranker.rerank("What is the PPO deductible?", CANDIDATES)
    finally:
        await reranker.aclose()
    assert [c.chunk_id for c in ranked] == [c.chunk_id for c in CANDIDATES]
