"""Dev mode without credentials: the Bot Framework Emulator flow and Slack-shaped requests are
answered as the dev identity; start-up says what is on and why; production never uses the dev
identity."""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
import pytest_asyncio

from bot.app import create_app
from bot.core_service import CoreAnswerService
from bot.devmode import DevDirectory, uses_dev_identity
from bot.errors import ConfigError
from bot.reply import HELP_TEXT
from bot.settings import BotSettings
from bot.slack.blocks import FEEDBACK_DOWN
from bot.teams.directory import TeamsDirectory
from tests.bot.dev_harness import NO_CREDENTIALS, PROD_RBAC_KEY, start_dev
from tests.bot.harness import OID, SIGNING_SECRET, make_settings, sign_slack, start_teams, stop_teams
from tests.bot.sample_core import core_overrides
from tests.fakes.answer_service import FakeAnswerService
from tests.fakes.teams_connector import FakeTeamsConnector, activity_text

pytestmark = pytest.mark.integration


@pytest_asyncio.fixture
async def connector() -> AsyncIterator[FakeTeamsConnector]:
    fake = FakeTeamsConnector()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.close()


def emulator_activity(service_url: str, text: str) -> dict[str, Any]:
    """What the Bot Framework Emulator posts with no app id configured: no Authorization header, no
    Entra ID object id, channel "emulator"."""
    return {
        "type": "message",
        "id": uuid.uuid4().hex,
        "timestamp": "2026-06-01T09:00:00.000Z",
        "localTimestamp": "2026-06-01T11:00:00+02:00",
        "serviceUrl": service_url,
        "channelId": "emulator",
        "from": {"id": "5e4a0d0a-0000-4000-8000-00000000e001", "name": "User", "role": "user"},
        "conversation": {"id": "2f6b1c20-84aa-11ee-b962-0242ac120002|livechat"},
        "recipient": {"id": "a3e2b2c0-84aa-11ee-b962-0242ac120002", "name": "Bot", "role": "bot"},
        "textFormat": "plain",
        "locale": "en-US",
        "text": text,
        "channelData": {"clientActivityID": uuid.uuid4().hex, "clientTimestamp": "2026-06-01T09:00:00.000Z"},
    }


@pytest.mark.slow
async def test_bot_framework_emulator_flow_on_the_real_core(
    sample_index: Path, connector: FakeTeamsConnector, caplog: pytest.LogCaptureFixture
) -> None:
    """deploy/README.md's dev-mode flow: `benefitsbot serve` with no credentials, the Emulator
    pointed at http://localhost:3978/api/messages with no app id."""
    settings = make_settings(**{**NO_CREDENTIALS, **core_overrides(sample_index)})
    service = CoreAnswerService.from_settings(settings)
    caplog.set_level(logging.INFO, logger="benefitsbot.startup")
    dev = await start_dev(service, **core_overrides(sample_index))
    try:
        resp = await dev.post_json(
            "/api/messages", emulator_activity(connector.service_url, "What's the PPO deductible?")
        )
        assert resp.status == 200
        await dev.parts.tasks.drain(within_s=120)
        [reply] = connector.messages()
        text = activity_text(reply)
        assert "deductible" in text.lower() and "[1]" in text
        assert "https://hr.fabrikam.example/policies/medical-plan-2026.pdf#page=" in text
        assert reply.args["reply_to"] and reply.headers["Authorization"] == ""  # threaded, anonymous in dev
        assert [c for c in connector.calls_to("send") if c.args["activity"]["type"] == "typing"]

        await connector.wait_for(lambda: any(r.getMessage().startswith("index: ") for r in caplog.records), 60)
        lines = [r.getMessage() for r in caplog.records if r.name == "benefitsbot.startup"]
        [index] = [line for line in lines if line.startswith("index: ")]
        model = (await (await service.pipeline()).corpus.manifest()).embedding_model
        assert "17 documents" in index and f"model {model}" in index and str(sample_index.resolve()) in index
    finally:
        await dev.client.close()
        await service.close()


