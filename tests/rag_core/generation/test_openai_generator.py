"""OpenAIGenerator against the local fake OpenAI server (tests/fakes/openai_server.py)."""

from __future__ import annotations

import logging
import time
import traceback
from typing import Any

import pytest

from rag_core.errors import GenerationFailed
from rag_core.generation import build_generator
from rag_core.generation.openai_generator import OpenAIGenerator
from rag_core.generation.prompt import SYSTEM_PROMPT
from rag_core.settings import CoreSettings
from rag_core.types import Candidate
from tests.fakes.openai_server import FakeOpenAI

pytestmark = pytest.mark.integration

KEY = "sk-test-GENERATOR-9876543210fedcbaQRS"


def candidate(chunk_id: str, content: str, page: int = 1) -> Candidate:
    document_id = chunk_id.split("_p")[0]
    return Candidate(
        chunk_id=chunk_id,
        document_id=document_id,
        policy_id=document_id,
        title="Medical Plan 2026",
        page_number=page,
        content=content,
        jurisdiction="US-ALL",
        effective_date="2026-01-01T00:00:00Z",
        version="1",
        language="en",
        source_uri="https://hr.example.com/medical.pdf",
        acl_groups=["employees"],
    )


CONTEXT = [
    candidate("medical-plan-2026_p1_c00", "Plan: PPO; Deductible: $1,250; Copay: $25."),
    candidate("medical-plan-2026_p2_c01", "Plan: HDHP; Deductible: $3,000; Copay: none.", page=2),
]


def make(fake: FakeOpenAI, **kwargs: Any) -> OpenAIGenerator:
    options: dict[str, Any] = {
        "api_key": KEY,
        "base_url": fake.base_url,
        "timeout_s": 5.0,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.05,
    }
    options.update(kwargs)
    return OpenAIGenerator(**options)


def settings_for(fake: FakeOpenAI, **env: Any) -> CoreSettings:
    values: dict[str, Any] = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": fake.base_url}
    values.update(env)
    return CoreSettings(_env_file=None, **values)


async def test_request_shape_and_result(fake_openai: FakeOpenAI) -> None:
    reply = "The PPO deductible is $1,250.[^medical-plan-2026_p1_c00]"
    fake_openai.script_reply(reply)
    generator = OpenAIGenerator.from_settings(settings_for(fake_openai))
    result = await generator.generate("What is the PPO deductible?", CONTEXT, history=["Do I have dental?"])

    (request,) = fake_openai.requests_to("/chat/completions")
    body = request.json
    assert request.authorization == f"Bearer {KEY}"
    assert body["model"] == "gpt-4o-mini"
    assert body["temperature"] == 0.2
    assert body["max_tokens"] == 1200
    system, user = body["messages"]
    assert system == {"role": "system", "content": SYSTEM_PROMPT}
    assert "Use only facts stated in the excerpts" in system["content"]
    assert "INSUFFICIENT_CONTEXT" in system["content"]
    assert "[^chunk_id]" in system["content"]
    assert user["role"] == "user"
    for chunk in CONTEXT:
        fenced = (
            f"<<<EXCERPT chunk_id={chunk.chunk_id} | title={chunk.title} | page={chunk.page_number} "
            f"| effective=2026-01-01 | jurisdiction=US-ALL>>>\n{chunk.content}\n"
            f"<<<END EXCERPT {chunk.chunk_id}>>>"
        )
        assert fenced in user["content"]
    assert user["content"].rstrip().endswith("Question: What is the PPO deductible?")
    assert "Do I have dental?" in user["content"]

    assert result.text == reply
    assert result.model == "gpt-4o-mini"
    assert set(result.usage) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    assert result.usage["prompt_tokens"] > 0 and result.usage["completion_tokens"] == len(reply.split())
    assert result.usage["total_tokens"] == result.usage["prompt_tokens"] + result.usage["completion_tokens"]


async def test_scripted_callable_and_insufficient_context(fake_openai: FakeOpenAI) -> None:
    seen: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> str:
        seen.append(body)
        return "INSUFFICIENT_CONTEXT"

    fake_openai.script_reply(answer)
    result = await make(fake_openai).generate("Is acupuncture covered?", CONTEXT)
    assert result.text == "INSUFFICIENT_CONTEXT"  # passed through: the validator upstream abstains
    assert len(seen) == 1 and seen[0]["messages"][1]["content"].endswith("Is acupuncture covered?")


