"""OpenAIEmbedder against the local fake OpenAI server (tests/fakes/openai_server.py)."""

from __future__ import annotations

import logging
import traceback

import numpy as np
import pytest

from rag_core.embeddings import build_embedder
from rag_core.embeddings.openai_embedder import MAX_INPUT_TOKENS, OpenAIEmbedder
from rag_core.errors import EmbeddingFailed
from rag_core.openai_retry import scrub
from rag_core.settings import CoreSettings
from tests.fakes.openai_server import FakeOpenAI, hashed_bow

pytestmark = pytest.mark.integration

KEY = "sk-test-SECRET-0123456789abcdefXYZ"


def make(fake: FakeOpenAI, **kwargs: object) -> OpenAIEmbedder:
    options: dict[str, object] = {
        "api_key": KEY,
        "model": "fake-embed",
        "base_url": fake.base_url,
        "timeout_s": 5.0,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.05,
    }
    options.update(kwargs)
    return OpenAIEmbedder(**options)  # type: ignore[arg-type]


def all_text(exc: BaseException) -> str:
    return "\n".join([str(exc), repr(exc), *traceback.format_exception(exc)])


async def test_batches_of_64_in_order(fake_openai: FakeOpenAI) -> None:
    embedder = make(fake_openai)
    texts = [f"chunk number {i} about dental coverage {i * 7}" for i in range(130)]
    vectors = await embedder.embed_documents(texts)

    sent = fake_openai.requests_to("/embeddings")
    assert [len(r.json["input"]) for r in sent] == [64, 64, 2]
    assert [t for r in sent for t in r.json["input"]] == texts
    assert all(r.json["model"] == "fake-embed" and r.json["encoding_format"] == "float" for r in sent)
    assert all(r.authorization == f"Bearer {KEY}" for r in sent)
    assert len(vectors) == 130
    for text, vector in zip(texts, vectors, strict=True):
        assert np.allclose(vector, hashed_bow(text, fake_openai.dim))
    assert embedder.dimension == fake_openai.dim  # discovered from the first response, no extra probe
    assert len(fake_openai.requests) == 3


async def test_vectors_are_unit_length_and_sorted_by_index(fake_openai: FakeOpenAI) -> None:
    fake_openai.embedding_scale = 3.5
    fake_openai.reverse_embedding_order = True
    embedder = make(fake_openai)
    texts = ["medical deductible", "dental copay", "vision frames allowance"]
    vectors = await embedder.embed_documents(texts)
    assert np.allclose(np.linalg.norm(np.asarray(vectors), axis=1), 1.0)
    for text, vector in zip(texts, vectors, strict=True):
        assert np.allclose(vector, hashed_bow(text, fake_openai.dim))
    query = await embedder.embed_query("dental copay")
    assert np.isclose(np.linalg.norm(query), 1.0)
    assert np.allclose(query, vectors[1])


async def test_retries_rate_limits_then_succeeds(fake_openai: FakeOpenAI) -> None:
    fake_openai.fail_next(2, 429)
    embedder = make(fake_openai)
    vectors = await embedder.embed_documents(["parental leave weeks"])
    assert len(vectors) == 1
    assert len(fake_openai.requests_to("/embeddings")) == 3


