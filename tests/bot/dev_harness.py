"""The real app in dev mode with no credentials (what a fresh clone's `benefitsbot serve` runs),
driven over HTTP."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient, TestServer

from bot.app import COMPONENTS, BotComponents, create_app
from tests.bot.harness import make_settings

NO_CREDENTIALS: dict[str, Any] = {
    "SLACK_BOT_TOKEN": None,
    "SLACK_SIGNING_SECRET": None,
    "TEAMS_ENABLED": True,
    "MICROSOFT_APP_ID": None,
    "MICROSOFT_APP_PASSWORD": None,
    "MICROSOFT_APP_TENANT_ID": None,
    "REDIS_URL": None,
    "PLAYGROUND_ADMIN_TOKEN": None,
    "HR_CONTACT_URL": "https://hr.fabrikam.example/contact",
}
PROD_RBAC_KEY = "q9Zr-4Lx8Wm2Tb7Nv1Kc5Hs0Yd3Fg6JpAe"  # random-looking, 34 characters
# A valid production configuration (Teams only): what prod refuses to start without.
PROD: dict[str, Any] = {
    "RBAC_SIGNING_KEY": PROD_RBAC_KEY,
    "BENEFITSBOT_ENV": "prod",
    "SLACK_ENABLED": False,
    "MICROSOFT_APP_ID": "11111111-2222-4333-8444-555555555555",
    "MICROSOFT_APP_PASSWORD": "unused",
    "REDIS_URL": "redis://127.0.0.1:1/0",
}


def basic(password: str, user: str = "hr") -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


@dataclass
class DevApp:
    client: TestClient
    parts: BotComponents

    async def post_json(self, path: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> ClientResponse:
        return await self.client.post(
            path, data=json.dumps(body), headers={"Content-Type": "application/json", **(headers or {})}
        )

    async def post_form(
        self, path: str, form: dict[str, Any] | list[tuple[str, str]], headers: dict[str, str] | None = None
    ) -> ClientResponse:
        return await self.client.post(
            path, data=urlencode(form), headers={"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
        )

    async def ask(
        self,
        question: str,
        *,
        groups: tuple[str, ...] = ("employees",),
        state: str = "",
        as_of: str = "",
        language: str = "",
        headers: dict[str, str] | None = None,
    ) -> str:
        """The playground's answer fragment, as its script fetches it."""
        form = [
            ("question", question),
            *(("groups", g) for g in groups),
            ("state", state),
            ("as_of", as_of),
            ("language", language),
        ]
        resp = await self.post_form("/playground/ask", form, {"X-Playground-Fragment": "1", **(headers or {})})
        assert resp.status == 200, await resp.text()
        return await resp.text()

    async def close(self) -> None:
        await self.client.close()


async def start_dev(service: Any, **overrides: Any) -> DevApp:
    settings = make_settings(**{**NO_CREDENTIALS, **overrides})
    app = create_app(settings, service)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    return DevApp(client, app[COMPONENTS])