async def test_transient_errors_are_retried(fake_openai: FakeOpenAI) -> None:
    fake_openai.script_reply("ok.[^medical-plan-2026_p1_c00]")
    fake_openai.fail_next(1, 429)
    fake_openai.fail_next(1, 503)
    result = await make(fake_openai, max_retries=2).generate("q", CONTEXT)
    assert result.text.startswith("ok.")
    assert len(fake_openai.requests) == 3


async def test_persistent_failure_raises_generation_failed_without_secrets(fake_openai: FakeOpenAI) -> None:
    fake_openai.fail_next(10, 500)
    with pytest.raises(GenerationFailed) as info:
        await make(fake_openai, max_retries=2).generate("q", CONTEXT)
    assert len(fake_openai.requests) == 3  # 1 try + 2 retries
    assert "after 3 attempts" in str(info.value)
    text = "\n".join([str(info.value), repr(info.value), *traceback.format_exception(info.value)])
    assert KEY not in text


async def test_bad_request_is_not_retried(fake_openai: FakeOpenAI) -> None:
    fake_openai.fail_next(1, 400)
    with pytest.raises(GenerationFailed, match="400"):
        await make(fake_openai, max_retries=2).generate("q", CONTEXT)
    assert len(fake_openai.requests) == 1


async def test_timeout_is_bounded(fake_openai: FakeOpenAI) -> None:
    fake_openai.hang_next(5.0, n=2)
    generator = OpenAIGenerator.from_settings(settings_for(fake_openai, OPENAI_TIMEOUT_S=0.5, OPENAI_MAX_RETRIES=1))
    started = time.perf_counter()
    with pytest.raises(GenerationFailed, match="timed out"):
        await generator.generate("q", CONTEXT)
    assert time.perf_counter() - started < 4.0
    assert len(fake_openai.requests) == 2


async def test_timeout_then_success(fake_openai: FakeOpenAI) -> None:
    fake_openai.script_reply("fine.[^medical-plan-2026_p1_c00]")
    fake_openai.hang_next(5.0)
    result = await make(fake_openai, timeout_s=0.5, max_retries=1).generate("q", CONTEXT)
    assert result.text.startswith("fine.")


async def test_empty_reply_is_a_failure(fake_openai: FakeOpenAI) -> None:
    fake_openai.script_reply("   ")
    with pytest.raises(GenerationFailed, match="empty reply"):
        await make(fake_openai).generate("q", CONTEXT)


async def test_self_hosted_compatible_server_without_key(fake_openai: FakeOpenAI) -> None:
    """vLLM / Ollama: OPENAI_BASE_URL set, no key, GENERATOR=openai."""
    fake_openai.script_reply("local.[^medical-plan-2026_p1_c00]")
    settings = CoreSettings(
        _env_file=None,
        OPENAI_API_KEY=None,
        OPENAI_BASE_URL=fake_openai.base_url,
        GENERATOR="openai",
        OPENAI_CHAT_MODEL="llama3.1:8b",
    )
    generator = build_generator(settings)
    assert isinstance(generator, OpenAIGenerator)
    result = await generator.generate("q", CONTEXT)
    assert result.text.startswith("local.") and result.model == "llama3.1:8b"
    assert fake_openai.requests[0].json["model"] == "llama3.1:8b"


def test_from_settings_without_key_or_base_url() -> None:
    with pytest.raises(GenerationFailed, match="OPENAI_API_KEY"):
        OpenAIGenerator.from_settings(CoreSettings(_env_file=None, OPENAI_API_KEY=None, OPENAI_BASE_URL=None))


async def test_retry_logs_carry_no_key(fake_openai: FakeOpenAI, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, the SDK's and httpx's included
    fake_openai.fail_next(1, 500)
    fake_openai.script_reply("ok.[^medical-plan-2026_p1_c00]")
    await make(fake_openai, max_retries=1).generate("q", CONTEXT)
    assert "retrying" in caplog.text and "500" in caplog.text
    assert KEY not in caplog.text
