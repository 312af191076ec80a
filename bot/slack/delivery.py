"""One reply into one Slack thread: a thinking status, the answer streamed, exactly one final message.

While the core works, the thread shows Slack's assistant status ("Reading the benefits
documents…"); where the workspace refuses it, a "Looking this up…" placeholder is posted instead.
The reply is then streamed with ``chat.startStream`` / ``appendStream`` / ``stopStream`` (the
closing blocks — sources, HR contact, footer, feedback buttons — go with the stop), or, with a
placeholder on screen or streaming off, the placeholder is updated in place.

Any Slack API error while streaming falls back to the update/post path with the same content: the
partly streamed message (or the placeholder) is updated, or, failing that, a new message is posted
and the partial one deleted, so nothing is lost and exactly one final answer remains.

Only the core's *validated* answer is streamed (sentence by sentence): raw generator tokens are
never shown, because the citation validator may still strip a sentence or reject the answer.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.observability import Metrics
from bot.reply import Reply
from bot.slack.blocks import (
    LOOKING_UP,
    MARKDOWN_TEXT_LIMIT,
    Block,
    body_blocks,
    body_markdown,
    closing_blocks,
    fallback_text,
)

log = logging.getLogger(__name__)

PLATFORM = "slack"
STATUS_TEXT = "Reading the benefits documents…"
NO_UNFURL: dict[str, Any] = {"unfurl_links": False, "unfurl_media": False}
PIECE_CHARS = 400  # longest append: whole sentences up to this, or a long sentence cut at words
# Errors that say the feature is not available to this app at all (as opposed to a rate limit or a
# glitch): remembered, so later questions do not pay for a call that cannot succeed.
UNAVAILABLE = frozenset(
    {
        "unknown_method",
        "missing_scope",
        "not_allowed_token_type",
        "method_deprecated",
        "feature_not_enabled",
        "not_enabled",
    }
)
# A sentence ends at . ! or ? with its citation markers ("… per year. [1] [2] "), so a marker is
# never streamed at the start of the next sentence.
_SENTENCE_END = re.compile(r"[.!?](?:\s*\[\d+\])*\s+(?!\[\d)")


def error_code(exc: SlackApiError) -> str:
    return str(exc.response.get("error") or "unknown_error")


def _sentences(markdown: str, size: int) -> list[str]:
    """Sentences with their trailing markers and spaces; one longer than ``size`` is cut at words."""
    out: list[str] = []
    position = 0
    for match in [*_SENTENCE_END.finditer(markdown), None]:
        end = match.end() if match else len(markdown)
        sentence = markdown[position:end]
        position = end
        while len(sentence) > size:
            cut = sentence.rfind(" ", 0, size) + 1 or size
            out.append(sentence[:cut])
            sentence = sentence[cut:]
        if sentence:
            out.append(sentence)
    return out


def pieces(markdown: str, size: int = PIECE_CHARS) -> list[str]:
    """The body as stream calls: the first sentence alone (text shows as soon as possible), then
    whole sentences grouped up to ``size`` characters per append (few calls: Slack rate-limits
    them). Joined back they are exactly the body."""
    out: list[str] = []
    for sentence in _sentences(markdown, size):
        if len(out) >= 2 and len(out[-1]) + len(sentence) <= size:
            out[-1] += sentence
        else:
            out.append(sentence)
    return out


@dataclass
class Capabilities:
    """What this workspace's API has refused outright (per process; a restart tries again)."""

    streaming: bool = True
    status: bool = True

    def refused(self, feature: str, code: str) -> None:
        if code in UNAVAILABLE and getattr(self, feature):
            setattr(self, feature, False)
            log.warning("Slack refused %s (%s): not used again until restart", feature, code)


@dataclass(frozen=True)
class Thread:
    channel: str
    thread_ts: str
    user: str
    team: str | None


