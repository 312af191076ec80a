"""Redis-backed store that keeps the bot answering through a Redis outage.

When Redis is unreachable, claims (event dedupe) and counters (rate limits) fall back to a
per-process :class:`MemoryStore`, caches and thread memory are skipped, and the outage is
logged once (not per request). Redis is probed again at most every ``retry_interval_s`` so a
dead Redis costs requests nothing, and the store recovers on its own when Redis is back.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from bot.errors import StoreUnavailable
from bot.store.memory import MemoryStore

log = logging.getLogger(__name__)

T = TypeVar("T")

_OUTAGE_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError, asyncio.TimeoutError)


class RedisStore:
    def __init__(
        self,
        url: str,
        *,
        retry_interval_s: float = 5.0,
        op_timeout_s: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._redis: aioredis.Redis = aioredis.from_url(
            url,
            decode_responses=True,
            socket_connect_timeout=op_timeout_s,
            socket_timeout=op_timeout_s,
            retry=Retry(NoBackoff(), 0),  # we degrade instead of retrying inside a request
        )
        self._fallback = MemoryStore(clock=clock)
        self._retry_interval_s = retry_interval_s
        self._op_timeout_s = op_timeout_s
        self._clock = clock
        self._down_since: float | None = None
        self._next_probe = 0.0
        self.on_state_change: Callable[[bool], None] | None = None

    @property
    def kind(self) -> str:
        return "redis"

    @property
    def available(self) -> bool:
        return self._down_since is None

    def _mark_down(self, exc: BaseException) -> None:
        now = self._clock()
        self._next_probe = now + self._retry_interval_s
        if self._down_since is None:
            self._down_since = now
            log.warning(
                "Redis unavailable (%s): degrading until it is back: no caches or thread memory, "
                "dedupe and rate limits per process",
                type(exc).__name__,
            )
            if self.on_state_change:
                self.on_state_change(False)

    def _mark_up(self) -> None:
        if self._down_since is not None:
            log.warning("Redis is back after %.1fs; caches and shared dedupe resume", self._clock() - self._down_since)
            self._down_since = None
            if self.on_state_change:
                self.on_state_change(True)

    async def _run(self, op: Callable[[aioredis.Redis], Awaitable[T]], fallback: Callable[[], Awaitable[T]]) -> T:
        if self._down_since is not None and self._clock() < self._next_probe:
            return await fallback()
        try:
            result = await asyncio.wait_for(op(self._redis), timeout=self._op_timeout_s * 2)
        except _OUTAGE_ERRORS as exc:
            self._mark_down(exc)
            return await fallback()
        self._mark_up()
        return result

    @staticmethod
    async def _none() -> None:
        return None

    async def claim(self, key: str, ttl_s: int) -> bool:
        async def op(r: aioredis.Redis) -> bool:
            return bool(await r.set(key, "1", nx=True, ex=ttl_s))

        return await self._run(op, lambda: self._fallback.claim(key, ttl_s))

    async def incr_window(self, key: str, ttl_s: int) -> int:
        async def op(r: aioredis.Redis) -> int:
            async with r.pipeline(transaction=True) as pipe:
                pipe.incr(key)
                pipe.expire(key, ttl_s, nx=True)
                results: list[Any] = await pipe.execute()
            return int(results[0])

        return await self._run(op, lambda: self._fallback.incr_window(key, ttl_s))

    async def get(self, key: str) -> str | None:
        async def op(r: aioredis.Redis) -> str | None:
            value = await r.get(key)
            return value if isinstance(value, str) else None

        return await self._run(op, self._none)

    async def set(self, key: str, value: str, ttl_s: int) -> None:
        async def op(r: aioredis.Redis) -> None:
            await r.set(key, value, ex=ttl_s)

        await self._run(op, self._none)

    async def delete(self, *keys: str) -> None:
        if not keys:
            return

        async def op(r: aioredis.Redis) -> None:
            await r.delete(*keys)

        await self._run(op, self._none)

    async def push_recent(self, key: str, value: str, *, keep: int, ttl_s: int) -> None:
        async def op(r: aioredis.Redis) -> None:
            async with r.pipeline(transaction=True) as pipe:
                pipe.rpush(key, value)
                pipe.ltrim(key, -keep, -1)
                pipe.expire(key, ttl_s)
                await pipe.execute()

        await self._run(op, self._none)

    async def recent(self, key: str, count: int) -> list[str]:
        if count <= 0:
            return []

        async def op(r: aioredis.Redis) -> list[str]:
            return [str(v) for v in await r.lrange(key, -count, -1)]

        async def empty() -> list[str]:
            return []

        return await self._run(op, empty)

    async def hset(self, key: str, field: str, value: str, ttl_s: int) -> None:
        async def op(r: aioredis.Redis) -> None:
            async with r.pipeline(transaction=True) as pipe:
                pipe.hset(key, field, value)
                pipe.expire(key, ttl_s)
                await pipe.execute()

        await self._run(op, self._none)

    async def hgetall(self, key: str) -> dict[str, str]:
        async def op(r: aioredis.Redis) -> dict[str, str]:
            return {str(k): str(v) for k, v in (await r.hgetall(key)).items()}

        async def empty() -> dict[str, str]:
            return {}

        return await self._run(op, empty)

    async def hincrby(self, key: str, field: str, amount: int, ttl_s: int) -> int:
        async def op(r: aioredis.Redis) -> int:
            async with r.pipeline(transaction=True) as pipe:
                pipe.hincrby(key, field, amount)
                pipe.expire(key, ttl_s)
                results: list[Any] = await pipe.execute()
            return int(results[0])

        async def dropped() -> int:
            return 0

        return await self._run(op, dropped)

    async def ping(self) -> None:
        """Always really asks Redis (no back-off), so /readyz reports the truth."""
        try:
            await asyncio.wait_for(self._redis.ping(), timeout=self._op_timeout_s * 2)
        except _OUTAGE_ERRORS as exc:
            self._mark_down(exc)
            raise StoreUnavailable(f"redis: {type(exc).__name__}") from exc
        self._mark_up()

    async def close(self) -> None:
        await self._redis.aclose()
