"""/healthz, /readyz (dependencies with reasons) and /metrics."""

from __future__ import annotations

import pytest

from tests.bot.harness import EMP, RBAC_KEY, SlackHarness, start_slack, stop_slack
from tests.fakes.answer_service import FakeAnswerService

pytestmark = pytest.mark.integration


async def test_healthz(slack: SlackHarness) -> None:
    resp = await slack.client.get("/healthz")
    assert resp.status == 200 and (await resp.json())["status"] == "ok"


async def test_readyz_ready(slack: SlackHarness) -> None:
    resp = await slack.client.get("/readyz")
    body = await resp.json()
    assert resp.status == 200
    assert body["ready"] is True and body["status"] == "ready"
    assert body["checks"]["memory"]["ok"] and body["checks"]["index"]["ok"]
    assert body["platforms"]["slack_http"] == "on"


async def test_readyz_not_ready_with_reason() -> None:
    h = await start_slack(service=FakeAnswerService(key=RBAC_KEY, is_ready=False))
    try:
        resp = await h.client.get("/readyz")
        body = await resp.json()
        assert resp.status == 503
        assert body["ready"] is False and body["status"] == "not_ready"
        assert body["reasons"] == ["index: fake index is not loaded"]
    finally:
        await stop_slack(h)


async def test_readyz_reports_unreachable_redis() -> None:
    h = await start_slack({"REDIS_URL": "redis://127.0.0.1:1/0"})
    try:
        body = await (await h.client.get("/readyz")).json()
        assert body["checks"]["redis"]["ok"] is False
        assert body["status"] == "degraded" and any("redis" in r for r in body["reasons"])
    finally:
        await stop_slack(h)


async def test_metrics_exposition(slack: SlackHarness) -> None:
    await slack.send_event(slack.dm(EMP, "dental deductible?"))
    await slack.send_event(slack.dm(EMP, "llama policy?"))
    await slack.drain()
    text = await (await slack.client.get("/metrics")).text()
    assert 'benefitsbot_requests_total{kind="event_callback",platform="slack"} 2.0' in text
    assert 'benefitsbot_answers_total{outcome="answered",platform="slack"} 1.0' in text
    assert 'benefitsbot_abstentions_total{platform="slack",reason="low_similarity"} 1.0' in text
    assert 'benefitsbot_answer_latency_seconds_count{platform="slack"} 2.0' in text
    assert "benefitsbot_errors_total" in text
