"""In-process store: dev mode, and the fallback for claims and counters while Redis is down.

Everything runs on one event loop with no awaits inside an operation, so each operation is
atomic with respect to concurrent requests (a retry storm still yields exactly one claim).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


class MemoryStore:
    def __init__(self, *, clock: Callable[[], float] = time.monotonic, max_keys: int = 100_000) -> None:
        self._data: dict[str, tuple[float, Any]] = {}
        self._clock = clock
        self._max_keys = max_keys

    @property
    def kind(self) -> str:
        return "memory"

    def _live(self, key: str) -> Any | None:
        item = self._data.get(key)
        if item is None:
            return None
        expires, value = item
        if expires <= self._clock():
            del self._data[key]
            return None
        return value

    def _put(self, key: str, value: Any, ttl_s: float) -> None:
        if len(self._data) >= self._max_keys:
            self._evict()
        self._data[key] = (self._clock() + ttl_s, value)

    def _evict(self) -> None:
        now = self._clock()
        for key in [k for k, (exp, _) in self._data.items() if exp <= now]:
            del self._data[key]
        while len(self._data) >= self._max_keys:  # still full: drop the soonest to expire
            del self._data[min(self._data, key=lambda k: self._data[k][0])]

    async def claim(self, key: str, ttl_s: int) -> bool:
        if self._live(key) is not None:
            return False
        self._put(key, "1", ttl_s)
        return True

    async def incr_window(self, key: str, ttl_s: int) -> int:
        item = self._data.get(key)
        if item is None or item[0] <= self._clock():
            self._put(key, 1, ttl_s)
            return 1
        expires, value = item
        self._data[key] = (expires, int(value) + 1)
        return int(value) + 1

    async def get(self, key: str) -> str | None:
        value = self._live(key)
        return value if isinstance(value, str) else None

    async def set(self, key: str, value: str, ttl_s: int) -> None:
        self._put(key, value, ttl_s)

    async def delete(self, *keys: str) -> None:
        for key in keys:
            self._data.pop(key, None)

    async def push_recent(self, key: str, value: str, *, keep: int, ttl_s: int) -> None:
        items = self._live(key)
        items = list(items) if isinstance(items, list) else []
        items.append(value)
        self._put(key, items[-keep:], ttl_s)

    async def recent(self, key: str, count: int) -> list[str]:
        items = self._live(key)
        return list(items[-count:]) if isinstance(items, list) and count > 0 else []

    async def hset(self, key: str, field: str, value: str, ttl_s: int) -> None:
        current = self._live(key)
        mapping = dict(current) if isinstance(current, dict) else {}
        mapping[field] = value
        self._put(key, mapping, ttl_s)

    async def hgetall(self, key: str) -> dict[str, str]:
        current = self._live(key)
        return dict(current) if isinstance(current, dict) else {}

    async def hincrby(self, key: str, field: str, amount: int, ttl_s: int) -> int:
        current = self._live(key)
        mapping = dict(current) if isinstance(current, dict) else {}
        value = int(mapping.get(field, "0")) + amount
        mapping[field] = str(value)
        self._put(key, mapping, ttl_s)
        return value

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        self._data.clear()
