"""``POST /slack/events`` in dev mode when no Slack bot token is set: try the Slack surface with curl.

Without a bot token nothing can be posted to Slack, so this answers a Slack-shaped request in its
own HTTP response, as the dev identity: a ``/benefits`` command form (Slack shows such a response
body as the ephemeral reply), an ``event_callback`` with a DM or an @mention, a feedback button
click, and the URL-verification challenge. The reply is the real Block Kit of ``bot.slack.blocks``.

Requests are verified when ``SLACK_SIGNING_SECRET`` is set and accepted unsigned otherwise: this
class is only ever mounted in dev mode (``bot.devmode.uses_dev_identity``), never in production.
Without a token there is no member list either, so a channel @mention is answered for the dev
identity alone (the audience rule needs the real Slack edge).
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import parse_qs

from aiohttp import web
from slack_sdk.signature import SignatureVerifier

from bot.answering import Answerer
from bot.devmode import DevDirectory
from bot.slack.app import FEEDBACK_THANKS, PLATFORM, is_ignored, strip_bot_mention
from bot.slack.blocks import FEEDBACK_ACTION, FEEDBACK_DOWN, FEEDBACK_UP, parse_feedback_value, render

log = logging.getLogger(__name__)

_EVENT_TYPES = {"app_mention", "message"}


class DevSlackResponder:
    def __init__(self, answerer: Answerer, directory: DevDirectory, signing_secret: str = "") -> None:
        self.answerer = answerer
        self.directory = directory
        self._verifier = SignatureVerifier(signing_secret) if signing_secret else None

    @property
    def verifies_signatures(self) -> bool:
        return self._verifier is not None

    async def handle_http(self, request: web.Request) -> web.Response:
        raw = await request.read()
        if self._verifier is not None and not self._verifier.is_valid(
            raw, request.headers.get("X-Slack-Request-Timestamp"), request.headers.get("X-Slack-Signature")
        ):
            return web.json_response({"error": "invalid signature"}, status=401)
        text = raw.decode("utf-8", errors="replace")
        if "application/x-www-form-urlencoded" in request.headers.get("Content-Type", ""):
            form = {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}
            if "payload" in form:
                return await self._action(form["payload"])
            if form.get("command"):
                return await self._command(form)
            return web.json_response({"error": "expected a slash command or an interaction payload"}, status=400)
        try:
            body = json.loads(text)
        except ValueError:
            return web.json_response({"error": "body is neither a form nor JSON"}, status=400)
        if not isinstance(body, dict):
            return web.json_response({"error": "body must be a JSON object"}, status=400)
        if body.get("type") == "url_verification":
            return web.json_response({"challenge": str(body.get("challenge", ""))})
        if body.get("type") == "event_callback" and isinstance(body.get("event"), dict):
            return await self._event(body["event"], body)
        return web.Response(status=200)  # anything else is acknowledged and ignored, like Slack's own

    async def _answer(self, question: str, user: str, thread_key: str | None) -> dict[str, Any]:
        outcome = await self.answerer.ask(
            question, self.directory.identity_for(user), platform=PLATFORM, user_id=user, thread_key=thread_key
        )
        text, blocks = render(outcome.public, note=outcome.note)
        return {"text": text, "blocks": blocks}

    async def _command(self, form: dict[str, str]) -> web.Response:
        user = form.get("user_id") or "UDEV"
        reply = await self._answer(form.get("text", ""), user, None)
        return web.json_response({"response_type": "ephemeral", **reply})

    async def _event(self, event: dict[str, Any], body: dict[str, Any]) -> web.Response:
        bot_user = next((a.get("user_id") for a in body.get("authorizations") or [] if isinstance(a, dict)), None)
        if event.get("type") not in _EVENT_TYPES or is_ignored(event, bot_user):
            return web.Response(status=200)
        channel = str(event.get("channel") or "DDEV")
        thread = str(event.get("thread_ts") or event.get("ts") or "")
        question = strip_bot_mention(str(event.get("text") or ""), bot_user)
        reply = await self._answer(question, str(event["user"]), f"{PLATFORM}:{channel}:{thread}" if thread else None)
        return web.json_response({"channel": channel, "thread_ts": thread or None, **reply})

    async def _action(self, payload_text: str) -> web.Response:
        try:
            payload = json.loads(payload_text)
        except ValueError:
            return web.json_response({"error": "payload is not JSON"}, status=400)
        actions = payload.get("actions") or [] if isinstance(payload, dict) else []
        action = actions[0] if actions and isinstance(actions[0], dict) else {}
        value = str(action.get("value") or "")
        if action.get("action_id") == FEEDBACK_ACTION:  # the native feedback_buttons: "up:<query id>"
            vote, query_id = parse_feedback_value(value)
        elif action.get("action_id") in (FEEDBACK_UP, FEEDBACK_DOWN):
            vote, query_id = ("up" if action.get("action_id") == FEEDBACK_UP else "down"), value
        else:
            return web.Response(status=200)
        user = str((payload.get("user") or {}).get("id") or "UDEV")
        if await self.answerer.record_feedback(PLATFORM, user, query_id, vote):
            return web.json_response({"response_type": "ephemeral", "text": FEEDBACK_THANKS})
        return web.json_response({"error": "malformed feedback"}, status=400)