async def test_startup_says_what_is_on_and_why(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="benefitsbot.startup")
    dev = await start_dev(
        FakeAnswerService(key="test-rbac-signing-key"),
        DEV_IDENTITY_STATE="California",
        HR_CONTACT_URL="https://hr.example.com/contact",
    )
    try:
        lines = {r.getMessage().split(":", 1)[0]: r for r in caplog.records if r.name == "benefitsbot.startup"}
        assert "no SLACK_BOT_TOKEN" in lines["slack"].getMessage()
        assert "dev identity (groups=employees state=CA" in lines["slack"].getMessage()
        assert "unsigned: no SLACK_SIGNING_SECRET" in lines["slack"].getMessage()
        teams = lines["teams"].getMessage()
        assert "authentication OFF: no MICROSOFT_APP_ID" in teams and "Graph credentials not set" in teams
        assert "in-process memory (no REDIS_URL" in lines["store"].getMessage()
        assert "(open: dev mode)" in lines["playground"].getMessage()
        assert "topic words only" in lines["report"].getMessage()
        assert lines["HR_CONTACT_URL is the placeholder https"].levelno == logging.WARNING
    finally:
        await dev.client.close()


async def test_slack_shaped_requests_are_answered_in_the_response() -> None:
    service = FakeAnswerService(key="test-rbac-signing-key")
    dev = await start_dev(service, DEV_IDENTITY_GROUPS="employees", DEV_IDENTITY_STATE="CA")
    try:
        resp = await dev.post_form(
            "/slack/events",
            {"command": "/benefits", "text": "dental deductible?", "user_id": "U123", "channel_id": "D1"},
        )
        body = await resp.json()
        assert resp.status == 200 and body["response_type"] == "ephemeral"
        blocks = body["blocks"]
        assert "$50" in json.dumps(blocks) and "[1]" in json.dumps(blocks)
        [call] = service.calls
        assert call.claims.acl_groups == frozenset({"employees"}) and call.claims.state == "CA"

        event = {
            "type": "event_callback",
            "event": {
                "type": "message",
                "channel_type": "im",
                "channel": "D1",
                "user": "U123",
                "text": "California family leave?",
                "ts": "1.1",
            },
        }
        body = await (await dev.post_json("/slack/events", event)).json()
        assert "8 weeks" in body["text"] and body["thread_ts"] == "1.1"

        own = {
            "type": "event_callback",
            "event": {
                "type": "message",
                "channel": "D1",
                "bot_id": "B1",
                "user": "UBOT",
                "text": "dental?",
                "ts": "1.2",
            },
        }
        resp = await dev.post_json("/slack/events", own)
        assert resp.status == 200 and await resp.text() == "" and len(service.calls) == 2  # bots are ignored

        challenge = await dev.post_json("/slack/events", {"type": "url_verification", "challenge": "c1"})
        assert (await challenge.json()) == {"challenge": "c1"}

        empty = await (
            await dev.post_form("/slack/events", {"command": "/benefits", "text": " ", "user_id": "U123"})
        ).json()
        assert empty["text"] == HELP_TEXT

        query_id = re.findall(r"[0-9a-f]{32}", json.dumps(blocks))[0]
        click = {
            "type": "block_actions",
            "user": {"id": "U123"},
            "actions": [{"action_id": FEEDBACK_DOWN, "value": query_id}],
        }
        thanks = await (await dev.post_form("/slack/events", {"payload": json.dumps(click)})).json()
        assert thanks["text"] == "Thanks for the feedback!"
        assert list((await dev.parts.store.hgetall(f"feedback:{query_id}")).values()) == ["down"]
    finally:
        await dev.client.close()


async def test_dev_slack_verifies_signatures_when_a_secret_is_set() -> None:
    dev = await start_dev(FakeAnswerService(key="test-rbac-signing-key"), SLACK_SIGNING_SECRET=SIGNING_SECRET)
    try:
        form = urlencode({"command": "/benefits", "text": "dental?", "user_id": "U1"})
        content = {"Content-Type": "application/x-www-form-urlencoded"}
        unsigned = await dev.client.post("/slack/events", data=form, headers=content)
        assert unsigned.status == 401
        signed = await dev.client.post("/slack/events", data=form, headers={**content, **sign_slack(form)})
        assert signed.status == 200 and (await signed.json())["response_type"] == "ephemeral"
    finally:
        await dev.client.close()


