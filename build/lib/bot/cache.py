"""Read-through JSON cache over the store, with in-process single-flight.

Directory lookups (Slack usergroups, Graph memberships) are cached with a TTL so a burst of
questions costs one platform call, not one per question; single-flight also collapses
concurrent misses inside this process.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from bot.store import Store


class JsonCache:
    def __init__(self, store: Store, ttl_s: int) -> None:
        self._store = store
        self._ttl_s = ttl_s
        self._inflight: dict[str, asyncio.Future[Any]] = {}

    async def get_or_load(self, key: str, load: Callable[[], Awaitable[Any]]) -> Any:
        if self._ttl_s > 0:
            raw = await self._store.get(key)
            if raw is not None:
                try:
                    return json.loads(raw)
                except ValueError:
                    pass
        pending = self._inflight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            value = await load()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it, nobody else must
            raise
        else:
            future.set_result(value)
            if self._ttl_s > 0:
                await self._store.set(key, json.dumps(value), self._ttl_s)
            return value
        finally:
            self._inflight.pop(key, None)

    async def invalidate(self, *keys: str) -> None:
        await self._store.delete(*keys)
