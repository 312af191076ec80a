"""The DM and channel threads as a Slack AI app, through the real HTTP front door against the fake
Web API: status → streamed answer → closing blocks with native feedback; the fallback to
update/post on any API error with exactly one final answer; suggested prompts in both messaging
experiences; thread titles."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bot.slack.blocks import LOOKING_UP
from bot.slack.delivery import STATUS_TEXT, pieces
from tests.bot.harness import EMP, EXEC, SlackHarness, start_slack, stop_slack
from tests.fakes.slack_api import TEAM_ID, message_text

pytestmark = pytest.mark.integration

TWO_SENTENCES = "What is the dental deductible and the vision eye exam?"  # the fake answers from two documents
ANSWER_CALLS = (
    "assistant.threads.setStatus",
    "assistant.threads.setTitle",
    "chat.startStream",
    "chat.appendStream",
    "chat.stopStream",
    "chat.postMessage",
    "chat.update",
    "chat.delete",
)


def answer_calls(slack: SlackHarness) -> list[str]:
    return [m for m in slack.fake.sequence() if m in ANSWER_CALLS]


def one_final_answer(slack: SlackHarness, channel: str) -> Any:
    """Exactly one bot message in the channel, complete: no placeholder, not left streaming."""
    [message] = slack.fake.messages(channel)
    assert not message.placeholder and not message.streaming
    return message


# -- the streamed DM -------------------------------------------------------------------------------------------


async def test_a_dm_shows_status_then_streams_the_answer_with_feedback(slack: SlackHarness) -> None:
    event = slack.dm(EMP, TWO_SENTENCES)
    assert (await slack.send_event(event)).status == 200
    await slack.drain()

    calls = answer_calls(slack)
    assert calls == [
        "assistant.threads.setStatus",
        "assistant.threads.setTitle",
        "chat.startStream",
        "chat.appendStream",
        "chat.stopStream",
    ]
    [status] = slack.fake.calls_to("assistant.threads.setStatus")
    assert status.args == {"channel_id": f"D{EMP}", "thread_ts": event["ts"], "status": STATUS_TEXT}
    [title] = slack.fake.calls_to("assistant.threads.setTitle")
    assert title.args["title"] == TWO_SENTENCES and title.args["thread_ts"] == event["ts"]
    [start] = slack.fake.calls_to("chat.startStream")
    assert (start.args["channel"], start.args["thread_ts"]) == (f"D{EMP}", event["ts"])
    assert (start.args["recipient_user_id"], start.args["recipient_team_id"]) == (EMP, TEAM_ID)
    [stop] = slack.fake.calls_to("chat.stopStream")
    assert stop.args["ts"] == start.result["ts"]
    assert [b["type"] for b in stop.args["blocks"]] == ["section", "context", "context", "context_actions"]

    answer = one_final_answer(slack, f"D{EMP}")
    assert "$50" in answer.text and "one eye exam" in answer.text and "[1]" in answer.text and "[2]" in answer.text
    assert "[^" not in answer.text
    sources = message_text(answer)
    assert "Dental Plan Summary, p. 2" in sources and "Vision Plan Summary, p. 4" in sources
    assert "https://hr.example.com/contact" in sources and slack.settings.answer_footer in sources


async def test_the_streamed_text_is_the_answer_cut_at_sentences(slack: SlackHarness) -> None:
    await slack.send_event(slack.dm(EMP, TWO_SENTENCES))
    await slack.drain()
    [start] = slack.fake.calls_to("chat.startStream")
    appended = [c.args["markdown_text"] for c in slack.fake.calls_to("chat.appendStream")]
    body = start.args["markdown_text"] + "".join(appended)
    assert pieces(body) == [start.args["markdown_text"], *appended]
    assert start.args["markdown_text"].rstrip().endswith("[1]")


async def test_a_thread_is_titled_once(slack: SlackHarness) -> None:
    first = slack.dm(EMP, "dental deductible?")
    await slack.send_event(first)
    await slack.drain()
    await slack.send_event(slack.dm(EMP, "and vision?", thread_ts=first["ts"]))
    await slack.drain()
    assert len(slack.fake.calls_to("assistant.threads.setTitle")) == 1
    assert len(slack.fake.answers()) == 2


async def test_a_channel_mention_streams_into_the_thread_to_its_asker(slack: SlackHarness) -> None:
    event = slack.mention(EXEC, "dental deductible?", channel="CEXECONLY")
    await slack.send_event(event)
    await slack.drain()
    [start] = slack.fake.calls_to("chat.startStream")
    assert (start.args["channel"], start.args["thread_ts"]) == ("CEXECONLY", event["ts"])
    assert (start.args["recipient_user_id"], start.args["recipient_team_id"]) == (EXEC, TEAM_ID)
    assert slack.fake.calls_to("assistant.threads.setTitle") == []  # titles are for DM threads
    assert "$50" in one_final_answer(slack, "CEXECONLY").text


# -- any API error: one final answer all the same ----------------------------------------------------------------


async def test_an_error_mid_stream_updates_the_partial_message(slack: SlackHarness) -> None:
    slack.fake.failures["chat.appendStream"] = "internal_error"
    await slack.send_event(slack.dm(EMP, TWO_SENTENCES))
    await slack.drain()
    assert answer_calls(slack)[2:] == ["chat.startStream", "chat.appendStream", "chat.update"]
    [start] = slack.fake.calls_to("chat.startStream")
    [update] = slack.fake.calls_to("chat.update")
    assert update.args["ts"] == start.result["ts"]
    answer = one_final_answer(slack, f"D{EMP}")
    text = message_text(answer)
    assert "$50" in text and "one eye exam" in text and "Sources" in text
    assert any(b["type"] == "context_actions" for b in answer.blocks)
    assert slack.parts.slack is not None and slack.parts.slack.capabilities.streaming  # a glitch, not a refusal


async def test_a_refused_stream_posts_the_answer_and_is_not_tried_again(slack: SlackHarness) -> None:
    slack.fake.failures["chat.startStream"] = "unknown_method"
    for question in ("dental deductible?", "vision exam?"):
        await slack.send_event(slack.dm(EMP, question))
        await slack.drain()
    assert len(slack.fake.calls_to("chat.startStream")) == 1
    assert answer_calls(slack)[-3:] == ["assistant.threads.setStatus", "assistant.threads.setTitle", "chat.postMessage"]
    answers = slack.fake.answers(f"D{EMP}")
    assert len(answers) == 2 and len(slack.fake.messages()) == 2
    assert all(any(b["type"] == "context_actions" for b in a.blocks) for a in answers)


async def test_when_the_partial_message_cannot_be_updated_it_is_replaced(slack: SlackHarness) -> None:
    slack.fake.failures["chat.stopStream"] = "message_not_in_streaming_state"  # the stream expired
    slack.fake.failures["chat.update"] = "cant_update_message"
    await slack.send_event(slack.dm(EMP, TWO_SENTENCES))
    await slack.drain()
    assert answer_calls(slack)[-4:] == ["chat.stopStream", "chat.update", "chat.postMessage", "chat.delete"]
    answer = one_final_answer(slack, f"D{EMP}")
    assert not answer.streamed and "one eye exam" in message_text(answer)


async def test_a_refused_status_falls_back_to_the_placeholder(slack: SlackHarness) -> None:
    slack.fake.failures["assistant.threads.setStatus"] = "missing_scope"
    for question in ("dental deductible?", "vision exam?"):
        await slack.send_event(slack.dm(EMP, question))
        await slack.drain()
    assert len(slack.fake.calls_to("assistant.threads.setStatus")) == 1
    placeholders = [c for c in slack.fake.calls_to("chat.postMessage") if c.args["text"] == LOOKING_UP]
    assert len(placeholders) == 2 and slack.fake.calls_to("chat.startStream") == []
    assert len(slack.fake.answers(f"D{EMP}")) == 2 and len(slack.fake.messages()) == 2


async def test_streaming_off_keeps_placeholder_then_update() -> None:
    h = await start_slack({"SLACK_STREAMING": False})
    try:
        await h.send_event(h.dm(EMP, "dental deductible?"))
        await h.drain()
        assert answer_calls(h) == ["chat.postMessage", "assistant.threads.setTitle", "chat.update"]
        assert h.fake.calls_to("chat.postMessage")[0].args["text"] == LOOKING_UP
        assert "$50" in message_text(one_final_answer(h, f"D{EMP}"))
    finally:
        await stop_slack(h)


async def test_an_answer_too_long_to_stream_is_posted_in_sections(slack: SlackHarness) -> None:
    at = next(i for i, d in enumerate(slack.service.docs) if d.doc_id == "dental-plan")
    slack.service.docs[at] = replace(slack.service.docs[at], text="The dental deductible is $50 per year. " * 400)
    await slack.send_event(slack.dm(EMP, "dental deductible?"))
    await slack.drain()
    assert slack.fake.calls_to("chat.startStream") == []
    answer = one_final_answer(slack, f"D{EMP}")
    assert sum(b["type"] == "section" for b in answer.blocks) >= 5


# -- suggested prompts, in both messaging experiences -----------------------------------------------------------


async def test_opening_the_agent_dm_suggests_the_configured_prompts(slack: SlackHarness) -> None:
    await slack.send_event(
        {
            "type": "app_home_opened",
            "user": EMP,
            "channel": f"D{EMP}",
            "tab": "messages",
            "event_ts": "1710000000.000001",
        }
    )
    await slack.send_event(
        {"type": "app_home_opened", "user": EMP, "channel": f"D{EMP}", "tab": "home", "event_ts": "1710000000.000002"}
    )
    await slack.drain()
    [call] = slack.fake.calls_to("assistant.threads.setSuggestedPrompts")
    assert call.args["channel_id"] == f"D{EMP}" and "thread_ts" not in call.args
    assert [p["message"] for p in call.args["prompts"]] == slack.settings.suggested_prompts
    assert call.result == {"ok": True}


async def test_the_assistant_view_thread_gets_prompts_then_answers() -> None:
    h = await start_slack({"SUGGESTED_PROMPTS": ["How much is the dental deductible?"]})
    try:
        thread_ts = "1710000000.000500"
        await h.send_event(
            {
                "type": "assistant_thread_started",
                "assistant_thread": {
                    "user_id": EMP,
                    "channel_id": f"D{EMP}",
                    "thread_ts": thread_ts,
                    "context": {"channel_id": "CMIXED", "team_id": TEAM_ID},
                },
                "event_ts": thread_ts,
            }
        )
        await h.send_event(
            {
                "type": "assistant_thread_context_changed",
                "assistant_thread": {
                    "user_id": EMP,
                    "channel_id": f"D{EMP}",
                    "thread_ts": thread_ts,
                    "context": {"channel_id": "CEXECONLY", "team_id": TEAM_ID},
                },
                "event_ts": "1710000000.000501",
            }
        )
        await h.send_event(h.dm(EMP, "How much is the dental deductible?", thread_ts=thread_ts))
        await h.drain()
        [prompts] = h.fake.calls_to("assistant.threads.setSuggestedPrompts")
        assert prompts.args["thread_ts"] == thread_ts
        assert prompts.args["prompts"] == [
            {"title": "How much is the dental deductible?", "message": "How much is the dental deductible?"}
        ]
        assert answer_calls(h) == [
            "assistant.threads.setStatus",
            "assistant.threads.setTitle",
            "chat.startStream",
            "chat.stopStream",
        ]
        assert h.fake.calls_to("conversations.history") == []  # the viewed channel is not stored or read
        assert h.service.calls[0].question == "How much is the dental deductible?"
        assert "$50" in one_final_answer(h, f"D{EMP}").text
    finally:
        await stop_slack(h)


async def test_no_prompts_configured_means_no_call() -> None:
    h = await start_slack({"SUGGESTED_PROMPTS": []})
    try:
        await h.send_event(
            {
                "type": "app_home_opened",
                "user": EMP,
                "channel": f"D{EMP}",
                "tab": "messages",
                "event_ts": "1710000000.000001",
            }
        )
        await h.drain()
        assert h.fake.calls_to("assistant.threads.setSuggestedPrompts") == []
    finally:
        await stop_slack(h)


async def test_app_context_changed_is_acknowledged_and_ignored(slack: SlackHarness) -> None:
    resp = await slack.send_event(
        {
            "type": "app_context_changed",
            "user": EMP,
            "channel": f"D{EMP}",
            "context": {"entities": [{"type": "slack#/types/channel_id", "value": "CMIXED"}]},
            "event_ts": "1710000000.000009",
        }
    )
    assert resp.status == 200
    await slack.drain()
    assert answer_calls(slack) == [] and slack.service.calls == []