@pytest.mark.unit
def test_prod_never_uses_the_dev_identity() -> None:
    prod = make_settings(BENEFITSBOT_ENV="prod", DEV_IDENTITY_GROUPS="executives", **NO_CREDENTIALS)
    assert not uses_dev_identity(prod, "slack") and not uses_dev_identity(prod, "teams")
    dev = make_settings(**NO_CREDENTIALS)
    assert uses_dev_identity(dev, "slack") and uses_dev_identity(dev, "teams")
    with_graph = make_settings(
        **{**NO_CREDENTIALS, "MICROSOFT_APP_ID": "a", "MICROSOFT_APP_PASSWORD": "p", "MICROSOFT_APP_TENANT_ID": "t"}
    )
    assert not uses_dev_identity(with_graph, "teams")  # dev with Graph: real identities


async def test_prod_teams_without_an_aad_id_gets_no_access_not_the_dev_identity() -> None:
    """Production with DEV_IDENTITY_* set anyway: an activity with no Entra ID object id (what the
    Emulator sends) is answered as nobody, and the core is never asked."""
    h = await start_teams(
        {
            "BENEFITSBOT_ENV": "prod",
            "REDIS_URL": "redis://127.0.0.1:1/0",
            "SLACK_ENABLED": False,
            "RBAC_SIGNING_KEY": PROD_RBAC_KEY,
            "DEV_IDENTITY_GROUPS": "executives,employees",
            "DEV_IDENTITY_STATE": "CA",
        },
        service=FakeAnswerService(key=PROD_RBAC_KEY),
    )
    try:
        assert isinstance(h.parts.teams.directory, TeamsDirectory)  # type: ignore[union-attr]
        activity = h.activity("UEMP", "What is the executive car allowance?")
        activity["from"].pop("aadObjectId")
        assert (await h.post(activity)).status == 200
        await h.drain()
        [reply] = h.connector.messages()
        assert "couldn't find this" in activity_text(reply) and h.service.calls == []
        known = h.activity("UEMP", "dental deductible?")
        assert known["from"]["aadObjectId"] == OID["UEMP"]
        await h.post(known)
        await h.drain()
        assert [c.claims.acl_groups for c in h.service.calls] == [frozenset({"employees"})]  # from Graph
    finally:
        await stop_teams(h)


@pytest.mark.unit
def test_a_dev_identity_the_policy_does_not_know_refuses_to_start() -> None:
    with pytest.raises(ConfigError) as err:
        create_app(make_settings(**NO_CREDENTIALS, DEV_IDENTITY_GROUPS="employees,admins"), FakeAnswerService(key="k"))
    assert "DEV_IDENTITY_GROUPS names unknown ACL group(s) ['admins']" in str(err.value)
    with pytest.raises(ConfigError, match="DEV_IDENTITY_STATE 'Atlantis'"):
        create_app(make_settings(**NO_CREDENTIALS, DEV_IDENTITY_STATE="Atlantis"), FakeAnswerService(key="k"))


@pytest.mark.unit
def test_dev_directory_answers_everyone_as_the_dev_identity() -> None:
    settings: BotSettings = make_settings(DEV_IDENTITY_GROUPS="contractors", DEV_IDENTITY_STATE="Texas")
    from bot.rbac import load_policy

    directory = DevDirectory.from_settings("teams", settings, load_policy(settings.rbac_policy_file))
    identity = directory.identity_for(None)
    assert (identity.acl_groups, identity.state, identity.employment_type) == (
        frozenset({"contractors"}),
        "TX",
        "contractor",
    )


@pytest.mark.unit
def test_startup_lines_never_show_a_secret() -> None:
    from bot.startup import playground_line, store_line

    settings = make_settings(
        REDIS_URL="redis://:s3cret-pass@redis.internal:6380/2",
        PLAYGROUND_ADMIN_TOKEN="an-admin-token-of-24-chars-or-more",
    )
    assert store_line(settings) == "store: redis at redis.internal:6380/2"
    line = playground_line(settings, served=True)
    assert "admin credential required" in line and "an-admin-token" not in line
