"""The Store contract, for both implementations (Redis against a real redis-server)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from bot.store import MemoryStore, RedisStore, Store, create_store
from tests.bot.conftest import RedisServer


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    if request.param == "memory":
        yield MemoryStore()
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    redis_store = RedisStore(server.url, retry_interval_s=0)
    try:
        yield redis_store
    finally:
        await redis_store.close()


@pytest.mark.integration
async def test_claim_is_exclusive_under_concurrency(store: Store) -> None:
    results = await asyncio.gather(*(store.claim("dedupe:x", 60) for _ in range(50)))
    assert results.count(True) == 1
    assert await store.claim("dedupe:y", 60) is True


@pytest.mark.integration
async def test_counter_window(store: Store) -> None:
    assert [await store.incr_window("rl:u", 60) for _ in range(3)] == [1, 2, 3]


@pytest.mark.integration
async def test_get_set_delete(store: Store) -> None:
    assert await store.get("k") is None
    await store.set("k", "v", 60)
    assert await store.get("k") == "v"
    await store.delete("k")
    assert await store.get("k") is None


@pytest.mark.integration
async def test_recent_list_is_capped_oldest_first(store: Store) -> None:
    for q in ("q1", "q2", "q3", "q4"):
        await store.push_recent("thread:t", q, keep=3, ttl_s=60)
    assert await store.recent("thread:t", 3) == ["q2", "q3", "q4"]
    assert await store.recent("thread:t", 2) == ["q3", "q4"]
    assert await store.recent("thread:none", 2) == []


@pytest.mark.integration
async def test_hash(store: Store) -> None:
    await store.hset("feedback:q1", "u1", "up", 60)
    await store.hset("feedback:q1", "u2", "down", 60)
    assert await store.hgetall("feedback:q1") == {"u1": "up", "u2": "down"}


@pytest.mark.integration
async def test_hash_counters(store: Store) -> None:
    results = await asyncio.gather(*(store.hincrby("report:d", "topic", 1, 60) for _ in range(20)))
    assert sorted(results) == list(range(1, 21))  # atomic: no increment lost under concurrency
    assert await store.hincrby("report:d", "other", 3, 60) == 3
    assert await store.hgetall("report:d") == {"topic": "20", "other": "3"}


@pytest.mark.unit
async def test_memory_hash_counters_expire() -> None:
    clock = Clock()
    s = MemoryStore(clock=clock)
    await s.hincrby("report:d", "t", 2, 10)
    clock.now = 11
    assert await s.hgetall("report:d") == {}


@pytest.mark.unit
async def test_memory_store_expires() -> None:
    clock = Clock()
    s = MemoryStore(clock=clock)
    assert await s.claim("a", 10)
    await s.set("b", "v", 10)
    assert await s.incr_window("c", 10) == 1
    clock.now = 11
    assert await s.claim("a", 10)
    assert await s.get("b") is None
    assert await s.incr_window("c", 10) == 1


@pytest.mark.unit
async def test_memory_store_is_bounded() -> None:
    s = MemoryStore(max_keys=10)
    for i in range(25):
        await s.set(f"k{i}", "v", 60)
    assert await s.get("k24") == "v"
    assert len(s._data) <= 10


@pytest.mark.unit
def test_create_store_picks_implementation() -> None:
    assert isinstance(create_store(None), MemoryStore)
    assert isinstance(create_store("redis://127.0.0.1:1/0"), RedisStore)


@pytest.mark.integration
async def test_redis_outage_degrades_and_recovers(redis_server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    s = RedisStore(redis_server.url, retry_interval_s=0)
    states: list[bool] = []
    s.on_state_change = states.append
    try:
        await s.set("cached", "v", 60)
        assert await s.claim("dedupe:before", 60)
        redis_server.stop()
        with caplog.at_level("WARNING", logger="bot.store.redis_store"):
            for _ in range(5):
                assert await s.get("cached") is None  # caches are skipped, not errors
                await s.set("cached2", "v", 60)
                assert await s.recent("thread:x", 3) == []
                assert await s.hincrby("report:x", "t", 1, 60) == 0  # a report count is dropped, no error
            assert await s.claim("dedupe:during", 60) is True  # per-process fallback still dedupes
            assert await s.claim("dedupe:during", 60) is False
            assert await s.incr_window("rl:during", 60) == 1
        outage_logs = [r for r in caplog.records if "Redis unavailable" in r.getMessage()]
        assert len(outage_logs) == 1  # once per outage, not per request
        assert not s.available and states == [False]
        redis_server.start()
        assert await s.claim("dedupe:after", 60) is True
        assert await s.claim("dedupe:after", 60) is False
        assert s.available and states == [False, True]
        await s.ping()
    finally:
        await s.close()


@pytest.mark.integration
async def test_backoff_skips_redis_while_down(redis_server: RedisServer) -> None:
    clock = Clock()
    s = RedisStore(redis_server.url, retry_interval_s=30, clock=clock)
    try:
        redis_server.stop()
        assert await s.get("x") is None
        assert not s.available
        redis_server.start()
        await s.set("x", "v", 60)  # still inside the back-off window: not even tried
        assert await s.get("x") is None
        clock.now += 31
        await s.set("x", "v", 60)
        assert await s.get("x") == "v" and s.available
    finally:
        await s.close()
