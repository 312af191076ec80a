"""A local fake of the Slack Web API (and response_url, and Socket Mode's WebSocket).

Configurable users, usergroups, profiles and channel memberships; records every call
(chat.postMessage, chat.update, chat.postEphemeral, usergroups.*, users.*, conversations.members,
auth.test, views.*, response_url POSTs) so tests assert on what the bot actually sent. The AI-app
methods (chat streaming, assistant threads) and the request checks live in slack_assistant.py.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import WSMsgType, web

from tests.fakes.server import Call, FakeService
from tests.fakes.slack_assistant import AssistantApiMixin, Message, block_problem

# Block Kit limits, as Slack enforces them (api.slack.com/reference/block-kit): a message that
# breaks one is refused with `invalid_blocks` (or `msg_too_long`), so no test passes with a
# message real Slack would reject.
MAX_BLOCKS = 50
MAX_TEXT = 40_000  # top-level `text`
LIMITS = {
    "section.text": 3000,
    "section.field": 2000,
    "section.fields": 10,
    "context.elements": 10,
    "actions.elements": 25,
    "button.text": 75,
    "button.value": 2000,
    "button.url": 3000,
    "action_id": 255,
    "block_id": 255,
    "header.text": 150,
    "image.alt_text": 2000,
}
TEXT_TYPES = {"plain_text", "mrkdwn"}


def block_kit_problems(blocks: object) -> list[str]:
    """Every way ``blocks`` breaks Block Kit's limits (empty when Slack would accept them)."""
    if blocks in (None, ""):
        return []
    if not isinstance(blocks, list):
        return ["blocks is not an array"]
    problems = [f"{len(blocks)} blocks > {MAX_BLOCKS}"] if len(blocks) > MAX_BLOCKS else []

    def text_object(obj: object, where: str, limit: int) -> None:
        if not isinstance(obj, dict) or obj.get("type") not in TEXT_TYPES or not isinstance(obj.get("text"), str):
            problems.append(f"{where}: not a text object")
            return
        if not obj["text"]:
            problems.append(f"{where}: empty text")
        if len(obj["text"]) > limit:
            problems.append(f"{where}: {len(obj['text'])} chars > {limit}")

    seen_ids: set[str] = set()
    for i, block in enumerate(blocks):
        if not isinstance(block, dict):
            problems.append(f"block {i} is not an object")
            continue
        kind = block.get("type")
        block_id = block.get("block_id")
        if block_id is not None:
            if len(str(block_id)) > LIMITS["block_id"]:
                problems.append(f"block {i}: block_id too long")
            if block_id in seen_ids:
                problems.append(f"block {i}: duplicate block_id {block_id!r}")
            seen_ids.add(str(block_id))
        if kind == "section":
            if "text" not in block and "fields" not in block:
                problems.append(f"block {i}: section without text or fields")
            if "text" in block:
                text_object(block["text"], f"block {i} section text", LIMITS["section.text"])
            fields = block.get("fields") or []
            if len(fields) > LIMITS["section.fields"]:
                problems.append(f"block {i}: {len(fields)} fields")
            for j, field in enumerate(fields):
                text_object(field, f"block {i} field {j}", LIMITS["section.field"])
        elif kind == "context":
            elements = block.get("elements") or []
            if not elements or len(elements) > LIMITS["context.elements"]:
                problems.append(f"block {i}: context with {len(elements)} elements")
            for j, element in enumerate(elements):
                if isinstance(element, dict) and element.get("type") in TEXT_TYPES:
                    text_object(element, f"block {i} context {j}", LIMITS["section.text"])
        elif kind == "actions":
            elements = block.get("elements") or []
            if not elements or len(elements) > LIMITS["actions.elements"]:
                problems.append(f"block {i}: actions with {len(elements)} elements")
            for j, element in enumerate(elements):
                if not isinstance(element, dict):
                    problems.append(f"block {i} element {j}: not an object")
                    continue
                if len(str(element.get("action_id", ""))) > LIMITS["action_id"]:
                    problems.append(f"block {i} element {j}: action_id too long")
                if element.get("type") == "button":
                    text_object(element.get("text"), f"block {i} button {j} text", LIMITS["button.text"])
                    if element.get("text", {}).get("type") != "plain_text":
                        problems.append(f"block {i} button {j}: text must be plain_text")
                    for key in ("value", "url"):
                        if len(str(element.get(key, ""))) > LIMITS[f"button.{key}"]:
                            problems.append(f"block {i} button {j}: {key} {len(str(element[key]))} chars")
        elif kind == "header":
            text_object(block.get("text"), f"block {i} header", LIMITS["header.text"])
        elif kind not in ("divider", "image", "rich_text", "input", "file", "video", "markdown", "context_actions"):
            problems.append(f"block {i}: unknown type {kind!r}")
    return problems


