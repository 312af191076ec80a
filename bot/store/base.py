"""The store interface the edge depends on.

Operations are deliberately few and semantic (claim, count, cache, remember) so the Redis
implementation can degrade each one sensibly when Redis is down.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Store(Protocol):
    async def claim(self, key: str, ttl_s: int) -> bool:
        """Set ``key`` if absent (SET NX EX). True for exactly one caller per key and TTL."""
        ...

    async def incr_window(self, key: str, ttl_s: int) -> int:
        """Increment a counter that expires ``ttl_s`` after its first increment; return the new value."""
        ...

    async def get(self, key: str) -> str | None: ...

    async def set(self, key: str, value: str, ttl_s: int) -> None: ...

    async def delete(self, *keys: str) -> None: ...

    async def push_recent(self, key: str, value: str, *, keep: int, ttl_s: int) -> None:
        """Append ``value`` to a capped list (the newest ``keep`` items survive)."""
        ...

    async def recent(self, key: str, count: int) -> list[str]:
        """The newest ``count`` items of the list, oldest first."""
        ...

    async def hset(self, key: str, field: str, value: str, ttl_s: int) -> None: ...

    async def hgetall(self, key: str) -> dict[str, str]: ...

    async def hincrby(self, key: str, field: str, amount: int, ttl_s: int) -> int:
        """Add ``amount`` to a counter in the hash at ``key`` and (re)set the key's TTL; return the new
        value. While Redis is down the increment is dropped (the report undercounts; nothing fails)."""
        ...

    async def ping(self) -> None:
        """Raise :class:`bot.errors.StoreUnavailable` when the backing service is unreachable."""
        ...

    @property
    def kind(self) -> str:
        """ "redis" or "memory", for /readyz."""
        ...

    async def close(self) -> None: ...
