"""The Slack edge under hostile or broken input: an unparseable body is a 400 without a traceback,
and no request body (an employee's question) reaches the logs at any level unless LOG_QUERIES=true."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from urllib.parse import urlencode

import pytest
import pytest_asyncio

from bot.observability import loggable_question
from tests.bot.harness import EMP, SlackHarness, start_slack, stop_slack

pytestmark = pytest.mark.integration

SECRET_QUESTION = "Does my plan cover my HIV medication?"
MARKERS = ("HIV", "HIV+medication", "HIV%20medication")


@pytest_asyncio.fixture
async def fresh_slack() -> AsyncIterator[SlackHarness]:
    harness = await start_slack()
    try:
        yield harness
    finally:
        await stop_slack(harness)


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ("{not json", "application/json"),
        ("[1]", "application/json"),
        ('"just a string"', "application/json"),
        ("payload=%7Bnot+json", "application/x-www-form-urlencoded"),
        ("payload=%5B1%5D", "application/x-www-form-urlencoded"),
        ("\udcff", "application/json"),
    ],
)
async def test_unparseable_body_is_400_without_a_traceback(
    fresh_slack: SlackHarness, caplog: pytest.LogCaptureFixture, body: str, content_type: str
) -> None:
    caplog.set_level(logging.DEBUG)
    data = body.encode("utf-8", "surrogateescape")
    resp = await fresh_slack.client.post("/slack/events", data=data, headers={"Content-Type": content_type})
    assert resp.status == 400
    assert not any(r.exc_info for r in caplog.records)
    assert "Traceback" not in caplog.text
    assert fresh_slack.service.calls == []


def _bad_signature_requests(slack: SlackHarness) -> list[tuple[str, str]]:
    event = slack.event_body(slack.dm(EMP, SECRET_QUESTION))
    command = urlencode(
        {"command": "/benefits", "text": SECRET_QUESTION, "user_id": EMP, "response_url": slack.fake.response_url()}
    )
    action = urlencode(
        {
            "payload": json.dumps(
                {
                    "type": "block_actions",
                    "user": {"id": EMP},
                    "actions": [{"value": json.dumps({"q": SECRET_QUESTION})}],
                }
            )
        }
    )
    return [
        (event, "application/json"),
        (command, "application/x-www-form-urlencoded"),
        (action, "application/x-www-form-urlencoded"),
    ]


@pytest.mark.parametrize("level", [logging.DEBUG, logging.INFO, logging.WARNING])
async def test_a_question_in_a_forged_request_never_reaches_the_log(
    caplog: pytest.LogCaptureFixture, level: int
) -> None:
    caplog.set_level(level)  # the operator's LOG_LEVEL (the root level), set before the app is built
    caplog.handler.setLevel(logging.NOTSET)  # capture whatever any logger lets through
    slack = await start_slack()
    try:
        for body, content_type in _bad_signature_requests(slack):
            resp = await slack.post_signed(body, content_type=content_type, secret="wrong-secret")
            assert resp.status == 401
        # ...and a genuine one, answered normally
        await slack.send_event(slack.dm(EMP, SECRET_QUESTION))
        await slack.drain()
    finally:
        await stop_slack(slack)
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    assert not any(marker in logged for marker in MARKERS), logged[-2000:]


async def test_with_log_queries_the_signature_failure_is_logged_in_full(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    slack = await start_slack({"LOG_QUERIES": True})
    try:
        body, content_type = _bad_signature_requests(slack)[0]
        assert (await slack.post_signed(body, content_type=content_type, secret="wrong-secret")).status == 401
    finally:
        await stop_slack(slack)
        await stop_slack(await start_slack())  # leave the shared bolt loggers redacting for later tests
    assert "HIV" in caplog.text


@pytest.mark.unit
def test_the_question_digest_is_keyed() -> None:
    """A plain hash is reversed by hashing guesses; the logged digest needs the server's secret."""
    import hashlib

    one = loggable_question(SECRET_QUESTION, False, "key-one-0123456789012345678901234")
    two = loggable_question(SECRET_QUESTION, False, "key-two-0123456789012345678901234")
    assert one != two and "HIV" not in one
    assert hashlib.sha256(SECRET_QUESTION.encode()).hexdigest()[:12] not in one
    assert loggable_question(SECRET_QUESTION, True, "k") == repr(SECRET_QUESTION)
