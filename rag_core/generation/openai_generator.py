"""Grounded answers from an OpenAI-compatible chat model (OpenAI, Azure OpenAI, vLLM, Ollama).

One ``/v1/chat/completions`` call per question with the grounding prompt of
``rag_core.generation.prompt``. Each attempt is bounded by ``OPENAI_TIMEOUT_S``; transient
failures (rate limits, 5xx, timeouts, dropped connections) are retried ``OPENAI_MAX_RETRIES``
times with backoff, then ``GenerationFailed`` is raised (its message never carries the key).
The reply is returned as-is, ``INSUFFICIENT_CONTEXT`` included: the citation validator decides.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import openai

from rag_core.errors import GenerationFailed
from rag_core.generation.base import GenerationResult
from rag_core.generation.prompt import build_messages
from rag_core.openai_retry import with_retries
from rag_core.reading.reader import Reading
from rag_core.settings import CoreSettings
from rag_core.types import Candidate

log = logging.getLogger(__name__)

TEMPERATURE = 0.2
MAX_TOKENS = 1200


class OpenAIGenerator:
    """``Generator`` over an OpenAI-compatible chat completions endpoint."""

    def __init__(
        self,
        *,
        api_key: str,
        model: str = "gpt-4o-mini",
        base_url: str | None = None,
        timeout_s: float = 20.0,
        max_retries: int = 2,
        temperature: float = TEMPERATURE,
        max_tokens: int = MAX_TOKENS,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 4.0,
    ) -> None:
        self.model_name = model
        self._api_key = api_key
        self._base_url = base_url
        self.timeout_s = timeout_s
        self.max_retries = max(0, max_retries)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        # The SDK's own retries are off: ours are bounded and logged without secrets.
        self._client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0)

    @classmethod
    def from_settings(cls, settings: CoreSettings) -> OpenAIGenerator:
        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
        if not key:
            if not settings.openai_base_url:
                raise GenerationFailed("OPENAI_API_KEY is not set (needed for the OpenAI generator)")
            key = "not-needed"  # self-hosted OpenAI-compatible servers (vLLM, Ollama) ignore it
        return cls(
            api_key=key,
            model=settings.openai_chat_model,
            base_url=settings.openai_base_url,
            timeout_s=settings.openai_timeout_s,
            max_retries=settings.openai_max_retries,
        )

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIGenerator(model={self.model_name!r}, base_url={self._base_url!r})"

    async def generate(
        self,
        question: str,
        context: Sequence[Candidate],
        *,
        history: Sequence[str] = (),
        reading: Reading | None = None,
    ) -> GenerationResult:
        """``reading`` is ignored: the model reads the fenced chunks itself."""
        messages = build_messages(question, context, history)
        response = await self._complete(messages)
        return self._result(response)

    async def _complete(self, messages: list[dict[str, str]]) -> Any:
        async def call() -> Any:
            return await self._client.chat.completions.create(
                model=self.model_name,
                messages=messages,  # type: ignore[arg-type]
                temperature=self.temperature,
                max_tokens=self.max_tokens,
            )

        return await with_retries(
            call,
            attempts=self.max_retries + 1,
            timeout_s=self.timeout_s,
            what=f"chat completion with {self.model_name}",
            secret=self._api_key,
            error=GenerationFailed,
            logger=log,
            base_s=self.backoff_base_s,
            max_s=self.backoff_max_s,
        )

    def _result(self, response: Any) -> GenerationResult:
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise GenerationFailed(f"{self.model_name} returned no choices")
        choice = choices[0]
        text = (choice.message.content or "").strip() if choice.message else ""
        if not text:
            raise GenerationFailed(
                f"{self.model_name} returned an empty reply (finish_reason={choice.finish_reason!r})"
            )
        usage = getattr(response, "usage", None)
        counts = {
            "prompt_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
            "completion_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
            "total_tokens": int(getattr(usage, "total_tokens", 0) or 0),
        }
        if not counts["total_tokens"]:
            counts["total_tokens"] = counts["prompt_tokens"] + counts["completion_tokens"]
        # The configured name, not the provider's snapshot name: stable across Azure deployments and caches.
        return GenerationResult(text=text, model=self.model_name, usage=counts)

    async def aclose(self) -> None:
        await self._client.close()
