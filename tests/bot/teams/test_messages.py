"""Teams messages end to end: 1:1 chat, channel @-mentions, threaded replies, cards, feedback, dedupe."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.reply import PRIVATE_NOTE
from tests.bot.harness import AAD_GROUP, CON, EMP, EXEC, HR, NOBODY, OID, TeamsHarness
from tests.fakes.answer_service import CANARIES
from tests.fakes.server import Call
from tests.fakes.teams_connector import activity_text, root_message_entity

pytestmark = pytest.mark.integration


def _card(call: Call) -> dict[str, Any]:
    attachments = call.args["activity"]["attachments"]
    assert attachments[0]["contentType"] == "application/vnd.microsoft.card.adaptive"
    content: dict[str, Any] = attachments[0]["content"]
    return content


def _roster(teams: TeamsHarness, activity: dict[str, Any], users: list[str]) -> None:
    conversation = str(activity["conversation"]["id"]).split(";")[0]
    teams.connector.set_roster(conversation, [{"id": f"29:{u}", "name": u, "aadObjectId": OID[u]} for u in users])


async def test_personal_chat_answer_is_an_ai_message(teams: TeamsHarness) -> None:
    activity = teams.activity(EMP, "How much is the dental deductible?")
    assert (await teams.post(activity)).status == 200
    await teams.drain()
    typing = [c for c in teams.connector.calls_to("send") if c.args["activity"]["type"] == "typing"]
    assert len(typing) >= 1
    [reply] = teams.connector.messages()
    sent = reply.args["activity"]
    assert "$50" in sent["text"] and "[1]" in sent["text"] and "[^" not in sent["text"]
    assert "https://hr.example.com/contact" in sent["text"]
    entity = root_message_entity(reply)
    assert entity is not None and entity["additionalType"] == ["AIGeneratedContent"]
    [claim] = entity["citation"]
    assert claim["appearance"]["name"] == "Dental Plan Summary, p. 2"
    assert claim["appearance"]["url"] == "https://benefits.example.com/docs/dental-plan.pdf#page=2"
    assert sent["channelData"]["feedbackLoopEnabled"] is True
    assert reply.args["activity"]["replyToId"] == activity["id"]
    assert teams.connector.calls_to("members") == []  # a 1:1 chat has no audience to check
    assert teams.connector.rejected == []


async def test_channel_mention_is_stripped_and_reply_threaded(teams: TeamsHarness) -> None:
    activity = teams.activity(EMP, "dental deductible?", conversation_type="channel", mention=True)
    _roster(teams, activity, [EMP, EXEC])
    await teams.post(activity)
    await teams.drain()
    assert teams.service.calls[0].question == "dental deductible?"
    [reply] = teams.connector.messages()
    assert reply.args["conversation"] == activity["conversation"]["id"]
    assert reply.args["reply_to"] == activity["id"]


async def test_abstention_is_clean(teams: TeamsHarness) -> None:
    await teams.post(teams.activity(EMP, "Can I bring my llama to work?"))
    await teams.drain()
    sent = teams.connector.messages()[0].args["activity"]
    paragraphs = sent["text"].split("\n\n")
    assert len(paragraphs) == 2 and "won't guess" in paragraphs[0] and "hr.example.com" in paragraphs[1]
    assert "attachments" not in sent and "channelData" not in sent  # no card, no feedback buttons
    entity = root_message_entity(teams.connector.messages()[0])
    assert entity is not None and "citation" not in entity  # labelled as the answer path's, nothing cited


async def test_channel_answer_uses_audience_and_sends_private_1on1(teams: TeamsHarness) -> None:
    activity = teams.activity(EXEC, "canary code?", conversation_type="channel", mention=True)
    _roster(teams, activity, [EMP, EXEC])
    await teams.post(activity)
    await teams.drain()
    public = teams.connector.messages_in(activity["conversation"]["id"])
    assert len(public) == 1
    public_text = activity_text(public[0])
    assert CANARIES["employees"] in public_text
    assert CANARIES["executives"] not in public_text
    assert PRIVATE_NOTE in public_text
    [created] = teams.connector.calls_to("create")
    assert created.args["params"]["members"] == [{"id": f"29:{EXEC}"}]
    private = teams.connector.messages_in(created.args["id"])
    assert len(private) == 1 and CANARIES["executives"] in activity_text(private[0])


async def test_duplicate_activity_is_answered_once(teams: TeamsHarness) -> None:
    activity = teams.activity(EMP, "dental deductible?")
    responses = await asyncio.gather(*(teams.post(activity) for _ in range(4)))
    assert all(r.status == 200 for r in responses)
    await teams.drain()
    assert len(teams.connector.messages()) == 1
    assert len(teams.service.calls) == 1


async def test_feedback_submit_on_a_channel_card_is_recorded(teams: TeamsHarness) -> None:
    activity = teams.activity(EMP, "dental deductible?", conversation_type="channel", mention=True)
    _roster(teams, activity, [EMP])
    await teams.post(activity)
    await teams.drain()
    query_id = _card(teams.connector.messages()[0])["actions"][0]["data"]["query_id"]
    submit = teams.activity(
        EMP,
        "",
        conversation_type="channel",
        conversation_id=activity["conversation"]["id"],
        value={"action": "feedback", "vote": "up", "query_id": query_id},
    )
    await teams.post(submit)
    await teams.drain()
    assert list((await teams.parts.store.hgetall(f"feedback:{query_id}")).values()) == ["up"]
    assert "Thanks for the feedback" in activity_text(teams.connector.messages()[-1])
    assert len(teams.service.calls) == 1  # a submit is not a question


async def test_unmapped_user_gets_no_access_without_core_call(teams: TeamsHarness) -> None:
    await teams.post(teams.activity(NOBODY, "canary code?"))
    await teams.drain()
    assert "won't guess" in activity_text(teams.connector.messages()[0])
    assert teams.service.calls == []


async def test_user_unknown_to_graph_gets_no_access(teams: TeamsHarness) -> None:
    activity = teams.activity(CON, "canary code?")
    activity["from"]["aadObjectId"] = "bbbbbbbb-0000-4000-8000-00000000dead"
    await teams.post(activity)
    await teams.drain()
    assert "won't guess" in activity_text(teams.connector.messages()[0])
    assert teams.service.calls == []


async def test_foreign_tenant_gets_no_access(teams: TeamsHarness) -> None:
    activity = teams.activity(EXEC, "canary code?")
    activity["conversation"]["tenantId"] = "12121212-0000-4000-8000-000000000000"
    activity["channelData"] = {"tenant": {"id": "12121212-0000-4000-8000-000000000000"}}
    await teams.post(activity)
    await teams.drain()
    assert CANARIES["executives"] not in activity_text(teams.connector.messages()[0])
    assert teams.service.calls == []


async def test_graph_outage_gives_apology(teams: TeamsHarness) -> None:
    teams.graph.failing = True
    await teams.post(teams.activity(EMP, "dental deductible?"))
    await teams.drain()
    text = activity_text(teams.connector.messages()[0])
    assert "Sorry, I can't answer right now" in text and "hr.example.com" in text
    assert "Traceback" not in text


async def test_graph_pages_are_followed(teams: TeamsHarness) -> None:
    teams.graph.page_size = 1
    teams.graph.set_groups(OID[HR], [AAD_GROUP["unmapped"], AAD_GROUP["hr-admins"]])
    await teams.post(teams.activity(HR, "canary code?"))
    await teams.drain()
    assert CANARIES["hr-admins"] in activity_text(teams.connector.messages()[0])
    assert len(teams.graph.calls_to("memberOf")) >= 3


async def test_cached_groups_are_rechecked_with_graph_on_every_question(teams: TeamsHarness) -> None:
    for _ in range(2):
        await teams.post(teams.activity(EXEC, "canary code?"))
        await teams.drain()
    assert CANARIES["executives"] in activity_text(teams.connector.messages()[-1])
    assert len(teams.graph.calls_to("memberOf")) == 1  # the membership list came from the cache...
    checks = teams.graph.calls_to("checkMemberGroups")
    assert len(checks) == 1  # ...but the second question asked Graph whether it still holds
    assert AAD_GROUP["executives"] in checks[0].args["groupIds"]
    assert AAD_GROUP["unmapped"] not in checks[0].args["groupIds"]  # only groups that grant access


async def test_graph_outage_after_a_cached_lookup_fails_closed(teams: TeamsHarness) -> None:
    await teams.post(teams.activity(EXEC, "canary code?"))
    await teams.drain()
    teams.graph.failing = True  # the cache still says "executive", Graph cannot confirm it
    await teams.post(teams.activity(EXEC, "canary code?"))
    await teams.drain()
    text = activity_text(teams.connector.messages()[-1])
    assert "Sorry, I can't answer right now" in text
    assert CANARIES["executives"] not in text


async def test_a_new_grant_waits_for_the_cache_a_revocation_does_not(teams: TeamsHarness) -> None:
    await teams.post(teams.activity(EMP, "canary code?"))
    await teams.drain()
    teams.graph.set_groups(OID[EMP], [*teams.graph.users[OID[EMP]]["groups"], AAD_GROUP["executives"]])
    await teams.post(teams.activity(EMP, "canary code?"))
    await teams.drain()
    assert CANARIES["executives"] not in activity_text(teams.connector.messages()[-1])  # within the TTL
    assert teams.parts.teams is not None
    await teams.parts.teams.directory.invalidate(OID[EMP])  # what TTL expiry does
    await teams.post(teams.activity(EMP, "canary code?"))
    await teams.drain()
    assert CANARIES["executives"] in activity_text(teams.connector.messages()[-1])
