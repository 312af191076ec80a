"""A real redis-server killed mid-test: the bot keeps answering, and dedupe recovers after restart."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from bot.store import RedisStore
from tests.bot.conftest import RedisServer
from tests.bot.harness import EMP, SlackHarness, start_slack, stop_slack
from tests.fakes.slack_api import message_text

pytestmark = pytest.mark.integration


async def _ask_storm(h: SlackHarness, event_id: str) -> None:
    event = h.dm(EMP, "How much is the dental deductible?")
    await asyncio.gather(*(h.send_event(event, event_id=event_id, retry_num=n) for n in range(3)))
    await h.drain()


async def test_answers_continue_through_a_redis_outage(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    h = await start_slack({"REDIS_URL": redis_server.url})
    try:
        assert isinstance(h.parts.store, RedisStore)
        await _ask_storm(h, "EvBEFORE")
        assert len(h.fake.answers()) == 1
        probe = aioredis.from_url(redis_server.url)
        assert await probe.exists("dedupe:slack:EvBEFORE") == 1
        await probe.aclose()

        redis_server.stop()
        with caplog.at_level("WARNING"):
            for i in range(3):
                await h.send_event(h.dm(EMP, "How much is the dental deductible?"), event_id=f"EvDURING{i}")
            await h.drain()
        answers = h.fake.answers()
        assert len(answers) == 4 and all("$50" in message_text(u) for u in answers)
        assert sum("Redis unavailable" in r.getMessage() for r in caplog.records) == 1
        metric = h.parts.metrics.registry.get_sample_value("benefitsbot_store_available")
        assert metric == 0.0
        readyz = await h.client.get("/readyz")
        body = await readyz.json()
        assert readyz.status == 200 and body["status"] == "degraded"
        assert any(reason.startswith("redis:") for reason in body["reasons"])

        redis_server.start()
        await _ask_storm(h, "EvAFTER")
        assert len(h.fake.answers()) == 5  # exactly one more, despite the retries
        probe = aioredis.from_url(redis_server.url)
        assert await probe.exists("dedupe:slack:EvAFTER") == 1  # shared dedupe is back in Redis
        await probe.aclose()
        assert h.parts.metrics.registry.get_sample_value("benefitsbot_store_available") == 1.0
        assert (await h.client.get("/readyz")).status == 200
    finally:
        await stop_slack(h)


async def test_thread_memory_and_cache_live_in_redis(redis_server: RedisServer) -> None:
    h = await start_slack({"REDIS_URL": redis_server.url})
    try:
        first = h.mention(EMP, "What does the vision plan cover?", channel="CEMPEXEC")
        await h.send_event(first)
        await h.drain()
        await h.send_event(h.mention(EMP, "and dental?", channel="CEMPEXEC", thread_ts=first["ts"]))
        await h.drain()
        assert h.service.calls[-1].history == ["What does the vision plan cover?"]
        probe = aioredis.from_url(redis_server.url)
        assert await probe.keys("answer:*")
        await probe.aclose()
    finally:
        await stop_slack(h)
