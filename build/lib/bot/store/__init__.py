"""Shared short-lived state: event dedupe, rate limits, caches, thread memory, feedback.

One :class:`Store` protocol, two implementations: :class:`RedisStore` (production, shared by
every replica) and :class:`MemoryStore` (dev only, one process).
"""

from __future__ import annotations

from bot.store.base import Store
from bot.store.memory import MemoryStore
from bot.store.redis_store import RedisStore

__all__ = ["Store", "MemoryStore", "RedisStore", "create_store"]


def create_store(redis_url: str | None, *, retry_interval_s: float = 5.0) -> Store:
    """Redis when configured, else the in-process store (``check_startup`` forbids that in prod)."""
    if redis_url:
        return RedisStore(redis_url, retry_interval_s=retry_interval_s)
    return MemoryStore()
