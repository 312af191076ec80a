"""Core faults become a short apology with the HR contact: never a stack trace, always logged."""

from __future__ import annotations

import logging

import pytest

from rag_core.errors import AccessDenied, GenerationFailed, IndexUnavailable
from tests.bot.harness import EMP, RBAC_KEY, start_slack, start_teams, stop_slack, stop_teams
from tests.fakes.answer_service import FakeAnswerService
from tests.fakes.slack_api import message_text
from tests.fakes.teams_connector import activity_text

pytestmark = pytest.mark.integration

FAULTS = {
    "index_unavailable": IndexUnavailable("qdrant down at 10.0.0.5:6333"),
    "generation_failed": GenerationFailed("openai 500 after 2 retries"),
    "access_denied": AccessDenied("access token signature is invalid"),
    "unexpected": RuntimeError("boom: secret internals"),
}


def _assert_apology(text: str) -> None:
    assert "Sorry, I can't answer right now" in text
    assert "https://hr.example.com/contact" in text
    assert "Reference:" in text
    for leak in ("Traceback", "qdrant", "openai", "signature", "boom", "Error"):
        assert leak not in text


@pytest.mark.parametrize("fault", sorted(FAULTS))
async def test_slack_fault_gives_apology(fault: str, caplog: pytest.LogCaptureFixture) -> None:
    h = await start_slack(service=FakeAnswerService(key=RBAC_KEY, fail_with=FAULTS[fault]))
    try:
        with caplog.at_level(logging.ERROR):
            await h.send_event(h.dm(EMP, "dental deductible?"))
            await h.drain()
        text = message_text(h.fake.answers()[0])
        _assert_apology(text)
        reference = text.split("Reference: ")[1].split(")")[0]
        assert any(reference in r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)
        assert (
            h.parts.metrics.registry.get_sample_value(
                "benefitsbot_errors_total", {"platform": "slack", "kind": type(FAULTS[fault]).__name__}
            )
            == 1.0
        )
    finally:
        await stop_slack(h)


async def test_slack_timeout_gives_apology() -> None:
    h = await start_slack({"ANSWER_TIMEOUT_S": 0.2}, service=FakeAnswerService(key=RBAC_KEY, delay_s=5))
    try:
        await h.send_event(h.dm(EMP, "dental deductible?"))
        await h.drain()
        _assert_apology(message_text(h.fake.answers()[0]))
    finally:
        await stop_slack(h)


async def test_slack_directory_failure_gives_apology() -> None:
    h = await start_slack()
    try:
        h.fake.failures["usergroups.list"] = "ratelimited"
        await h.send_event(h.dm(EMP, "dental deductible?"))
        await h.drain()
        _assert_apology(message_text(h.fake.answers()[0]))
        assert h.service.calls == []
    finally:
        await stop_slack(h)


async def test_command_fault_gives_apology() -> None:
    h = await start_slack(service=FakeAnswerService(key=RBAC_KEY, fail_with=IndexUnavailable("down")))
    try:
        await h.send_command(EMP, "dental deductible?")
        await h.drain()
        _assert_apology(message_text(h.fake.response_posts[0]))
    finally:
        await stop_slack(h)


@pytest.mark.parametrize("fault", ["index_unavailable", "generation_failed"])
async def test_teams_fault_gives_apology(fault: str) -> None:
    h = await start_teams(service=FakeAnswerService(key=RBAC_KEY, fail_with=FAULTS[fault]))
    try:
        await h.post(h.activity(EMP, "dental deductible?"))
        await h.drain()
        _assert_apology(activity_text(h.connector.messages()[0]))
    finally:
        await stop_teams(h)


async def test_teams_timeout_gives_apology() -> None:
    h = await start_teams({"ANSWER_TIMEOUT_S": 0.2}, service=FakeAnswerService(key=RBAC_KEY, delay_s=5))
    try:
        await h.post(h.activity(EMP, "dental deductible?"))
        await h.drain()
        _assert_apology(activity_text(h.connector.messages()[0]))
    finally:
        await stop_teams(h)
