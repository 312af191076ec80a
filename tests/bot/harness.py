"""Test harnesses: the real aiohttp app driven over HTTP against the local fakes.

Nothing here calls a handler directly: Slack requests are signed with the real v0 algorithm
and posted to ``/slack/events``; Teams activities carry JWTs signed by a local key that the app
fetches from a fake OpenID endpoint, and replies land at a fake connector.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient, TestServer

from bot.app import COMPONENTS, BotComponents, create_app
from bot.settings import BotSettings
from bot.store import Store
from bot.teams.graph import StaticGraphTokenProvider
from tests.fakes.answer_service import FakeAnswerService
from tests.fakes.graph import GRAPH_TOKEN, FakeGraph
from tests.fakes.slack_api import STATE_FIELD, FakeSlackApi
from tests.fakes.teams_connector import FakeBotFrameworkAuth, FakeTeamsConnector, StaticTokenCredentialFactory

REPO = Path(__file__).resolve().parents[2]
RBAC_FILE = REPO / "deploy" / "rbac.yaml"
SIGNING_SECRET = "test-signing-secret-0123456789"
BOT_TOKEN = "xoxb-test"
APP_TOKEN = "xapp-test"
RBAC_KEY = "test-rbac-signing-key"
APP_ID = "11111111-2222-4333-8444-555555555555"
TENANT_ID = "99999999-8888-4777-8666-555555555555"

# ----- the fake workspace: one user per ACL group, an unmapped user, another bot -------------------
EMP, CON, EXEC, HR, NOBODY, OTHER_BOT = "UEMP", "UCON", "UEXEC", "UHR", "UNOBODY", "UOTHERBOT"
SLACK_GROUPS = {
    "S0EMP": ("all-employees", [EMP]),
    "S0CON": ("contractors", [CON]),
    "S0EXEC": ("executives", [EXEC]),
    "S0HR": ("hr-team", [HR]),
    "S0CLUB": ("running-club", [NOBODY, EMP]),  # not in the policy: grants nothing
}
AAD_GROUP = {
    "employees": "0a1b2c3d-0000-4000-8000-000000000001",
    "contractors": "0a1b2c3d-0000-4000-8000-000000000002",
    "executives": "0a1b2c3d-0000-4000-8000-000000000003",
    "hr-admins": "0a1b2c3d-0000-4000-8000-000000000004",
    "unmapped": "0a1b2c3d-0000-4000-8000-0000000000ff",
}
OID = {
    EMP: "aaaaaaaa-0000-4000-8000-000000000001",
    CON: "aaaaaaaa-0000-4000-8000-000000000002",
    EXEC: "aaaaaaaa-0000-4000-8000-000000000003",
    HR: "aaaaaaaa-0000-4000-8000-000000000004",
    NOBODY: "aaaaaaaa-0000-4000-8000-000000000005",
}
STATES = {EMP: "California", CON: "Texas", EXEC: "California", HR: "California", NOBODY: "California"}


def make_settings(**overrides: Any) -> BotSettings:
    """Settings for tests: explicit values for everything that matters, no .env file."""
    values: dict[str, Any] = {
        "BENEFITSBOT_ENV": "dev",
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_APP_TOKEN": None,
        "SLACK_STATE_PROFILE_FIELD": STATE_FIELD,
        "MICROSOFT_APP_ID": None,
        "MICROSOFT_APP_PASSWORD": None,
        "MICROSOFT_APP_TENANT_ID": None,
        "TEAMS_ENABLED": False,
        "REDIS_URL": None,
        "RBAC_SIGNING_KEY": RBAC_KEY,
        "RBAC_POLICY_FILE": str(RBAC_FILE),
        "RATE_LIMIT_PER_MINUTE": 1000,
        "REDIS_RETRY_INTERVAL_S": 0.0,
        "LOG_QUERIES": False,
    }
    values.update(overrides)
    return BotSettings(_env_file=None, **values)  # type: ignore[call-arg]


def sign_slack(body: str, *, secret: str = SIGNING_SECRET, timestamp: int | None = None) -> dict[str, str]:
    """Slack's v0 request signature, computed independently of slack_sdk."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={digest}"}


def populate_slack(fake: FakeSlackApi) -> None:
    for user, state in STATES.items():
        fake.add_user(user, state=state)
    fake.add_user(OTHER_BOT, is_bot=True)
    for gid, (handle, members) in SLACK_GROUPS.items():
        fake.add_usergroup(gid, handle, members)


