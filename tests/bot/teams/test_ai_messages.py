"""Teams replies as AI messages where the client supports them (1:1 and group chats: the AI label,
citations and the native feedback loop in one root message entity), the Adaptive Card in channels,
the feedback invoke, and the typing indicator kept on while answering — through /api/messages
with Bot Framework JWTs, against a connector that answers 400 where Teams does."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.bot.harness import EMP, EXEC, OID, TeamsHarness
from tests.fakes.teams_connector import root_message_entity

pytestmark = pytest.mark.integration

TWO_SOURCES = "What is the dental deductible and the vision eye exam?"


def _roster(teams: TeamsHarness, activity: dict[str, Any], users: list[str]) -> None:
    conversation = str(activity["conversation"]["id"]).split(";")[0]
    teams.connector.set_roster(conversation, [{"id": f"29:{u}", "name": u, "aadObjectId": OID[u]} for u in users])


def feedback_invoke(
    teams: TeamsHarness, user: str, conversation_id: str, message_id: str, reaction: str = "like"
) -> dict[str, Any]:
    activity = teams.activity(user, "", conversation_id=conversation_id)
    activity.update(
        {
            "type": "invoke",
            "name": "message/submitAction",
            "replyToId": message_id,
            "value": {
                "actionName": "feedback",
                "actionValue": {"reaction": reaction, "feedback": '{"feedbackText":"my own words"}'},
            },
        }
    )
    activity.pop("text")
    return activity


async def test_a_personal_answer_carries_label_citations_and_feedback(teams: TeamsHarness) -> None:
    await teams.post(teams.activity(EMP, TWO_SOURCES))
    await teams.drain()
    [reply] = teams.connector.messages()
    sent = reply.args["activity"]
    entities = sent["entities"]
    assert len(entities) == 1  # label and citations share the one root message entity
    entity = root_message_entity(reply)
    assert entity is not None
    assert (entity["@type"], entity["@context"], entity["@id"]) == ("Message", "https://schema.org", "")
    assert entity["additionalType"] == ["AIGeneratedContent"]
    positions = sorted(int(n) for n in re.findall(r"\[(\d+)\]", sent["text"]))
    assert [c["position"] for c in entity["citation"]] == sorted(set(positions)) == [1, 2]
    for claim in entity["citation"]:
        appearance = claim["appearance"]
        assert appearance["@type"] == "DigitalDocument" and len(appearance["abstract"]) <= 160
        assert "[" not in appearance["abstract"] and appearance["url"].startswith("https://benefits.example.com/")
    abstracts = {c["appearance"]["name"]: c["appearance"]["abstract"] for c in entity["citation"]}
    assert abstracts["Dental Plan Summary, p. 2"] == "The dental deductible is $50 per year."
    assert sent["channelData"] == {"feedbackLoopEnabled": True, "feedbackLoopType": "default"}
    assert sent["textFormat"] == "markdown" and teams.settings.answer_footer in sent["text"]
    assert "attachments" not in sent and teams.connector.rejected == []


async def test_a_group_chat_answer_is_an_ai_message_under_the_audience_rule(teams: TeamsHarness) -> None:
    activity = teams.activity(
        EXEC, "canary code?", conversation_type="groupChat", conversation_id="19:group-1@thread.v2", mention=True
    )
    _roster(teams, activity, [EMP, EXEC])
    await teams.post(activity)
    await teams.drain()
    [public] = teams.connector.messages_in("19:group-1@thread.v2")
    entity = root_message_entity(public)
    assert entity is not None and entity["additionalType"] == ["AIGeneratedContent"]
    assert "CANARY-EXECUTIVES" not in public.args["activity"]["text"]
    [created] = teams.connector.calls_to("create")
    [private] = teams.connector.messages_in(created.args["id"])
    assert root_message_entity(private) is not None  # the private 1:1 answer is an AI message too
    assert "CANARY-EXECUTIVES" in private.args["activity"]["text"]


async def test_a_channel_answer_keeps_the_card(teams: TeamsHarness) -> None:
    activity = teams.activity(EMP, "dental deductible?", conversation_type="channel", mention=True)
    _roster(teams, activity, [EMP, EXEC])
    await teams.post(activity)
    await teams.drain()
    [reply] = teams.connector.messages()
    sent = reply.args["activity"]
    assert "entities" not in sent and "channelData" not in sent  # channels show no label or feedback loop
    [attachment] = sent["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    texts = [b["text"] for b in attachment["content"]["body"]]
    assert "Sources" in texts and any(t.startswith("[1] [Dental Plan Summary, p. 2]") for t in texts)
    assert teams.settings.answer_footer in texts


async def test_a_feedback_invoke_is_recorded_and_answered_empty(teams: TeamsHarness) -> None:
    question = teams.activity(EMP, "dental deductible?")
    await teams.post(question)
    await teams.drain()
    [reply] = teams.connector.messages()
    message_id = reply.result["id"]
    resp = await teams.post(feedback_invoke(teams, EMP, question["conversation"]["id"], message_id, "dislike"))
    assert resp.status == 200 and await resp.json() == {}  # Teams refuses a non-empty invoke response
    await teams.drain()
    stored = await teams.parts.store.hgetall(f"feedback:{await _query_id(teams, reply)}")
    assert list(stored.values()) == ["down"]
    assert "my own words" not in str(stored)
    assert (
        teams.parts.metrics.registry.get_sample_value(
            "benefitsbot_feedback_total", {"platform": "teams", "vote": "down"}
        )
        == 1.0
    )
    assert len(teams.service.calls) == 1 and len(teams.connector.messages()) == 1  # no question, no reply


async def _query_id(teams: TeamsHarness, reply: Any) -> str:
    conversation = reply.args["conversation"]
    value = await teams.parts.store.get(f"teams:answer:{conversation}:{reply.result['id']}")
    assert value
    return value


async def test_a_feedback_invoke_for_an_unknown_message_is_acknowledged_and_ignored(teams: TeamsHarness) -> None:
    resp = await teams.post(feedback_invoke(teams, EMP, f"a:personal-{EMP}", "act-999"))
    assert resp.status == 200 and await resp.json() == {}
    assert (
        teams.parts.metrics.registry.get_sample_value("benefitsbot_feedback_total", {"platform": "teams", "vote": "up"})
        is None
    )


async def test_other_invokes_are_not_implemented(teams: TeamsHarness) -> None:
    activity = teams.activity(EMP, "")
    activity.update({"type": "invoke", "name": "message/fetchTask", "value": {}})
    assert (await teams.post(activity)).status == 501


async def test_typing_stays_on_while_the_answer_is_prepared(teams: TeamsHarness) -> None:
    assert teams.parts.teams is not None
    teams.parts.teams.typing_interval_s = 0.05
    teams.service.delay_s = 10.0

    def typing() -> int:
        return sum(c.args["activity"]["type"] == "typing" for c in teams.connector.calls_to("send"))

    await teams.post(teams.activity(EMP, "dental deductible?"))
    await teams.connector.wait_for(lambda: typing() >= 3)
    assert teams.connector.messages() == []  # still answering
    teams.service.release()
    await teams.drain()
    assert len(teams.connector.messages()) == 1
    last_typing = max(
        i for i, c in enumerate(teams.connector.calls) if c.method == "send" and c.args["activity"]["type"] == "typing"
    )
    answer_at = next(
        i for i, c in enumerate(teams.connector.calls) if c.method == "send" and c.args["activity"]["type"] == "message"
    )
    assert last_typing < answer_at  # the indicator stops before the answer is sent