async def test_persistent_server_error_raises_embedding_failed(fake_openai: FakeOpenAI) -> None:
    fake_openai.fail_next(20, 500)
    embedder = make(fake_openai)
    with pytest.raises(EmbeddingFailed) as info:
        await embedder.embed_documents(["anything"])
    assert len(fake_openai.requests_to("/embeddings")) == 4  # bounded: 4 attempts, then give up
    message = str(info.value)
    assert "after 4 attempts" in message and "500" in message
    # The fake echoes the Authorization header into its error body, like a careless proxy would.
    assert "request carried" in message
    assert KEY not in all_text(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


async def test_client_errors_are_not_retried_and_not_leaked(fake_openai: FakeOpenAI) -> None:
    fake_openai.fail_next(1, 401)
    embedder = make(fake_openai)
    with pytest.raises(EmbeddingFailed) as info:
        await embedder.embed_query("what is my deductible")
    assert len(fake_openai.requests) == 1
    assert "401" in str(info.value)
    assert KEY not in all_text(info.value)
    assert KEY not in repr(embedder)


async def test_timeout_is_retried_then_fails(fake_openai: FakeOpenAI) -> None:
    embedder = make(fake_openai, timeout_s=0.5, document_attempts=2)
    fake_openai.hang_next(3.0)
    assert len(await embedder.embed_documents(["first hangs, second answers"])) == 1
    fake_openai.hang_next(3.0, n=2)
    with pytest.raises(EmbeddingFailed, match="timed out"):
        await embedder.embed_documents(["both hang"])
    assert len(fake_openai.requests) == 4


async def test_over_long_text_is_refused_not_truncated(fake_openai: FakeOpenAI) -> None:
    embedder = make(fake_openai)
    text = "word " * (MAX_INPUT_TOKENS + 10)
    with pytest.raises(EmbeddingFailed, match="refusing to truncate"):
        await embedder.embed_documents(["short one", text])
    assert fake_openai.requests == []


async def test_known_models_have_a_dimension_without_a_request(fake_openai: FakeOpenAI) -> None:
    assert make(fake_openai, model="text-embedding-3-small").dimension == 1536
    assert make(fake_openai, model="text-embedding-3-large").dimension == 3072
    assert fake_openai.requests == []
    # And the fake serves those sizes, so a real round trip agrees with the table.
    vectors = await make(fake_openai, model="text-embedding-3-small").embed_documents(["x"])
    assert len(vectors[0]) == 1536


async def test_unknown_model_dimension_is_probed_once(fake_openai: FakeOpenAI) -> None:
    embedder = make(fake_openai)
    assert embedder.dimension == 64  # a blocking probe (helper thread), safe inside a running loop
    assert embedder.dimension == 64
    assert len(fake_openai.requests) == 1
    other = make(fake_openai)
    assert await other.ensure_dimension() == 64
    assert len(fake_openai.requests) == 2


async def test_dimension_mismatch_is_reported(fake_openai: FakeOpenAI) -> None:
    embedder = make(fake_openai, dimension=32)
    with pytest.raises(EmbeddingFailed, match="64-d vectors but 32-d"):
        await embedder.embed_query("x")


async def test_empty_text_does_not_fail_the_batch(fake_openai: FakeOpenAI) -> None:
    vectors = await make(fake_openai).embed_documents(["", "dental"])
    assert len(vectors) == 2
    assert fake_openai.requests[0].json["input"] == [" ", "dental"]


async def test_from_settings_and_build_embedder(fake_openai: FakeOpenAI) -> None:
    settings = CoreSettings(
        _env_file=None,
        OPENAI_API_KEY=KEY,
        OPENAI_BASE_URL=fake_openai.base_url,
        OPENAI_TIMEOUT_S=7.5,
        OPENAI_EMBEDDING_MODEL="fake-embed",
        OPENAI_MAX_RETRIES=1,
    )
    embedder = build_embedder(settings)
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.model_name == "fake-embed"
    assert embedder._client.timeout == 7.5 and embedder._client.max_retries == 0
    assert embedder.query_attempts == 2 and embedder.document_attempts == 4
    assert len(await embedder.embed_query("hello")) == 64
    assert fake_openai.requests[0].authorization == f"Bearer {KEY}"
    assert KEY not in repr(embedder)


def test_from_settings_without_key_or_base_url() -> None:
    with pytest.raises(EmbeddingFailed, match="OPENAI_API_KEY"):
        OpenAIEmbedder.from_settings(CoreSettings(_env_file=None, OPENAI_API_KEY=None, OPENAI_BASE_URL=None))


def test_scrub_removes_key_shaped_strings() -> None:
    text = scrub(f"bad key {KEY} and sk-proj-abcdefghijklmnopqrstuvwxyz", KEY)
    assert KEY not in text and "abcdefghijklmnop" not in text


async def test_retry_logs_carry_no_key(fake_openai: FakeOpenAI, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, the SDK's and httpx's included
    fake_openai.fail_next(2, 429)
    await make(fake_openai).embed_documents(["parental leave weeks"])
    assert "retrying" in caplog.text and "429" in caplog.text
    assert KEY not in caplog.text