@dataclass
class SlackHarness:
    client: TestClient
    fake: FakeSlackApi
    service: FakeAnswerService
    parts: BotComponents
    _counter: int = field(default=0)

    @property
    def settings(self) -> BotSettings:
        return self.parts.settings

    def _next(self) -> int:
        self._counter += 1
        return self._counter

    async def post_signed(
        self, body: str, *, content_type: str, headers: dict[str, str] | None = None, **sign: Any
    ) -> ClientResponse:
        all_headers = {"Content-Type": content_type, **sign_slack(body, **sign), **(headers or {})}
        return await self.client.post("/slack/events", data=body.encode(), headers=all_headers)

    def event_body(self, event: dict[str, Any], event_id: str | None = None) -> str:
        return json.dumps(
            {
                "token": "legacy",
                "team_id": "T0001",
                "api_app_id": "A1",
                "type": "event_callback",
                "event_id": event_id or f"Ev{uuid.uuid4().hex[:10].upper()}",
                "event_time": int(time.time()),
                "event": event,
                "authorizations": [{"team_id": "T0001", "user_id": "UBOT", "is_bot": True}],
            }
        )

    def mention(self, user: str, text: str, channel: str = "CMIXED", thread_ts: str | None = None) -> dict[str, Any]:
        ts = f"1710000000.{self._next():06d}"
        event = {
            "type": "app_mention",
            "user": user,
            "text": f"<@UBOT> {text}",
            "ts": ts,
            "channel": channel,
            "event_ts": ts,
        }
        if thread_ts:
            event["thread_ts"] = thread_ts
        return event

    def dm(self, user: str, text: str, thread_ts: str | None = None, **extra: Any) -> dict[str, Any]:
        ts = f"1710000000.{self._next():06d}"
        event = {
            "type": "message",
            "channel_type": "im",
            "channel": f"D{user}",
            "user": user,
            "text": text,
            "ts": ts,
            "event_ts": ts,
            **extra,
        }
        if thread_ts:
            event["thread_ts"] = thread_ts
        return event

    async def send_event(self, event: dict[str, Any], **kw: Any) -> ClientResponse:
        headers = {}
        if "retry_num" in kw:
            headers = {"X-Slack-Retry-Num": str(kw.pop("retry_num")), "X-Slack-Retry-Reason": "http_timeout"}
        body = self.event_body(event, kw.pop("event_id", None))
        return await self.post_signed(body, content_type="application/json", headers=headers, **kw)

    async def send_command(self, user: str, text: str, channel: str = "CMIXED", name: str = "cmd1") -> ClientResponse:
        form = {
            "token": "legacy",
            "team_id": "T0001",
            "channel_id": channel,
            "channel_name": "general",
            "user_id": user,
            "user_name": user.lower(),
            "command": "/benefits",
            "text": text,
            "response_url": self.fake.response_url(name),
            "trigger_id": "trig1",
            "api_app_id": "A1",
        }
        return await self.post_signed(urlencode(form), content_type="application/x-www-form-urlencoded")

    async def send_action(
        self,
        user: str,
        action_id: str,
        value: str,
        channel: str = "CMIXED",
        name: str = "act1",
        action_type: str = "button",
    ) -> ClientResponse:
        payload = {
            "type": "block_actions",
            "team": {"id": "T0001"},
            "user": {"id": user},
            "api_app_id": "A1",
            "channel": {"id": channel},
            "container": {"type": "message", "channel_id": channel},
            "response_url": self.fake.response_url(name),
            "trigger_id": "trig2",
            "actions": [
                {
                    "type": action_type,
                    "action_id": action_id,
                    "block_id": "b",
                    "value": value,
                    "action_ts": str(time.time()),
                }
            ],
        }
        body = urlencode({"payload": json.dumps(payload)})
        return await self.post_signed(body, content_type="application/x-www-form-urlencoded")

    async def drain(self) -> None:
        await self.parts.tasks.drain(within_s=30)


async def start_slack(
    settings_overrides: dict[str, Any] | None = None,
    *,
    service: FakeAnswerService | None = None,
    store: Store | None = None,
) -> SlackHarness:
    fake = FakeSlackApi(bot_token=BOT_TOKEN, app_token=APP_TOKEN)
    await fake.start()
    populate_slack(fake)
    fake.set_channel("CMIXED", [EMP, EXEC, CON, "UBOT", OTHER_BOT])
    fake.set_channel("CEMPEXEC", [EMP, EXEC, "UBOT"])
    fake.set_channel("CWITHNOBODY", [EMP, NOBODY, "UBOT"])
    fake.set_channel("CEXECONLY", [EXEC, "UBOT"])
    settings = make_settings(SLACK_API_BASE_URL=fake.api_url, **(settings_overrides or {}))
    service = service or FakeAnswerService(key=RBAC_KEY)
    app = create_app(settings, service, store)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    return SlackHarness(client=client, fake=fake, service=service, parts=app[COMPONENTS])


def _release(service: object) -> None:
    release = getattr(service, "release", None)  # the fake's deliberate delays end early
    if release is not None:
        release()


async def stop_slack(h: SlackHarness) -> None:
    _release(h.service)
    await h.client.close()
    await h.fake.close()