BOT_USER_ID = "UBOT"
BOT_ID = "BBOT"
TEAM_ID = "T0001"
STATE_FIELD = "Xf0STATE"


class FakeSlackApi(AssistantApiMixin, FakeService):
    def __init__(self, *, bot_token: str = "xoxb-test", app_token: str = "xapp-test") -> None:
        super().__init__()
        self.bot_token = bot_token
        self.app_token = app_token
        self.users: dict[str, dict[str, Any]] = {}
        self.usergroups: dict[str, dict[str, Any]] = {}
        self.channels: dict[str, list[str]] = {}
        self.failures: dict[str, str] = {}  # method -> Slack error code to return
        self.response_posts: list[dict[str, Any]] = []
        self._ts = itertools.count(1)
        self.socket_acks: list[dict[str, Any]] = []
        self._socket_queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.socket_connected = asyncio.Event()
        self.streams = {}
        self.add_user(BOT_USER_ID, is_bot=True)

    # ----- configuration -------------------------------------------------------------------
    def add_user(self, user_id: str, *, state: str | None = None, is_bot: bool = False, deleted: bool = False) -> None:
        fields = {STATE_FIELD: {"value": state, "alt": ""}} if state else {}
        self.users[user_id] = {
            "id": user_id,
            "name": user_id.lower(),
            "is_bot": is_bot,
            "deleted": deleted,
            "fields": fields,
        }

    def add_usergroup(self, group_id: str, handle: str, users: list[str]) -> None:
        self.usergroups[group_id] = {"id": group_id, "handle": handle, "users": list(users), "date_delete": 0}

    def set_membership(self, group_id: str, users: list[str]) -> None:
        self.usergroups[group_id]["users"] = list(users)

    def set_channel(self, channel_id: str, members: list[str]) -> None:
        self.channels[channel_id] = list(members)

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/"

    def response_url(self, name: str = "r1") -> str:
        return f"{self.base_url}/response/{name}"

    # ----- HTTP ---------------------------------------------------------------------------------
    def build(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_post("/response/{name}", self._response)
        app.router.add_get("/socket", self._socket)
        return app

    async def _args(self, request: web.Request) -> dict[str, Any]:
        args: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            raw = await request.text()
            if request.content_type == "application/json" and raw:
                args.update(json.loads(raw))
            elif raw:
                args.update(dict(parse_qsl(raw, keep_blank_values=True)))
        for key in ("blocks", "attachments"):
            if isinstance(args.get(key), str):
                try:
                    args[key] = json.loads(args[key])
                except ValueError:
                    pass
        return args

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args = await self._args(request)
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ") if auth else str(args.get("token", ""))
        refusal = (
            self._message_refusal(args) if method in ("chat.postMessage", "chat.update", "chat.postEphemeral") else None
        )
        # A refused message is recorded under its own name: no test finds it among what was posted.
        call = self.record(f"{method}:refused" if refusal else method, args, {"Authorization": auth})
        expected = self.app_token if method == "apps.connections.open" else self.bot_token
        if token != expected:
            return web.json_response({"ok": False, "error": "invalid_auth"})
        if method in self.failures:
            return web.json_response({"ok": False, "error": self.failures[method]})
        if refusal:
            call.result = refusal
            return web.json_response(refusal)
        problem = self.request_problem(method, args)
        if problem is not None:
            call.result = {"ok": False, "error": problem}
            return web.json_response(call.result)
        handler = getattr(self, "_m_" + method.replace(".", "_"), None)
        if handler is None:
            return web.json_response({"ok": True})
        result: dict[str, Any] = handler(args)
        call.result = result
        return web.json_response(result)

    @staticmethod
    def _message_refusal(args: dict[str, Any]) -> dict[str, Any] | None:
        if len(str(args.get("text") or "")) > MAX_TEXT:
            return {"ok": False, "error": "msg_too_long"}
        problems = block_kit_problems(args.get("blocks"))
        ai_block = block_problem(args.get("blocks"))  # context_actions / feedback_buttons (slack_assistant.py)
        if ai_block:
            problems.append(ai_block)
        if problems:
            return {"ok": False, "error": "invalid_blocks", "errors": problems}
        return None

    async def _response(self, request: web.Request) -> web.Response:
        body = await request.json()
        refusal = self._message_refusal(body)
        if refusal:  # Slack answers a bad response_url message with HTTP 400 "invalid_blocks"
            self.record("response_url:refused", {**body, "refusal": refusal})
            return web.Response(status=400, text=refusal["error"])
        self.response_posts.append({"name": request.match_info["name"], **body})
        self.record("response_url", body)
        return web.Response(text="ok")

    # ----- methods --------------------------------------------------------------------------------
    def _next_ts(self) -> str:
        return f"1700000000.{next(self._ts):06d}"

    def _m_auth_test(self, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "ok": True,
            "user_id": BOT_USER_ID,
            "bot_id": BOT_ID,
            "team_id": TEAM_ID,
            "user": "benefitsbot",
        }

    def _m_chat_postMessage(self, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "ok": True,
            "channel": args.get("channel"),
            "ts": self._next_ts(),
            "message": {"text": args.get("text")},
        }

    def _m_chat_update(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "channel": args.get("channel"), "ts": args.get("ts")}

    def _m_chat_postEphemeral(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "message_ts": self._next_ts()}

    def _m_users_info(self, args: dict[str, Any]) -> dict[str, Any]:
        user = self.users.get(str(args.get("user")))
        if user is None:
            return {"ok": False, "error": "user_not_found"}
        return {"ok": True, "user": {k: v for k, v in user.items() if k != "fields"}}

    def _m_users_profile_get(self, args: dict[str, Any]) -> dict[str, Any]:
        user = self.users.get(str(args.get("user")))
        if user is None:
            return {"ok": False, "error": "user_not_found"}
        return {"ok": True, "profile": {"real_name": user["name"], "fields": user["fields"]}}

    def _m_usergroups_list(self, args: dict[str, Any]) -> dict[str, Any]:
        include_users = str(args.get("include_users", "")).lower() in ("1", "true")
        groups = []
        for g in self.usergroups.values():
            item = {k: v for k, v in g.items() if k != "users"}
            if include_users:
                item["users"] = list(g["users"])
            groups.append(item)
        return {"ok": True, "usergroups": groups}

    def _m_usergroups_users_list(self, args: dict[str, Any]) -> dict[str, Any]:
        group = self.usergroups.get(str(args.get("usergroup")))
        if group is None:
            return {"ok": False, "error": "no_such_subteam"}
        return {"ok": True, "users": list(group["users"])}

    def _m_conversations_members(self, args: dict[str, Any]) -> dict[str, Any]:
        members = self.channels.get(str(args.get("channel")))
        if members is None:
            return {"ok": False, "error": "channel_not_found"}
        limit = int(args.get("limit") or 100)
        start = int(args.get("cursor") or 0)
        page = members[start : start + limit]
        next_cursor = str(start + limit) if start + limit < len(members) else ""
        return {"ok": True, "members": page, "response_metadata": {"next_cursor": next_cursor}}

    def _m_apps_connections_open(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "url": f"{self.base_url.replace('http://', 'ws://')}/socket"}

    # ----- Socket Mode -----------------------------------------------------------------------------
    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A1"}})
        self.socket_connected.set()

        async def pump() -> None:
            while True:
                envelope = await self._socket_queue.get()
                await ws.send_json(envelope)

        sender = asyncio.create_task(pump())
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    data = json.loads(msg.data)
                    self.socket_acks.append(data)
                    self.record("socket_ack", data)
                elif msg.type in (WSMsgType.CLOSE, WSMsgType.ERROR):
                    break
        finally:
            sender.cancel()
        return ws

    async def send_socket_envelope(self, envelope: dict[str, Any]) -> None:
        await self._socket_queue.put(envelope)

    # ----- assertions helpers -------------------------------------------------------------------------
    def posts(self, method: str, channel: str | None = None) -> list[Call]:
        return [c for c in self.calls_to(method) if channel is None or c.args.get("channel") == channel]


def message_text(call: Call | Message | dict[str, Any]) -> str:
    """Everything a person could read in a recorded message (text and every block's text)."""
    args = call if isinstance(call, dict) else call.args
    parts = [str(args.get("text") or "")]
    parts.append(json.dumps(args.get("blocks") or [], ensure_ascii=False))
    return "\n".join(parts)
