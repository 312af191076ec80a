"""Local fakes for Teams: the Bot Framework connector (serviceUrl), the Bot Framework OpenID/JWKS
endpoints with a local RSA signing key, and static outbound credentials.

The connector records ``POST /v3/conversations/{id}/activities[/{replyToId}]``, roster reads and
1:1 conversation creation, so tests assert on what the bot sent and where. It answers 400 where
Teams does (bot-messages-ai-generated-content): more than one root message entity, more than 20
citations, an empty or malformed citation ``appearance`` (name at most 80 characters, abstract at
most 160, at most 3 keywords of 28), a citation whose ``[n]`` is not in the text, and a malformed
feedback-loop ``channelData``; such sends are kept in ``rejected``, not in the calls.
"""

from __future__ import annotations

import itertools
import json
import time
import uuid
from typing import Any

import jwt
from aiohttp import web
from botframework.connector.auth import (
    AppCredentials,
    MicrosoftAppCredentials,
    PasswordServiceClientCredentialFactory,
)
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from msrest.authentication import Authentication

from tests.fakes.server import Call, FakeService

BOT_FRAMEWORK_ISSUER = "https://api.botframework.com"
OUTBOUND_TOKEN = "fake-outbound-bot-token"
MESSAGE_ENTITY = "https://schema.org/Message"


def _claim_problem(claim: Any, text: str) -> str | None:
    if not isinstance(claim, dict) or claim.get("@type") != "Claim":
        return "Error while parsing citation entity: @type must be Claim"
    position = claim.get("position")
    if not isinstance(position, int) or position < 1:
        return "Error while parsing citation entity: position must be a positive integer"
    if f"[{position}]" not in text:
        return f"citation position {position} has no [{position}] in the text"
    appearance = claim.get("appearance")
    if not isinstance(appearance, dict) or not appearance:
        return "The appearance object is empty."
    if appearance.get("@type") != "DigitalDocument":
        return "Error while parsing citation entity: appearance @type must be DigitalDocument"
    name = appearance.get("name")
    if not isinstance(name, str) or not 0 < len(name) <= 80:
        return "Error while parsing citation entity: name is required, at most 80 characters"
    if len(str(appearance.get("abstract") or "")) > 160:
        return "Error while parsing citation entity: abstract over 160 characters"
    keywords = appearance.get("keywords") or []
    if len(keywords) > 3 or any(len(str(k)) > 28 for k in keywords):
        return "Error while parsing citation entity: at most 3 keywords of 28 characters"
    return None


def activity_problem(activity: dict[str, Any]) -> str | None:
    """What Teams answers 400 to in an outgoing activity (None when it is acceptable)."""
    roots = [e for e in activity.get("entities") or [] if isinstance(e, dict) and e.get("type") == MESSAGE_ENTITY]
    if len(roots) > 1:
        return "Multiple root message entities found under entities array."
    for root in roots:
        if root.get("@type") != "Message" or root.get("@context") != "https://schema.org":
            return "Error parsing message entity from entities array."
        if set(root.get("additionalType") or []) - {"AIGeneratedContent"}:
            return "Error parsing message entity from entities array: unknown additionalType."
        claims = root.get("citation") or []
        if len(claims) > 20:
            return "Bot message with more than 20 citations."
        for claim in claims:
            problem = _claim_problem(claim, str(activity.get("text") or ""))
            if problem:
                return problem
    data = activity.get("channelData") or {}
    if "feedbackLoopEnabled" in data and not isinstance(data["feedbackLoopEnabled"], bool):
        return "channelData.feedbackLoopEnabled must be a boolean"
    if data.get("feedbackLoopType", "default") not in ("default", "custom"):
        return "channelData.feedbackLoopType must be default or custom"
    return None


def root_message_entity(call: Call) -> dict[str, Any] | None:
    """The one schema.org Message entity of a sent activity (AI label and citations), if any."""
    roots = [e for e in call.args["activity"].get("entities") or [] if e.get("type") == MESSAGE_ENTITY]
    return roots[0] if roots else None


