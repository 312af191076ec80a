"""Slack request signatures: always verified; anything but a genuine, fresh v0 signature is a 401."""

from __future__ import annotations

import time

import pytest
from slack_sdk.signature import SignatureVerifier

from tests.bot.harness import EMP, SIGNING_SECRET, SlackHarness, sign_slack

pytestmark = pytest.mark.integration


@pytest.mark.unit
def test_our_signer_matches_slack_sdk() -> None:
    body, ts = '{"a":1}', int(time.time())
    headers = sign_slack(body, timestamp=ts)
    assert SignatureVerifier(SIGNING_SECRET).is_valid(body, str(ts), headers["X-Slack-Signature"])


async def _assert_unanswered(slack: SlackHarness) -> None:
    await slack.drain()
    assert slack.fake.posts("chat.postMessage") == []
    assert slack.service.calls == []


async def test_genuine_request_is_accepted(slack: SlackHarness) -> None:
    resp = await slack.send_event(slack.dm(EMP, "dental?"))
    assert resp.status == 200


async def test_wrong_secret_is_401(slack: SlackHarness) -> None:
    resp = await slack.send_event(slack.dm(EMP, "dental?"), secret="not-the-secret")
    assert resp.status == 401
    await _assert_unanswered(slack)


async def test_forged_signature_is_401(slack: SlackHarness) -> None:
    body = slack.event_body(slack.dm(EMP, "dental?"))
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": str(int(time.time())),
        "X-Slack-Signature": "v0=" + "0" * 64,
    }
    resp = await slack.client.post("/slack/events", data=body, headers=headers)
    assert resp.status == 401
    await _assert_unanswered(slack)


async def test_tampered_body_is_401(slack: SlackHarness) -> None:
    body = slack.event_body(slack.dm(EMP, "dental?"))
    headers = {"Content-Type": "application/json", **sign_slack(body)}
    tampered = body.replace("dental?", "executive pay?")
    resp = await slack.client.post("/slack/events", data=tampered, headers=headers)
    assert resp.status == 401
    await _assert_unanswered(slack)


@pytest.mark.parametrize("missing", ["X-Slack-Signature", "X-Slack-Request-Timestamp", "both"])
async def test_missing_headers_are_401(slack: SlackHarness, missing: str) -> None:
    body = slack.event_body(slack.dm(EMP, "dental?"))
    headers = {"Content-Type": "application/json", **sign_slack(body)}
    for name in ("X-Slack-Signature", "X-Slack-Request-Timestamp") if missing == "both" else (missing,):
        headers.pop(name)
    resp = await slack.client.post("/slack/events", data=body, headers=headers)
    assert resp.status == 401
    await _assert_unanswered(slack)


@pytest.mark.parametrize("skew", [-301, -3600, 301])
async def test_stale_or_future_timestamp_is_401(slack: SlackHarness, skew: int) -> None:
    resp = await slack.send_event(slack.dm(EMP, "dental?"), timestamp=int(time.time()) + skew)
    assert resp.status == 401
    await _assert_unanswered(slack)


async def test_unsigned_url_verification_is_401(slack: SlackHarness) -> None:
    resp = await slack.client.post("/slack/events", json={"type": "url_verification", "challenge": "abc", "token": "x"})
    assert resp.status == 401


async def test_signed_url_verification_echoes_challenge(slack: SlackHarness) -> None:
    resp = await slack.post_signed(
        '{"type":"url_verification","challenge":"abc123","token":"x"}', content_type="application/json"
    )
    assert resp.status == 200
    assert "abc123" in await resp.text()


async def test_forged_command_and_action_are_401(slack: SlackHarness) -> None:
    resp = await slack.client.post(
        "/slack/events",
        data="command=%2Fbenefits&text=exec+pay&user_id=UEMP&response_url=http%3A%2F%2F127.0.0.1%2Fx",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Slack-Request-Timestamp": str(int(time.time())),
            "X-Slack-Signature": "v0=deadbeef",
        },
    )
    assert resp.status == 401
    await _assert_unanswered(slack)
