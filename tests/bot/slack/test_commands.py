"""/benefits: private by default, "Share in channel" re-answers under the audience rule; feedback."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.slack.app import SHARE_DONE, SHARE_NO_AUDIENCE, SHARE_REFUSED
from bot.slack.blocks import FEEDBACK_ACTION, FEEDBACK_DOWN, FEEDBACK_UP, LOOKING_UP, SHARE_ACTION
from tests.bot.harness import CON, EMP, EXEC, NOBODY, SlackHarness
from tests.fakes.answer_service import CANARIES
from tests.fakes.slack_api import message_text

pytestmark = pytest.mark.integration


def _share_value(post: dict[str, Any]) -> str:
    for block in post["blocks"]:
        if block.get("block_id") == "share":
            return str(block["elements"][0]["value"])
    raise AssertionError("no share button")


async def test_command_is_ephemeral_with_share_button(slack: SlackHarness) -> None:
    resp = await slack.send_command(EMP, "How much is the dental deductible?")
    assert resp.status == 200
    assert LOOKING_UP in await resp.text()
    await slack.drain()
    assert slack.fake.posts("chat.postMessage") == []  # nothing public
    [post] = slack.fake.response_posts
    assert post["response_type"] == "ephemeral"
    assert post["unfurl_links"] is False and post["unfurl_media"] is False
    assert "$50" in message_text(post)
    assert json.loads(_share_value(post))["q"] == "How much is the dental deductible?"


async def test_empty_command_gets_help(slack: SlackHarness) -> None:
    await slack.send_command(EMP, "")
    await slack.drain()
    assert "Ask me a benefits question" in message_text(slack.fake.response_posts[0])
    assert slack.service.calls == []


async def test_share_posts_when_the_channel_may_see_it(slack: SlackHarness) -> None:
    await slack.send_command(EMP, "dental deductible?", channel="CMIXED")
    await slack.drain()
    value = _share_value(slack.fake.response_posts[0])
    resp = await slack.send_action(EMP, SHARE_ACTION, value, channel="CMIXED", name="share1")
    assert resp.status == 200
    await slack.drain()
    [shared] = slack.fake.posts("chat.postMessage", "CMIXED")
    assert "$50" in message_text(shared) and f"<@{EMP}> shared" in message_text(shared)
    assert shared.args["unfurl_links"] is False
    # re-answered with the audience rule, not reposted
    assert slack.service.calls[-1].audience, "share must re-answer with audience tokens"
    assert slack.fake.response_posts[-1]["text"] == SHARE_DONE


async def test_share_refused_when_the_channel_may_not_see_it(slack: SlackHarness) -> None:
    await slack.send_command(EXEC, "canary code?", channel="CMIXED")
    await slack.drain()
    private = message_text(slack.fake.response_posts[0])
    assert CANARIES["executives"] in private
    await slack.send_action(EXEC, SHARE_ACTION, _share_value(slack.fake.response_posts[0]), channel="CMIXED")
    await slack.drain()
    assert slack.fake.posts("chat.postMessage", "CMIXED") == []
    assert slack.fake.response_posts[-1]["text"] == SHARE_REFUSED
    assert slack.fake.response_posts[-1]["response_type"] == "ephemeral"


async def test_share_refused_when_members_cannot_be_listed(slack: SlackHarness) -> None:
    await slack.send_command(EMP, "dental deductible?", channel="CPRIVATE")
    await slack.drain()
    await slack.send_action(EMP, SHARE_ACTION, _share_value(slack.fake.response_posts[0]), channel="CPRIVATE")
    await slack.drain()
    assert slack.fake.posts("chat.postMessage") == []
    assert slack.fake.response_posts[-1]["text"] == SHARE_NO_AUDIENCE


async def test_forged_share_value_cannot_widen_access(slack: SlackHarness) -> None:
    """The share payload carries only the question; access is recomputed for the clicker."""
    value = json.dumps({"q": "canary code?"})
    await slack.send_action(CON, SHARE_ACTION, value, channel="CMIXED")
    await slack.drain()
    for post in slack.fake.posts("chat.postMessage"):
        assert CANARIES["executives"] not in message_text(post)


async def test_unmapped_user_command_gets_no_access_without_core_call(slack: SlackHarness) -> None:
    await slack.send_command(NOBODY, "canary code?")
    await slack.drain()
    text = message_text(slack.fake.response_posts[0])
    assert "won't guess" in text
    assert "share" not in json.dumps(slack.fake.response_posts[0].get("blocks"))
    assert slack.service.calls == []


@pytest.mark.parametrize("side, vote", [("positive_button", "up"), ("negative_button", "down")])
async def test_native_feedback_is_recorded_with_query_id(slack: SlackHarness, side: str, vote: str) -> None:
    await slack.send_event(slack.dm(EMP, "dental deductible?"))
    await slack.drain()
    blocks = slack.fake.answers()[0].args["blocks"]
    [buttons] = next(b for b in blocks if b["type"] == "context_actions")["elements"]
    assert buttons["type"] == "feedback_buttons" and buttons["action_id"] == FEEDBACK_ACTION
    value = buttons[side]["value"]
    query_id = value.split(":", 1)[1]
    resp = await slack.send_action(EMP, FEEDBACK_ACTION, value, channel=f"D{EMP}", action_type="feedback_buttons")
    assert resp.status == 200
    await slack.drain()
    stored = await slack.parts.store.hgetall(f"feedback:{query_id}")
    assert list(stored.values()) == [vote]
    assert EMP not in json.dumps(stored)  # user ids are hashed
    metric = slack.parts.metrics.registry.get_sample_value(
        "benefitsbot_feedback_total", {"platform": "slack", "vote": vote}
    )
    assert metric == 1.0
    assert slack.fake.response_posts[-1]["text"] == "Thanks for the feedback!"


@pytest.mark.parametrize("action_id, vote", [(FEEDBACK_UP, "up"), (FEEDBACK_DOWN, "down")])
async def test_thumbs_on_older_messages_still_count(slack: SlackHarness, action_id: str, vote: str) -> None:
    """Messages posted before the native feedback buttons carry thumbs buttons whose value is the query id."""
    resp = await slack.send_action(EMP, action_id, "0123456789abcdef", channel=f"D{EMP}")
    assert resp.status == 200
    await slack.drain()
    assert list((await slack.parts.store.hgetall("feedback:0123456789abcdef")).values()) == [vote]


@pytest.mark.parametrize(
    "action_id, value",
    [
        (FEEDBACK_UP, "not a query id; DROP TABLE"),
        (FEEDBACK_ACTION, "up:not a query id; DROP TABLE"),
        (FEEDBACK_ACTION, "sideways:0123456789abcdef"),
        (FEEDBACK_ACTION, "0123456789abcdef"),
    ],
)
async def test_malformed_feedback_is_ignored(slack: SlackHarness, action_id: str, value: str) -> None:
    await slack.send_action(EMP, action_id, value, channel=f"D{EMP}", action_type="feedback_buttons")
    await slack.drain()
    assert slack.fake.response_posts == []