class FakeBotFrameworkAuth(FakeService):
    """Serves OpenID metadata + JWKS and signs channel tokens like the Bot Framework does."""

    def __init__(self) -> None:
        super().__init__()
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = f"fake-key-{uuid.uuid4().hex[:8]}"  # unique: never confused with another fake's key

    def build(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1/.well-known/openidconfiguration", self._metadata)
        app.router.add_get("/v1/keys", self._keys)
        return app

    @property
    def metadata_url(self) -> str:
        return f"{self.base_url}/v1/.well-known/openidconfiguration"

    async def _metadata(self, request: web.Request) -> web.Response:
        self.record("openid", {})
        return web.json_response(
            {
                "issuer": BOT_FRAMEWORK_ISSUER,
                "jwks_uri": f"{self.base_url}/v1/keys",
                "id_token_signing_alg_values_supported": ["RS256"],
            }
        )

    async def _keys(self, request: web.Request) -> web.Response:
        self.record("jwks", {})
        jwk = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        jwk.update({"kid": self.kid, "use": "sig", "alg": "RS256", "endorsements": ["msteams", "emulator"]})
        return web.json_response({"keys": [jwk]})

    def token(
        self,
        *,
        audience: str,
        service_url: str,
        issuer: str = BOT_FRAMEWORK_ISSUER,
        expires_in: int = 3600,
        key: rsa.RSAPrivateKey | None = None,
        kid: str | None = None,
    ) -> str:
        now = int(time.time())
        claims = {
            "iss": issuer,
            "aud": audience,
            "serviceurl": service_url,
            "nbf": now - 60,
            "iat": now - 60,
            "exp": now + expires_in,
        }
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": kid or self.kid})


class FakeTeamsConnector(FakeService):
    """The Bot Framework connector a Teams activity's serviceUrl points at."""

    def __init__(self) -> None:
        super().__init__()
        self.rosters: dict[str, list[dict[str, Any]]] = {}
        self.rejected: list[tuple[str, dict[str, Any]]] = []  # (Teams' 400 message, activity)
        self._ids = itertools.count(1)

    def build(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v3/conversations", self._create)
        app.router.add_post("/v3/conversations/{cid}/activities", self._send)
        app.router.add_post("/v3/conversations/{cid}/activities/{aid}", self._send)
        app.router.add_put("/v3/conversations/{cid}/activities/{aid}", self._update)
        app.router.add_get("/v3/conversations/{cid}/members", self._members)
        return app

    @property
    def service_url(self) -> str:
        return self.base_url + "/"

    def set_roster(self, conversation_id: str, members: list[dict[str, Any]]) -> None:
        self.rosters[conversation_id] = members

    async def _send(self, request: web.Request) -> web.Response:
        body = await request.json()
        problem = activity_problem(body)
        if problem is not None:
            self.rejected.append((problem, body))
            return web.json_response({"error": {"code": "BadArgument", "message": problem}}, status=400)
        call = self.record(
            "send",
            {
                "conversation": request.match_info["cid"],
                "reply_to": request.match_info.get("aid"),
                "activity": body,
            },
            {"Authorization": request.headers.get("Authorization", "")},
        )
        call.result = {"id": f"act-{next(self._ids)}"}
        return web.json_response(call.result)

    async def _update(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.record(
            "update",
            {"conversation": request.match_info["cid"], "id": request.match_info["aid"], "activity": body},
        )
        return web.json_response({"id": request.match_info["aid"]})

    async def _members(self, request: web.Request) -> web.Response:
        cid = request.match_info["cid"]
        self.record("members", {"conversation": cid}, {"Authorization": request.headers.get("Authorization", "")})
        return web.json_response(self.rosters.get(cid, []))

    async def _create(self, request: web.Request) -> web.Response:
        body = await request.json()
        conversation_id = f"a:1on1-{uuid.uuid4().hex[:8]}"
        self.record(
            "create",
            {"params": body, "id": conversation_id},
            {"Authorization": request.headers.get("Authorization", "")},
        )
        return web.json_response({"id": conversation_id, "activityId": None, "serviceUrl": self.service_url})

    # ----- assertion helpers ---------------------------------------------------------------
    def messages(self) -> list[Call]:
        return [c for c in self.calls_to("send") if c.args["activity"].get("type") == "message"]

    def messages_in(self, conversation_id: str) -> list[Call]:
        return [c for c in self.messages() if c.args["conversation"] == conversation_id]


def activity_text(call: Call) -> str:
    """Everything a person could read in a recorded activity (text, summary, card JSON, citations)."""
    activity = call.args["activity"]
    return "\n".join(
        [
            str(activity.get("text") or ""),
            str(activity.get("summary") or ""),
            json.dumps(activity.get("attachments") or [], ensure_ascii=False),
            json.dumps(activity.get("entities") or [], ensure_ascii=False),
        ]
    )


class StaticTokenCredentials(AppCredentials):  # type: ignore[misc]
    """Outbound credentials with a fixed token: no call to login.microsoftonline.com."""

    def __init__(self, app_id: str, token: str) -> None:
        super().__init__(app_id=app_id)
        self._token = token

    def get_access_token(self, force_refresh: bool = False) -> str:
        return self._token


class StaticTokenCredentialFactory(PasswordServiceClientCredentialFactory):  # type: ignore[misc]
    def __init__(self, app_id: str | None, token: str = OUTBOUND_TOKEN) -> None:
        super().__init__(app_id=app_id, password="unused")
        self._token = token

    async def create_credentials(
        self, app_id: str, oauth_scope: str, login_endpoint: str, validate_authority: bool
    ) -> Authentication:
        if await self.is_authentication_disabled():
            return MicrosoftAppCredentials.empty()
        if not await self.is_valid_app_id(app_id):
            raise PermissionError("Invalid app_id")
        return StaticTokenCredentials(app_id, self._token)
