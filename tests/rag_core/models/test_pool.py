"""The bundled models on an inference pool return exactly what one-after-the-other calls return."""

from __future__ import annotations

import numpy as np
import pytest

from rag_core.models import ColbertEncoder, CrossEncoder, DenseOnnxEncoder
from rag_core.models.runtime import InferencePool
from tests.rag_core.models.texts import long_text

pytestmark = pytest.mark.integration

CHUNK = long_text(350)  # about a chunk's length in word pieces

QUESTION = "How many vacation days can I carry over into next year?"
PASSAGES = [
    "Benefits Handbook — Vacation: Up to 5 unused vacation days carry over into the next calendar year.",
    "Benefits Handbook — Vacation: Carried-over days expire on March 31.",
    "Dental Plan — Cleanings: Two cleanings per year are covered at no cost.",
    "Benefits Handbook — Vacation: Up to 5 unused vacation days carry over into the next calendar year.",
    "Medical Plan — Deductible: The PPO individual deductible is $1,250.",
]


@pytest.fixture(scope="module")
def pool() -> InferencePool:
    return InferencePool(2)


def test_pooled_cross_encoder_logits_equal_the_sequential_ones(pool: InferencePool) -> None:
    sequential = CrossEncoder(threads=1, max_length=128)
    pooled = CrossEncoder(threads=1, max_length=128, pool=pool)
    expected = [sequential.logits(QUESTION, [passage])[0] for passage in PASSAGES]
    assert pooled.logits(QUESTION, PASSAGES) == expected
    assert pooled.score(QUESTION, PASSAGES) == sequential.score(QUESTION, PASSAGES)


def test_a_passage_given_twice_is_read_once(pool: InferencePool, monkeypatch: pytest.MonkeyPatch) -> None:
    pooled = CrossEncoder(threads=1, max_length=128, pool=pool)
    read: list[str] = []
    original = pooled._logit

    def counting(question: list[int], passage: str) -> float:
        read.append(passage)
        return original(question, passage)

    monkeypatch.setattr(pooled, "_logit", counting)
    logits = pooled.logits(QUESTION, PASSAGES)
    assert sorted(read) == sorted(set(PASSAGES))
    assert logits[0] == logits[3]


def test_thread_count_does_not_change_a_logit() -> None:
    # The index built before the pool existed used 2-thread sessions; one thread must give the same numbers.
    one, two = CrossEncoder(threads=1, max_length=128), CrossEncoder(threads=2, max_length=128)
    assert one.logits(QUESTION, PASSAGES) == two.logits(QUESTION, PASSAGES)


def test_pooled_dense_vectors_equal_the_sequential_ones(pool: InferencePool) -> None:
    texts = [CHUNK, *PASSAGES]  # each within the model's 510 word pieces
    sequential = DenseOnnxEncoder(threads=1).encode_documents(texts)
    assert np.array_equal(DenseOnnxEncoder(threads=1, pool=pool).encode_documents(texts), sequential)
    assert np.array_equal(DenseOnnxEncoder(threads=2).encode_documents(texts), sequential)
    assert np.array_equal(
        DenseOnnxEncoder(threads=1, pool=pool).encode_queries([QUESTION]),
        DenseOnnxEncoder(threads=1).encode_queries([QUESTION]),
    )


def test_pooled_token_vectors_equal_the_sequential_ones(pool: InferencePool) -> None:
    texts = [CHUNK, *PASSAGES, long_text(900)]  # the last one is read as overlapping windows
    sequential = ColbertEncoder(threads=1).encode_document_tokens(texts)
    for other in (ColbertEncoder(threads=1, pool=pool), ColbertEncoder(threads=2)):
        for got, expected in zip(other.encode_document_tokens(texts), sequential, strict=True):
            assert np.array_equal(got.vectors, expected.vectors)
            assert np.array_equal(got.offsets, expected.offsets)