# ----- Teams ----------------------------------------------------------------------------------------
@dataclass
class TeamsHarness:
    client: TestClient
    auth: FakeBotFrameworkAuth
    connector: FakeTeamsConnector
    graph: FakeGraph
    service: FakeAnswerService
    parts: BotComponents
    _counter: int = field(default=0)

    @property
    def settings(self) -> BotSettings:
        return self.parts.settings

    def activity(
        self,
        user: str,
        text: str,
        *,
        conversation_type: str = "personal",
        conversation_id: str | None = None,
        mention: bool = False,
        **extra: Any,
    ) -> dict[str, Any]:
        self._counter += 1
        activity_id = f"17100000000{self._counter:02d}"
        if conversation_id is None:
            conversation_id = (
                f"a:personal-{user}"
                if conversation_type == "personal"
                else (f"19:general@thread.tacv2;messageid={activity_id}")
            )
        bot = {"id": f"28:{APP_ID}", "name": "BenefitsBot"}
        body: dict[str, Any] = {
            "type": "message",
            "id": activity_id,
            "timestamp": "2024-03-09T16:00:00.000Z",
            "serviceUrl": self.connector.service_url,
            "channelId": "msteams",
            "from": {"id": f"29:{user}", "name": user, "aadObjectId": OID.get(user)},
            "conversation": {
                "id": conversation_id,
                "conversationType": conversation_type,
                "tenantId": TENANT_ID,
                "isGroup": conversation_type != "personal",
            },
            "recipient": bot,
            "text": text,
            "locale": "en-US",
            "channelData": {"tenant": {"id": TENANT_ID}},
        }
        if mention:
            body["text"] = f"<at>BenefitsBot</at> {text}"
            body["entities"] = [{"type": "mention", "text": "<at>BenefitsBot</at>", "mentioned": bot}]
        body.update(extra)
        return body

    def token(self, **kw: Any) -> str:
        kw.setdefault("audience", APP_ID)
        kw.setdefault("service_url", self.connector.service_url)
        return self.auth.token(**kw)

    async def post(
        self,
        activity: dict[str, Any] | None,
        *,
        token: str | None = None,
        auth: bool = True,
        content_type: str | None = "application/json",
        raw: bytes | None = None,
    ) -> ClientResponse:
        headers: dict[str, str] = {}
        if content_type:
            headers["Content-Type"] = content_type
        if auth:
            headers["Authorization"] = f"Bearer {token or self.token()}"
        data = raw if raw is not None else json.dumps(activity).encode()
        return await self.client.post("/api/messages", data=data, headers=headers)

    async def drain(self) -> None:
        await self.parts.tasks.drain(within_s=30)


def populate_graph(graph: FakeGraph) -> None:
    for name, gid in AAD_GROUP.items():
        graph.add_group(gid, f"BenefitsBot - {name}")
    graph.add_user(OID[EMP], groups=[AAD_GROUP["employees"]], state="California")
    graph.add_user(OID[CON], groups=[AAD_GROUP["contractors"]], state="Texas")
    graph.add_user(OID[EXEC], groups=[AAD_GROUP["executives"]], state="California")
    graph.add_user(OID[HR], groups=[AAD_GROUP["hr-admins"]], state="California")
    graph.add_user(OID[NOBODY], groups=[AAD_GROUP["unmapped"]], state="California")


async def start_teams(
    settings_overrides: dict[str, Any] | None = None,
    *,
    service: FakeAnswerService | None = None,
    app_id: str | None = APP_ID,
    store: Store | None = None,
) -> TeamsHarness:
    auth, connector, graph = FakeBotFrameworkAuth(), FakeTeamsConnector(), FakeGraph()
    for fake in (auth, connector, graph):
        await fake.start()
    populate_graph(graph)
    overrides = {
        "TEAMS_ENABLED": True,
        "SLACK_BOT_TOKEN": None,
        "MICROSOFT_APP_ID": app_id,
        "MICROSOFT_APP_PASSWORD": "unused-test-password" if app_id else None,
        "MICROSOFT_APP_TENANT_ID": TENANT_ID,
        "TEAMS_OPENID_METADATA_URL": auth.metadata_url,
        "TEAMS_EMULATOR_OPENID_METADATA_URL": auth.metadata_url,
        "GRAPH_API_BASE_URL": graph.api_url,
        **(settings_overrides or {}),
    }
    settings = make_settings(**overrides)
    service = service or FakeAnswerService(key=RBAC_KEY)
    app = create_app(
        settings,
        service,
        store,
        teams_credentials_factory=StaticTokenCredentialFactory(app_id),
        graph_token_provider=StaticGraphTokenProvider(GRAPH_TOKEN),
    )
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    return TeamsHarness(
        client=client, auth=auth, connector=connector, graph=graph, service=service, parts=app[COMPONENTS]
    )


async def stop_teams(h: TeamsHarness) -> None:
    _release(h.service)
    await h.client.close()
    for fake in (h.auth, h.connector, h.graph):
        await fake.close()
