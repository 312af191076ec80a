"""Slack events end to end: DMs, mentions, threads, placeholders, ignoring bots, dedupe, ack timing."""

from __future__ import annotations

import asyncio

import pytest

from tests.bot.harness import EMP, EXEC, OTHER_BOT, SlackHarness
from tests.fakes.answer_service import CANARIES
from tests.fakes.slack_api import message_text

pytestmark = pytest.mark.integration


async def test_dm_gets_one_answer_in_thread(slack: SlackHarness) -> None:
    event = slack.dm(EMP, "How much is the dental deductible?")
    resp = await slack.send_event(event)
    assert resp.status == 200
    await slack.drain()

    [answer] = slack.fake.messages()
    assert answer.thread_ts == event["ts"] and answer.streamed and not answer.streaming
    text = message_text(answer)
    assert "$50" in text and "[1]" in text and "[^" not in text
    assert "Dental Plan Summary, p. 2" in text
    assert "https://benefits.example.com/docs/dental-plan.pdf#page=2" in text
    assert "https://hr.example.com/contact" in text
    assert slack.settings.answer_footer in text
    [feedback] = [b for b in answer.blocks if b["type"] == "context_actions"]
    assert feedback["elements"][0]["type"] == "feedback_buttons"


async def test_reply_goes_into_existing_thread(slack: SlackHarness) -> None:
    event = slack.dm(EMP, "dental deductible?", thread_ts="1690000000.000100")
    await slack.send_event(event)
    await slack.drain()
    assert slack.fake.answers()[0].thread_ts == "1690000000.000100"


async def test_abstention_is_clean(slack: SlackHarness) -> None:
    await slack.send_event(slack.dm(EMP, "Can I bring my llama to work?"))
    await slack.drain()
    [answer] = slack.fake.answers()
    assert [b["type"] for b in answer.blocks] == ["context"]  # after its text: the HR contact, nothing else
    text = message_text(answer)
    assert "won't guess" in text and "https://hr.example.com/contact" in text
    assert "Sources" not in text and "feedback" not in text and slack.settings.answer_footer not in text


@pytest.mark.parametrize(
    "extra",
    [
        {"bot_id": "BOTHER", "user": OTHER_BOT},
        {"subtype": "bot_message", "user": OTHER_BOT},
        {"user": "UBOT"},
        {"bot_id": "BBOT", "user": "UBOT"},
        {"subtype": "message_changed"},
    ],
)
async def test_ignores_itself_and_other_bots(slack: SlackHarness, extra: dict[str, str]) -> None:
    event = slack.dm(EMP, "dental deductible?")
    event.update(extra)
    resp = await slack.send_event(event)
    assert resp.status == 200
    await slack.drain()
    assert slack.fake.posts("chat.postMessage") == []
    assert slack.service.calls == []


async def test_mention_from_bot_is_ignored(slack: SlackHarness) -> None:
    event = slack.mention(OTHER_BOT, "dental?")
    event["bot_id"] = "BOTHER"
    await slack.send_event(event)
    await slack.drain()
    assert slack.fake.posts("chat.postMessage") == []


async def test_retry_storm_yields_exactly_one_reply(slack: SlackHarness) -> None:
    event = slack.dm(EMP, "dental deductible?")
    event_id = "EvSTORM0001"
    responses = await asyncio.gather(
        slack.send_event(event, event_id=event_id),
        *(slack.send_event(event, event_id=event_id, retry_num=n) for n in (1, 2, 3)),
        *(slack.send_event(event, event_id=event_id, retry_num=n) for n in (1, 2, 3)),
    )
    assert [r.status for r in responses] == [200] * 7
    await slack.drain()
    assert len(slack.fake.calls_to("chat.startStream")) == 1
    assert len(slack.fake.messages()) == 1
    assert len(slack.service.calls) == 1


async def test_ack_arrives_before_the_slow_answer(slack: SlackHarness) -> None:
    slack.service.delay_s = 10.0
    loop = asyncio.get_running_loop()
    started = loop.time()
    resp = await slack.send_event(slack.dm(EMP, "dental deductible?"))
    acked = loop.time() - started
    assert resp.status == 200
    assert acked < 3.0  # Slack's contract
    # The HTTP response came back while the answer service is still sleeping: no answer yet.
    await slack.fake.wait_for(lambda: slack.service.calls)
    assert slack.fake.answers() == []
    slack.service.release()
    await slack.drain()
    assert len(slack.fake.answers()) == 1
    assert "$50" in message_text(slack.fake.answers()[0])


async def test_thread_memory_passes_history(slack: SlackHarness) -> None:
    first = slack.mention(EMP, "What does the vision plan cover?", channel="CEMPEXEC")
    await slack.send_event(first)
    await slack.drain()
    follow_up = slack.mention(EMP, "and the dental deductible?", channel="CEMPEXEC", thread_ts=first["ts"])
    await slack.send_event(follow_up)
    await slack.drain()
    last = slack.service.calls[-1]
    assert last.question == "and the dental deductible?"
    assert last.history == ["What does the vision plan cover?"]


async def test_mention_text_is_stripped_of_bot_mention(slack: SlackHarness) -> None:
    await slack.send_event(slack.mention(EXEC, "dental deductible?", channel="CEXECONLY"))
    await slack.drain()
    assert slack.service.calls[0].question == "dental deductible?"


async def test_rate_limit_gives_clear_message(slack: SlackHarness) -> None:
    slack.parts.answerer.rate_limiter.per_minute = 2
    for _ in range(3):
        await slack.send_event(slack.dm(EMP, "dental deductible?"))
    await slack.drain()
    texts = [message_text(u) for u in slack.fake.answers()]
    assert sum("$50" in t for t in texts) == 2
    assert sum("faster than I can answer" in t for t in texts) == 1
    assert len(slack.service.calls) == 2


async def test_unknown_event_type_is_acknowledged(slack: SlackHarness) -> None:
    resp = await slack.send_event({"type": "reaction_added", "user": EMP, "reaction": "tada"})
    assert resp.status == 200


async def test_usergroup_change_event_invalidates_cache(slack: SlackHarness) -> None:
    await slack.send_event(slack.dm(EXEC, "canary code?"))
    await slack.drain()
    assert CANARIES["executives"] in message_text(slack.fake.answers()[-1])
    slack.fake.set_membership("S0EXEC", [])
    await slack.send_event({"type": "subteam_members_changed", "subteam_id": "S0EXEC", "removed_users": [EXEC]})
    await slack.drain()
    await slack.send_event(slack.dm(EXEC, "canary code?"))
    await slack.drain()
    assert CANARIES["executives"] not in message_text(slack.fake.answers()[-1])
