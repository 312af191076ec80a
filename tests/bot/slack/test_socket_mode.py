"""Socket Mode (SLACK_APP_TOKEN): events arrive over a WebSocket from the fake Slack, are acked
by envelope id, deduplicated by event_id, and answered through the same Web API."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.bot.harness import APP_TOKEN, EMP, start_slack, stop_slack
from tests.fakes.slack_api import message_text

pytestmark = pytest.mark.integration


async def test_socket_mode_event_is_acked_and_answered_once() -> None:
    h = await start_slack({"SLACK_APP_TOKEN": APP_TOKEN})
    try:
        assert h.parts.platforms["slack_socket_mode"] == "on"
        await h.fake.wait_for(lambda: h.fake.socket_connected.is_set())
        assert h.fake.calls_to("apps.connections.open")[0].headers["Authorization"] == f"Bearer {APP_TOKEN}"
        payload = json.loads(h.event_body(h.dm(EMP, "dental deductible?"), event_id="EvSOCKET1"))
        for attempt in (0, 1):  # the original and Slack's retry of it
            await h.fake.send_socket_envelope(
                {
                    "envelope_id": f"env-{uuid.uuid4().hex[:6]}",
                    "type": "events_api",
                    "payload": payload,
                    "accepts_response_payload": False,
                    "retry_attempt": attempt,
                    "retry_reason": "timeout" if attempt else "",
                }
            )
        await h.fake.wait_for(lambda: len(h.fake.socket_acks) >= 2)
        await h.fake.wait_for(lambda: h.fake.answers())
        await h.drain()
        assert all("envelope_id" in ack for ack in h.fake.socket_acks)
        assert len(h.fake.answers()) == 1
        assert "$50" in message_text(h.fake.answers()[0])
    finally:
        await stop_slack(h)
