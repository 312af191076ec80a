"""Hybrid retrieval with late interaction on the fixture corpus (real models, real Edge index): each
question is encoded once, candidates come back in MaxSim order carrying the MaxSim, fused and dense
scores, and the similarity gate still reads the dense cosine."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from rag_core.index.base import AccessFilter, token_vectors
from rag_core.models import ColbertEncoder
from rag_core.pipeline.query import EmbedStage
from rag_core.pipeline.retrieve import RetrieveStage
from rag_core.retrieval import HybridRetriever
from tests.rag_core.conftest import FixtureCorpus, token
from tests.rag_core.spies import SpyIndex

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]

QUESTIONS = (
    "What is the medical plan deductible?",
    "How many weeks of parental leave do I get?",
    "What is the HMO out-of-pocket maximum?",
)


class CountingEncoder:
    """The real token encoder, counting the questions it encodes."""

    def __init__(self, inner: ColbertEncoder) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dimension = inner.dimension
        self.queries: list[str] = []

    def encode_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return self.inner.encode_query(text)

    def encode_documents(self, texts: Sequence[str]) -> list[np.ndarray]:
        return self.inner.encode_documents(texts)

    def document_offsets(self, text: str) -> np.ndarray:
        return self.inner.document_offsets(text)


async def employee_access(fixture_corpus: FixtureCorpus) -> AccessFilter:
    pipeline, _ = fixture_corpus.pipeline()
    return (await pipeline.run_until("scope", QUESTIONS[0], token(["employees"]))).require_access()


def retriever_of(fixture_corpus: FixtureCorpus, **kwargs: object) -> HybridRetriever:
    pipeline, _ = fixture_corpus.pipeline(**kwargs)
    stage = pipeline.stage("retrieve")
    assert isinstance(stage, RetrieveStage)
    return stage.retriever


async def test_candidates_carry_maxsim_fused_and_dense_scores(fixture_corpus: FixtureCorpus) -> None:
    retriever = retriever_of(fixture_corpus)
    access = await employee_access(fixture_corpus)
    late = fixture_corpus.late
    for question in QUESTIONS:
        candidates = await retriever.retrieve(question, access)
        assert len(candidates) > 5
        # MaxSim order, equal scores by chunk id.
        keys = [(-(c.late_score or 0.0), c.chunk_id) for c in candidates]
        assert keys == sorted(keys), question
        query = np.asarray(token_vectors(late.encode_query(question)))
        dense = np.asarray(await retriever.embed(question))
        for candidate in candidates:
            # late_score: MaxSim of the stored (float16) token vectors, per question token.
            document = np.asarray(token_vectors(late.encode_documents([candidate.content])[0]))
            assert candidate.late_score == pytest.approx(
                ColbertEncoder.max_sim(query, document) / len(query), abs=2e-3
            ), candidate.chunk_id
            assert -1.0 <= candidate.late_score <= 1.0
            # dense_score: still the cosine to the question (the gate's input); fused: an RRF score.
            chunk = np.asarray((await fixture_corpus.embedder.embed_documents([candidate.content]))[0])
            assert candidate.dense_score == pytest.approx(float(chunk @ dense), abs=1e-4)
            assert 0.0 < candidate.fused_score <= 2 / 60 + 1e-7  # 1 / (k + rank) from each prefetch, rank from 0
        fused = sorted(candidates, key=lambda c: -c.fused_score)
        assert [c.chunk_id for c in fused] != [c.chunk_id for c in candidates] or len(candidates) < 3


async def test_a_question_is_encoded_once_and_sent_with_its_token_vectors(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    counting = CountingEncoder(fixture_corpus.late)
    embed, retrieve = pipeline.stage("embed"), pipeline.stage("retrieve")
    assert isinstance(embed, EmbedStage) and isinstance(retrieve, RetrieveStage)
    embed.late = retrieve.retriever.late = counting
    for question in QUESTIONS:
        counting.queries.clear()
        spy.queries.clear()
        answer = await pipeline.answer(question, token(["employees"]))
        assert not answer.abstained, question
        assert len(counting.queries) == 1  # one question, one encoding
        (query,) = spy.queries
        assert query.late == token_vectors(fixture_corpus.late.encode_query(counting.queries[0]))  # sent as encoded
        assert all(r.late_score is not None for r in query.results)


async def test_retrieval_without_a_token_encoder_keeps_the_fused_order(fixture_corpus: FixtureCorpus) -> None:
    access = await employee_access(fixture_corpus)
    plain = HybridRetriever(SpyIndex(fixture_corpus.index), fixture_corpus.embedder)  # type: ignore[arg-type]
    candidates = await plain.retrieve(QUESTIONS[0], access)
    assert candidates and all(c.late_score is None for c in candidates)
    keys = [(-c.fused_score, c.chunk_id) for c in candidates]
    assert keys == sorted(keys)
