"""Bounded retries for OpenAI-compatible calls, shared by the embedder and the generator.

Rate limits, 5xx, timeouts and dropped connections are retried with exponential backoff and
jitter (a server's Retry-After wins); anything else fails at once. Every message is scrubbed of
the API key before it is raised or logged.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
from collections.abc import Awaitable, Callable
from typing import TypeVar

import openai

from rag_core.errors import BenefitsBotError

T = TypeVar("T")

_RETRY_STATUS = {408, 409, 429}


def is_transient(exc: BaseException) -> bool:
    """Worth another try: rate limits, server errors, timeouts, dropped connections."""
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, TimeoutError)):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    return False


def describe(exc: BaseException, secret: str | None) -> str:
    """A short, secret-free description of a provider error for messages and logs."""
    if isinstance(exc, openai.APIStatusError):
        text = f"HTTP {exc.status_code} {type(exc).__name__}: {exc.message}"
    elif isinstance(exc, openai.APITimeoutError | TimeoutError):
        text = "request timed out"
    elif isinstance(exc, openai.APIConnectionError):
        text = f"connection error: {exc.message}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return scrub(text, secret)[:500]


_KEY_LIKE = re.compile(r"\b(sk-[A-Za-z0-9_-]{4})[A-Za-z0-9_*-]{12,}")


def scrub(text: str, secret: str | None) -> str:
    """Remove the API key (and anything shaped like an OpenAI key) from ``text``."""
    if secret:
        text = text.replace(secret, "***")
    return _KEY_LIKE.sub(r"\1***", text)


def backoff_delay(attempt: int, base_s: float, max_s: float, retry_after_s: float | None = None) -> float:
    """Exponential backoff with "equal jitter"; a server's Retry-After wins when it is sooner than max."""
    if retry_after_s is not None and 0 <= retry_after_s <= max_s:
        return retry_after_s
    ceiling = min(max_s, base_s * (2**attempt))
    return ceiling / 2 + random.uniform(0, ceiling / 2)


def retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) / scale
        except ValueError:
            return None
    return None


async def with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    attempts: int,
    timeout_s: float,
    what: str,
    secret: str | None,
    error: type[BenefitsBotError],
    logger: logging.Logger,
    base_s: float,
    max_s: float,
) -> T:
    """Run ``call`` up to ``attempts`` times; raise ``error`` (secret-free) when it keeps failing."""
    last: BaseException | None = None
    for attempt in range(attempts):
        try:
            # httpx bounds each phase (connect, read...); this bounds the whole attempt.
            async with asyncio.timeout(timeout_s + 1.0):
                return await call()
        except BenefitsBotError:
            raise
        except Exception as exc:
            if not is_transient(exc):
                raise error(f"{what} failed: {describe(exc, secret)}") from None
            last = exc
            if attempt + 1 < attempts:
                delay = backoff_delay(attempt, base_s, max_s, retry_after(exc))
                logger.warning(
                    "%s attempt %d/%d failed (%s); retrying in %.2fs",
                    what,
                    attempt + 1,
                    attempts,
                    describe(exc, secret),
                    delay,
                )
                await asyncio.sleep(delay)
    assert last is not None
    raise error(f"{what} failed after {attempts} attempts: {describe(last, secret)}") from None
