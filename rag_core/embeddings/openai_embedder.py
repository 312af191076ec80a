"""OpenAI embeddings (or any OpenAI-compatible ``/v1/embeddings``: Azure OpenAI, vLLM, Ollama).

Inputs go out in batches of 64. Rate limits, 5xx, timeouts and connection errors are retried a
bounded number of times with exponential backoff and jitter, then ``EmbeddingFailed`` is raised.
Error messages are scrubbed of the API key. Vectors come back re-normalised to unit length.

Texts are never truncated here: a text over the model's 8191-token input is refused (our chunks
are 400 tokens, so this only fires on a bug upstream).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import openai

from rag_core.errors import EmbeddingFailed
from rag_core.openai_retry import describe, with_retries
from rag_core.settings import CoreSettings
from rag_core.tokens import count_tokens

log = logging.getLogger(__name__)

KNOWN_DIMENSIONS: dict[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
MAX_INPUT_TOKENS = 8191
BATCH_SIZE = 64
DOCUMENT_ATTEMPTS = 4
_PROBE_TEXT = "dimension probe"


class OpenAIEmbedder:
    """``EmbeddingProvider`` over an OpenAI-compatible embeddings endpoint."""

    def __init__(
        self,
        *,
        api_key: str,
        model: str = "text-embedding-3-small",
        base_url: str | None = None,
        timeout_s: float = 20.0,
        document_attempts: int = DOCUMENT_ATTEMPTS,
        query_attempts: int = 3,
        batch_size: int = BATCH_SIZE,
        dimension: int | None = None,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 8.0,
    ) -> None:
        if batch_size < 1 or document_attempts < 1 or query_attempts < 1:
            raise ValueError("batch_size and attempts must be positive")
        self.model_name = model
        self._api_key = api_key
        self._base_url = base_url
        self._timeout_s = timeout_s
        self.document_attempts = document_attempts
        self.query_attempts = query_attempts
        self.batch_size = batch_size
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self._dimension: int | None = dimension or KNOWN_DIMENSIONS.get(model)
        self._dimension_lock = threading.Lock()
        self._client = self._new_client()

    @classmethod
    def from_settings(cls, settings: CoreSettings) -> OpenAIEmbedder:
        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
        if not key:
            if not settings.openai_base_url:
                raise EmbeddingFailed("OPENAI_API_KEY is not set (needed for OpenAI embeddings)")
            key = "not-needed"  # self-hosted OpenAI-compatible servers (vLLM, Ollama) ignore it
        return cls(
            api_key=key,
            model=settings.openai_embedding_model,
            base_url=settings.openai_base_url,
            timeout_s=settings.openai_timeout_s,
            query_attempts=max(1, settings.openai_max_retries + 1),
        )

    def _new_client(self) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            api_key=self._api_key, base_url=self._base_url, timeout=self._timeout_s, max_retries=0
        )

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIEmbedder(model={self.model_name!r}, base_url={self._base_url!r})"

    # -- dimension -----------------------------------------------------------------------------

    @property
    def dimension(self) -> int:
        """Known for the text-embedding-3 models; otherwise discovered with one short probe.

        Prefer ``await ensure_dimension()`` inside a running event loop: this property has to
        block while it probes (once per process).
        """
        if self._dimension is None:
            with self._dimension_lock:
                if self._dimension is None:
                    self._dimension = self._probe_blocking()
        return self._dimension

    @dimension.setter
    def dimension(self, value: int) -> None:
        """Pin the size (e.g. a deployment configured with ``dimensions=``); responses must match it."""
        if value < 1:
            raise ValueError("dimension must be positive")
        self._dimension = value

    async def ensure_dimension(self) -> int:
        if self._dimension is None:
            vectors = await self._embed_batch(self._client, [_PROBE_TEXT], self.query_attempts)
            self._dimension = len(vectors[0])
        return self._dimension

    def _probe_blocking(self) -> int:
        """Probe on a private loop and client in a helper thread (works with or without a running loop)."""
        outcome: dict[str, Any] = {}

        async def probe() -> None:
            client = self._new_client()
            try:
                outcome["vectors"] = await self._embed_batch(client, [_PROBE_TEXT], self.query_attempts)
            finally:
                await client.close()

        def run() -> None:
            try:
                asyncio.run(probe())
            except BaseException as exc:  # handed back to the caller's thread below
                outcome["error"] = exc

        worker = threading.Thread(target=run, name="openai-embedding-probe", daemon=True)
        worker.start()
        worker.join()
        if "error" in outcome:
            error = outcome["error"]
            if isinstance(error, EmbeddingFailed):
                raise EmbeddingFailed(str(error)) from None
            raise EmbeddingFailed(f"embedding dimension probe failed: {describe(error, self._api_key)}") from None
        return len(outcome["vectors"][0])

    # -- embedding -----------------------------------------------------------------------------

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        texts = list(texts)
        if not texts:
            return []
        self._check_lengths(texts)
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            out.extend(await self._embed_batch(self._client, batch, self.document_attempts))
        return out

    async def embed_query(self, text: str) -> list[float]:
        self._check_lengths([text])
        return (await self._embed_batch(self._client, [text], self.query_attempts))[0]

    @staticmethod
    def _check_lengths(texts: Sequence[str]) -> None:
        for position, text in enumerate(texts):
            tokens = count_tokens(text)
            if tokens > MAX_INPUT_TOKENS:
                raise EmbeddingFailed(
                    f"text #{position} has {tokens} tokens, over the embedding model's "
                    f"{MAX_INPUT_TOKENS}-token input limit; refusing to truncate it (chunk it smaller)"
                )

    async def _embed_batch(self, client: openai.AsyncOpenAI, batch: list[str], attempts: int) -> list[list[float]]:
        # The API rejects empty strings; a lone space embeds as "nothing" instead of failing the batch.
        inputs = [text if text.strip() else " " for text in batch]

        async def call() -> list[list[float]]:
            response = await client.embeddings.create(model=self.model_name, input=inputs, encoding_format="float")
            return self._vectors(response, len(inputs))

        return await with_retries(
            call,
            attempts=attempts,
            timeout_s=self._timeout_s,
            what=f"embedding request to {self.model_name}",
            secret=self._api_key,
            error=EmbeddingFailed,
            logger=log,
            base_s=self.backoff_base_s,
            max_s=self.backoff_max_s,
        )

    def _vectors(self, response: Any, expected: int) -> list[list[float]]:
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != expected:
            raise EmbeddingFailed(f"{self.model_name} returned {len(data)} embeddings for {expected} inputs")
        matrix = np.asarray([item.embedding for item in data], dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise EmbeddingFailed(f"{self.model_name} returned malformed embeddings")
        width = int(matrix.shape[1])
        if self._dimension is not None and width != self._dimension:
            raise EmbeddingFailed(f"{self.model_name} returned {width}-d vectors but {self._dimension}-d were expected")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if not np.all(np.isfinite(matrix)) or np.any(norms == 0):
            raise EmbeddingFailed(f"{self.model_name} returned a zero or non-finite vector")
        if self._dimension is None:
            self._dimension = width
        return (matrix / norms).tolist()  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        await self._client.close()