@dataclass
class ThreadWriter:
    """Writes one reply into ``thread``: :meth:`begin` before the core is asked, :meth:`finish` after."""

    client: AsyncWebClient
    thread: Thread
    capabilities: Capabilities
    metrics: Metrics
    stream: bool = True
    message_ts: str | None = None  # the placeholder, or a partly streamed message
    _status_shown: bool = field(default=False, init=False)

    async def begin(self) -> None:
        """The status line if Slack takes it, else the placeholder. Raises ``SlackApiError`` when
        nothing at all can be shown in the thread (the question cannot be answered there)."""
        if self.stream and self.capabilities.status and await self._status(STATUS_TEXT):
            self._status_shown = True
            return
        placeholder = await self.client.chat_postMessage(
            channel=self.thread.channel, thread_ts=self.thread.thread_ts, text=LOOKING_UP, **NO_UNFURL
        )
        self.message_ts = str(placeholder["ts"])

    async def finish(self, reply: Reply, *, note: str | None = None) -> None:
        closing = closing_blocks(reply, note=note)
        markdown = body_markdown(reply)
        if (
            self.message_ts is None
            and self.stream
            and self.capabilities.streaming
            and 0 < len(markdown) <= MARKDOWN_TEXT_LIMIT
            and await self._stream(markdown, closing)
        ):
            return
        await self._post_or_update(fallback_text(reply), body_blocks(reply) + closing)

    # -- the parts ---------------------------------------------------------------------------------
    async def _status(self, status: str) -> bool:
        try:
            await self.client.assistant_threads_setStatus(
                channel_id=self.thread.channel, thread_ts=self.thread.thread_ts, status=status
            )
            return True
        except SlackApiError as exc:
            self.capabilities.refused("status", error_code(exc))
            log.info("assistant.threads.setStatus failed (%s)", error_code(exc))
            return False

    async def _stream(self, markdown: str, closing: list[Block]) -> bool:
        first, *rest = pieces(markdown)
        channel = self.thread.channel
        try:
            started = await self.client.chat_startStream(
                channel=channel,
                thread_ts=self.thread.thread_ts,
                markdown_text=first,
                recipient_user_id=self.thread.user,
                recipient_team_id=self.thread.team,
            )
            self.message_ts = str(started["ts"])
            for piece in rest:
                await self.client.chat_appendStream(channel=channel, ts=self.message_ts, markdown_text=piece)
            await self.client.chat_stopStream(channel=channel, ts=self.message_ts, blocks=closing)
            return True
        except SlackApiError as exc:
            code = error_code(exc)
            self.capabilities.refused("streaming", code)
            self.metrics.errors.labels(PLATFORM, "stream_failed").inc()
            log.warning("streaming the answer failed (%s); posting it instead", code)
            return False

    async def _post_or_update(self, text: str, blocks: list[Block]) -> None:
        stale = self.message_ts
        if stale is not None:
            try:
                await self.client.chat_update(
                    channel=self.thread.channel, ts=stale, text=text, blocks=blocks, **NO_UNFURL
                )
                return
            except SlackApiError as exc:
                log.warning("chat.update failed (%s); posting a new reply", error_code(exc))
        try:
            await self.client.chat_postMessage(
                channel=self.thread.channel, thread_ts=self.thread.thread_ts, text=text, blocks=blocks, **NO_UNFURL
            )
        except SlackApiError as exc:
            self.metrics.errors.labels(PLATFORM, "post_failed").inc()
            log.error("could not post the answer (%s)", error_code(exc))
            if self._status_shown:
                await self._status("")  # do not leave "Reading…" spinning over nothing
            return
        if stale is not None:
            await self._delete(stale)

    async def _delete(self, ts: str) -> None:
        """The placeholder or partial stream the final answer replaced (one answer on screen)."""
        try:
            await self.client.chat_delete(channel=self.thread.channel, ts=ts)
        except SlackApiError as exc:
            log.info("could not delete the superseded message (%s)", error_code(exc))
