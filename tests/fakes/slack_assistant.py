"""The fake Slack Web API's AI-app methods and message model: chat streaming, assistant threads,
chat.delete, and the Block Kit shapes the bot sends (``feedback_buttons`` in ``context_actions``).

Requests are checked the way Slack checks them, so a test cannot pass with a call real Slack
would reject: a stream needs a channel and a thread; outside a DM it needs the recipient user and
team; ``markdown_text`` is at most 12,000 characters; ``appendStream`` / ``stopStream`` need a
stream that was started and is still streaming (``message_not_in_streaming_state``); blocks are at
most 50 per message with the element limits below (``invalid_blocks``).

``messages()`` replays the recorded calls into what a person now sees in each channel (posts,
updates, streams with their appended text and closing blocks, deletions), so tests assert on the
final state whichever path delivered it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.server import Call

MARKDOWN_TEXT_LIMIT = 12_000
MAX_BLOCKS = 50
SECTION_TEXT_LIMIT = 3000
BUTTON_VALUE_LIMIT = 2000
FEEDBACK_TEXT_LIMIT = 75
MAX_SUGGESTED_PROMPTS = 4
LOOKING_UP = "Looking this up…"
MESSAGE_METHODS = ("chat.postMessage", "chat.update", "chat.postEphemeral", "chat.stopStream")


def _text_of(obj: Any) -> str:
    return str(obj.get("text") or "") if isinstance(obj, dict) else ""


def _element_problem(element: dict[str, Any]) -> str | None:
    kind = element.get("type")
    if kind == "button" and len(str(element.get("value") or "")) > BUTTON_VALUE_LIMIT:
        return "button value over 2,000 characters"
    if kind == "feedback_buttons":
        if not element.get("action_id"):
            return "feedback_buttons without action_id"
        for side in ("positive_button", "negative_button"):
            button = element.get(side)
            if not isinstance(button, dict) or not button.get("value") or not _text_of(button.get("text")):
                return f"feedback_buttons.{side} needs text and value"
            if (button.get("text") or {}).get("type") != "plain_text":
                return f"feedback_buttons.{side}.text must be plain_text"
            if len(_text_of(button.get("text"))) > FEEDBACK_TEXT_LIMIT:
                return f"feedback_buttons.{side}.text over 75 characters"
            if len(str(button["value"])) > BUTTON_VALUE_LIMIT:
                return f"feedback_buttons.{side}.value over 2,000 characters"
    return None


def block_problem(blocks: Any) -> str | None:
    """Why Slack would answer ``invalid_blocks`` (None when the blocks are acceptable)."""
    if blocks is None:
        return None
    if not isinstance(blocks, list) or len(blocks) > MAX_BLOCKS:
        return "blocks must be a list of at most 50"
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        elements = block.get("elements") or [] if isinstance(block, dict) else []
        if kind == "section" and len(_text_of(block.get("text"))) > SECTION_TEXT_LIMIT:
            return "section text over 3,000 characters"
        if kind == "context_actions":
            if not 1 <= len(elements) <= 5 or any(
                e.get("type") not in ("feedback_buttons", "icon_button") for e in elements
            ):
                return "context_actions takes 1-5 feedback_buttons/icon_button elements"
        if kind not in (
            "section",
            "context",
            "actions",
            "context_actions",
            "divider",
            "header",
            "markdown",
            "rich_text",
        ):
            return f"unknown block type {kind!r}"
        for element in elements:
            problem = _element_problem(element) if isinstance(element, dict) else "element is not an object"
            if problem:
                return problem
    return None


@dataclass
class Stream:
    channel: str
    ts: str
    state: str = "streaming"  # -> "stopped"


@dataclass
class Message:
    """A bot message as it now stands in a channel (``args`` mirrors a recorded call's)."""

    channel: str
    ts: str
    thread_ts: str | None
    text: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    streamed: bool = False
    streaming: bool = False

    @property
    def args(self) -> dict[str, Any]:
        return {
            "channel": self.channel,
            "ts": self.ts,
            "thread_ts": self.thread_ts,
            "text": self.text,
            "blocks": self.blocks,
        }

    @property
    def placeholder(self) -> bool:
        return self.text == LOOKING_UP and not self.blocks


class AssistantApiMixin:
    """Mixed into ``FakeSlackApi``: AI-app methods, request checks and the message replay."""

    calls: list[Call]
    streams: dict[str, Stream]

    def _next_ts(self) -> str:  # pragma: no cover - provided by FakeSlackApi
        raise NotImplementedError

    # -- request checks (any method) ---------------------------------------------------------------
    def request_problem(self, method: str, args: dict[str, Any]) -> str | None:
        """The Slack error code for a malformed request, or None."""
        if method in MESSAGE_METHODS and block_problem(args.get("blocks")):
            return "invalid_blocks"
        if len(str(args.get("markdown_text") or "")) > MARKDOWN_TEXT_LIMIT:
            return "msg_too_long"
        return None

    # -- chat streaming --------------------------------------------------------------------------------
    def _m_chat_startStream(self, args: dict[str, Any]) -> dict[str, Any]:
        channel, thread_ts = str(args.get("channel") or ""), args.get("thread_ts")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        if not thread_ts:
            return {"ok": False, "error": "invalid_arguments"}  # streamed replies answer a message
        if not channel.startswith("D"):
            for needed in ("recipient_user_id", "recipient_team_id"):
                if not args.get(needed):
                    return {"ok": False, "error": f"missing_{needed}"}
        ts = self._next_ts()
        self.streams[ts] = Stream(channel, ts)
        return {"ok": True, "channel": channel, "ts": ts}

    def _streaming(self, args: dict[str, Any]) -> Stream | dict[str, Any]:
        stream = self.streams.get(str(args.get("ts") or ""))
        if not args.get("channel") or not args.get("ts"):
            return {"ok": False, "error": "invalid_arguments"}
        if stream is None or stream.channel != args["channel"]:
            return {"ok": False, "error": "message_not_found"}
        if stream.state != "streaming":
            return {"ok": False, "error": "message_not_in_streaming_state"}
        return stream

    def _m_chat_appendStream(self, args: dict[str, Any]) -> dict[str, Any]:
        stream = self._streaming(args)
        if not isinstance(stream, Stream):
            return stream
        if not args.get("markdown_text") and not args.get("chunks"):
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True, "channel": stream.channel, "ts": stream.ts}

    def _m_chat_stopStream(self, args: dict[str, Any]) -> dict[str, Any]:
        stream = self._streaming(args)
        if not isinstance(stream, Stream):
            return stream
        stream.state = "stopped"
        return {"ok": True, "channel": stream.channel, "ts": stream.ts, "message": {"ts": stream.ts}}

    def _m_chat_delete(self, args: dict[str, Any]) -> dict[str, Any]:
        if not args.get("channel") or not args.get("ts"):
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True, "channel": args["channel"], "ts": args["ts"]}

    # -- assistant threads ----------------------------------------------------------------------------------
    def _m_assistant_threads_setStatus(self, args: dict[str, Any]) -> dict[str, Any]:
        if not args.get("channel_id") or not args.get("thread_ts") or "status" not in args:
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True}

    def _m_assistant_threads_setTitle(self, args: dict[str, Any]) -> dict[str, Any]:
        if not args.get("channel_id") or not args.get("thread_ts") or not args.get("title"):
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True}

    def _m_assistant_threads_setSuggestedPrompts(self, args: dict[str, Any]) -> dict[str, Any]:
        prompts = args.get("prompts")
        if isinstance(prompts, str):
            prompts = json.loads(prompts)
        if (
            not args.get("channel_id")
            or not isinstance(prompts, list)
            or not 1 <= len(prompts) <= MAX_SUGGESTED_PROMPTS
            or not all(isinstance(p, dict) and p.get("title") and p.get("message") for p in prompts)
        ):
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True}

    # -- what people see ------------------------------------------------------------------------------------
    def messages(self, channel: str | None = None) -> list[Message]:
        """Every bot message now visible (ephemeral ones excluded), in posting order."""
        shown: dict[str, Message] = {}
        for call in self.calls:
            if not call.result.get("ok"):
                continue
            args, method = call.args, call.method
            if method == "chat.postMessage":
                ts = str(call.result["ts"])
                shown[ts] = Message(
                    str(args.get("channel")),
                    ts,
                    args.get("thread_ts"),
                    str(args.get("text") or ""),
                    list(args.get("blocks") or []),
                )
            elif method == "chat.update" and str(args.get("ts")) in shown:
                message = shown[str(args["ts"])]
                message.text, message.blocks = str(args.get("text") or ""), list(args.get("blocks") or [])
                message.streaming = False
            elif method == "chat.startStream":
                ts = str(call.result["ts"])
                shown[ts] = Message(
                    str(args.get("channel")),
                    ts,
                    args.get("thread_ts"),
                    str(args.get("markdown_text") or ""),
                    streamed=True,
                    streaming=True,
                )
            elif method == "chat.appendStream" and str(args.get("ts")) in shown:
                shown[str(args["ts"])].text += str(args.get("markdown_text") or "")
            elif method == "chat.stopStream" and str(args.get("ts")) in shown:
                message = shown[str(args["ts"])]
                message.text += str(args.get("markdown_text") or "")
                message.blocks, message.streaming = list(args.get("blocks") or []), False
            elif method == "chat.delete":
                shown.pop(str(args.get("ts")), None)
        return [m for m in shown.values() if channel is None or m.channel == channel]

    def answers(self, channel: str | None = None) -> list[Message]:
        """The answers as people now see them, whichever way they arrived (streamed, an updated
        placeholder or a post): visible bot messages that are not a "Looking this up…" placeholder."""
        return [m for m in self.messages(channel) if not m.placeholder]

    def sequence(self, *, exclude: tuple[str, ...] = ("auth.test",)) -> list[str]:
        """The Web API methods called, in order (the closing note's recorded call sequence)."""
        return [c.method for c in self.calls if c.method not in exclude]
