"""Slack listeners on an async slack-bolt app, served from aiohttp (and Socket Mode when configured).

Every request is acknowledged at once (bolt acks events before running listeners; commands
and actions call ``ack()`` first); the answer is computed in a tracked background task while the
thread shows a status line, then streamed into the thread (bot/slack/delivery.py). Retried
deliveries are dropped by an ``event_id`` claim in the store, so a retry storm yields exactly one
answer. The DM behaves as a Slack AI app (bot/slack/assistant.py).
"""

from __future__ import annotations

import html
import json
import logging
import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.request.internals import parse_body
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.answering import Answerer
from bot.errors import IdentityLookupError
from bot.observability import Metrics
from bot.reply import Outcome, ReplyKind
from bot.settings import BotSettings
from bot.slack.assistant import DmAssistant
from bot.slack.blocks import (
    FEEDBACK_ACTION,
    FEEDBACK_DOWN,
    FEEDBACK_UP,
    LOOKING_UP,
    SHARE_ACTION,
    escape,
    parse_feedback_value,
    render,
)
from bot.slack.delivery import NO_UNFURL, Capabilities, Thread, ThreadWriter
from bot.slack.directory import SlackDirectory
from bot.store import Store
from bot.tasks import BackgroundTasks

log = logging.getLogger(__name__)

PLATFORM = "slack"
_USER_SUBTYPES = {"file_share", "thread_broadcast"}

SHARE_REFUSED = "I can't share this answer in this channel: it relies on documents that not everyone here may see."
SHARE_NO_AUDIENCE = (
    "I can't check who is in this channel, so I can't share this answer here. "
    "If it's a private channel, invite me first."
)
SHARE_DONE = "Shared in the channel."
FEEDBACK_THANKS = "Thanks for the feedback!"


def strip_bot_mention(text: str, bot_user_id: str | None) -> str:
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(\|[^>]*)?>", " ", text)
    return html.unescape(" ".join(text.split()))


def is_ignored(event: dict[str, Any], bot_user_id: str | None) -> bool:
    """Our own messages, other bots, edits/deletions and anything without a human author."""
    if event.get("bot_id") or event.get("bot_profile"):
        return True
    subtype = event.get("subtype")
    if subtype and subtype not in _USER_SUBTYPES:
        return True
    user = event.get("user")
    return not user or (bot_user_id is not None and user == bot_user_id)


class SlackEdge:
    def __init__(
        self,
        settings: BotSettings,
        answerer: Answerer,
        directory: SlackDirectory,
        store: Store,
        metrics: Metrics,
        tasks: BackgroundTasks,
        client: AsyncWebClient,
    ) -> None:
        self.settings = settings
        self.answerer = answerer
        self.directory = directory
        self.store = store
        self.metrics = metrics
        self.tasks = tasks
        self.client = client
        self.bolt = AsyncApp(
            client=client,
            signing_secret=settings.slack_signing_secret_value or "",
            request_verification_enabled=True,  # never configurable: see BotSettings.slack_http_active
            process_before_response=False,
            logger=logging.getLogger("bot.slack.bolt"),
        )
        self._socket_handler: Any = None
        self.capabilities = Capabilities()
        self.assistant = DmAssistant(client, store, tasks, settings.suggested_prompts, self._on_message)
        self._register()

    # ----- wiring --------------------------------------------------------------------------
    def _register(self) -> None:
        app = self.bolt
        app.middleware(self._count_and_dedupe)  # first: a retried delivery reaches nothing else
        self.assistant.register(app)
        app.event("app_mention")(self._on_app_mention)
        app.event("message")(self._on_message)
        for name in ("subteam_members_changed", "subteam_updated", "subteam_created"):
            app.event(name)(self._on_usergroups_changed)
        app.event("user_change")(self._on_user_change)
        app.command("/benefits")(self._on_command)
        app.action(SHARE_ACTION)(self._on_share)
        app.action(FEEDBACK_ACTION)(self._on_feedback)
        app.action(FEEDBACK_UP)(self._on_feedback)  # buttons on messages sent before feedback_buttons
        app.action(FEEDBACK_DOWN)(self._on_feedback)

    async def handle_http(self, request: web.Request) -> web.Response:
        """``POST /slack/events``: bolt verifies the v0 signature (401 otherwise) and dispatches.

        A body that is not a JSON object, a form, or a form whose ``payload`` is a JSON object is
        answered 400 up front: bolt would raise while parsing it (a 500 and a traceback quoting the
        body) before it ever checks the signature."""
        data = await request.read()
        try:
            parsed = parse_body(data.decode("utf-8"), request.content_type)
        except ValueError:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            parsed = None
        if not isinstance(parsed, dict):
            self.metrics.errors.labels(PLATFORM, "bad_request").inc()
            log.warning("rejected an unparseable /slack/events body (%d bytes)", len(data))
            return web.Response(status=400, text="bad request")
        bolt_resp = await self.bolt.async_dispatch(await to_bolt_request(request))
        if bolt_resp.status == 404:
            # An event type nobody listens to: acknowledge it, or Slack would retry it.
            return web.Response(status=200)
        return await to_aiohttp_response(bolt_resp)

    async def start_socket_mode(self) -> None:
        from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler

        self._socket_handler = AsyncSocketModeHandler(
            self.bolt, app_token=self.settings.slack_app_token_value, web_client=self.client
        )
        await self._socket_handler.connect_async()
        log.info("Slack Socket Mode connected")

    async def stop_socket_mode(self) -> None:
        if self._socket_handler is not None:
            await self._socket_handler.close_async()
            self._socket_handler = None

    # ----- middleware ------------------------------------------------------------------------
    async def _count_and_dedupe(
        self, body: dict[str, Any], request: AsyncBoltRequest, next: Callable[[], Awaitable[BoltResponse]]
    ) -> BoltResponse | None:
        kind = str(body.get("type") or ("command" if body.get("command") else "unknown"))
        self.metrics.requests.labels(PLATFORM, kind).inc()
        event_id = body.get("event_id")
        if body.get("type") == "event_callback" and event_id:
            if not await self.store.claim(f"dedupe:slack:{event_id}", self.settings.dedupe_ttl_s):
                retry = (request.headers.get("x-slack-retry-num") or ["0"])[0]
                self.metrics.duplicates.labels(PLATFORM).inc()
                log.info("dropped duplicate delivery event_id=%s retry=%s", event_id, retry)
                return BoltResponse(status=200, body="")
        return await next()

    # ----- events ------------------------------------------------------------------------------
    async def _on_message(self, event: dict[str, Any], context: dict[str, Any]) -> None:
        """A DM: a top-level message (agent messaging experience), a reply in a DM thread, or a
        message in an assistant-view thread (routed here by bolt's Assistant middleware)."""
        if event.get("channel_type") != "im" or is_ignored(event, context.get("bot_user_id")):
            return
        self._spawn_thread_answer(event, context, shared=False)

    async def _on_app_mention(self, event: dict[str, Any], context: dict[str, Any]) -> None:
        if is_ignored(event, context.get("bot_user_id")):
            return
        if str(event.get("channel", "")).startswith("D"):
            return  # a DM: the message.im listener answers it
        self._spawn_thread_answer(event, context, shared=True)

    def _spawn_thread_answer(self, event: dict[str, Any], context: dict[str, Any], *, shared: bool) -> None:
        thread = Thread(
            channel=str(event["channel"]),
            thread_ts=str(event.get("thread_ts") or event["ts"]),
            user=str(event["user"]),
            # recipient_team_id for streams; an org-wide install has only the enterprise id (as in bolt's say_stream)
            team=context.get("team_id") or context.get("enterprise_id") or event.get("team"),
        )
        self.tasks.spawn(
            self._answer_in_thread(
                thread, text=str(event.get("text") or ""), bot_user_id=context.get("bot_user_id"), shared=shared
            ),
            name=f"slack-answer-{event.get('ts')}",
        )

    async def _answer_in_thread(self, thread: Thread, *, text: str, bot_user_id: str | None, shared: bool) -> None:
        writer = ThreadWriter(
            self.client, thread, self.capabilities, self.metrics, stream=self.settings.slack_streaming
        )
        try:
            await writer.begin()
        except SlackApiError as exc:
            self.metrics.errors.labels(PLATFORM, "post_failed").inc()
            log.error("could not post in channel (%s); question dropped", exc.response.get("error"))
            return
        question = strip_bot_mention(text, bot_user_id)
        if not shared:
            await self.assistant.title(thread.channel, thread.thread_ts, question)
        try:
            outcome = await self._outcome(
                question,
                thread.user,
                channel=thread.channel if shared else None,
                bot_user_id=bot_user_id,
                thread_key=f"{PLATFORM}:{thread.channel}:{thread.thread_ts}",
            )
            if outcome.private is not None:
                ptext, pblocks = render(outcome.private)
                await self.client.chat_postEphemeral(
                    channel=thread.channel,
                    user=thread.user,
                    thread_ts=thread.thread_ts,
                    text=ptext,
                    blocks=pblocks,
                    **NO_UNFURL,
                )
            reply, note = outcome.public, outcome.note
        except Exception:  # noqa: BLE001 - never leave the status or "Looking this up…", never show a trace
            log.exception("answering in thread failed")
            self.metrics.errors.labels(PLATFORM, "internal").inc()
            reply, note = self.answerer.apology("-"), None
        await writer.finish(reply, note=note)

    async def _outcome(
        self,
        question: str,
        user: str,
        *,
        channel: str | None,
        bot_user_id: str | None,
        thread_key: str | None,
    ) -> Outcome:
        """Resolve who asks (and who reads, for ``channel``) and ask the answerer."""
        try:
            asker = await self.directory.identity(user)
            audience = None
            if channel is not None and asker is not None and asker.has_access and question.strip():
                audience = await self.directory.audience(channel, asker_id=user, bot_user_id=bot_user_id)
        except IdentityLookupError as exc:
            reply = self.answerer.apology(uuid.uuid4().hex[:16])
            self.metrics.errors.labels(PLATFORM, "identity_lookup").inc()
            log.error("identity lookup failed query_id=%s: %s", reply.query_id, exc)
            return Outcome(reply)
        return await self.answerer.ask(
            question, asker, platform=PLATFORM, user_id=user, audience=audience, thread_key=thread_key
        )

    async def _on_usergroups_changed(self) -> None:
        await self.directory.invalidate_usergroups()

    async def _on_user_change(self, event: dict[str, Any]) -> None:
        user = event.get("user") or {}
        if isinstance(user, dict) and user.get("id"):
            await self.directory.invalidate_user(str(user["id"]))

    # ----- /benefits ---------------------------------------------------------------------------
    async def _on_command(
        self, ack: Callable[..., Awaitable[None]], command: dict[str, Any], context: dict[str, Any]
    ) -> None:
        await ack(text=LOOKING_UP)
        self.tasks.spawn(self._answer_command(command, context.get("bot_user_id")), name="slack-command")

    async def _respond(self, response_url: str, **payload: Any) -> None:
        try:
            resp = await AsyncWebhookClient(response_url).send(**payload, **NO_UNFURL)
            if resp.status_code >= 400:
                log.error("response_url POST failed with HTTP %s", resp.status_code)
        except Exception:  # noqa: BLE001
            self.metrics.errors.labels(PLATFORM, "respond_failed").inc()
            log.exception("response_url POST failed")

    async def _answer_command(self, command: dict[str, Any], bot_user_id: str | None) -> None:
        user = str(command["user_id"])
        channel = str(command.get("channel_id") or "")
        question = html.unescape(str(command.get("text") or "")).strip()
        try:
            outcome = await self._outcome(question, user, channel=None, bot_user_id=bot_user_id, thread_key=None)
            shareable = outcome.public.shows_sources and not channel.startswith("D")
            text, blocks = render(outcome.public, share_question=question if shareable else None)
        except Exception:  # noqa: BLE001
            log.exception("answering /benefits failed")
            text, blocks = render(self.answerer.apology("-"))
        await self._respond(
            str(command["response_url"]),
            text=text,
            blocks=blocks,
            response_type="ephemeral",
            replace_original=True,
        )

    # ----- buttons -------------------------------------------------------------------------------
    async def _on_share(
        self,
        ack: Callable[..., Awaitable[None]],
        body: dict[str, Any],
        action: dict[str, Any],
        context: dict[str, Any],
    ) -> None:
        await ack()
        self.tasks.spawn(self._share(body, action, context.get("bot_user_id")), name="slack-share")

    async def _share(self, body: dict[str, Any], action: dict[str, Any], bot_user_id: str | None) -> None:
        """Re-answer under the channel's audience rule; post only if it is the same answer."""
        user = str(body["user"]["id"])
        channel = str((body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id") or "")
        response_url = str(body.get("response_url") or "")
        try:
            question = str(json.loads(action.get("value") or "{}").get("q") or "")
        except ValueError:
            question = ""
        if not question or not channel:
            return
        try:
            asker = await self.directory.identity(user)
            audience = await self.directory.audience(channel, asker_id=user, bot_user_id=bot_user_id)
        except IdentityLookupError as exc:
            log.warning("share refused: %s", exc)
            await self._respond(response_url, text=SHARE_NO_AUDIENCE, response_type="ephemeral", replace_original=False)
            return
        outcome = await self.answerer.ask(question, asker, platform=PLATFORM, user_id=user, audience=audience)
        public = outcome.public
        if outcome.private is not None or public.kind != ReplyKind.ANSWER or not public.shows_sources:
            text = public.text if public.kind in (ReplyKind.RATE_LIMITED, ReplyKind.APOLOGY) else SHARE_REFUSED
            await self._respond(response_url, text=text, response_type="ephemeral", replace_original=False)
            return
        text, blocks = render(public)
        intro = {
            "type": "context",
            "elements": [
                {
                    "type": "mrkdwn",
                    "text": f"<@{user}> shared an answer to: _{escape(question)}_",
                }
            ],
        }
        try:
            await self.client.chat_postMessage(channel=channel, text=text, blocks=[intro, *blocks], **NO_UNFURL)
        except SlackApiError as exc:
            log.warning("share post failed (%s)", exc.response.get("error"))
            await self._respond(response_url, text=SHARE_NO_AUDIENCE, response_type="ephemeral", replace_original=False)
            return
        await self._respond(response_url, text=SHARE_DONE, response_type="ephemeral", replace_original=False)

    async def _on_feedback(
        self, ack: Callable[..., Awaitable[None]], body: dict[str, Any], action: dict[str, Any]
    ) -> None:
        await ack()
        value = str(action.get("value") or "")
        if action.get("action_id") == FEEDBACK_ACTION:
            vote, query_id = parse_feedback_value(value)
        else:
            vote, query_id = ("up" if action.get("action_id") == FEEDBACK_UP else "down"), value
        user = str((body.get("user") or {}).get("id") or "")
        recorded = await self.answerer.record_feedback(PLATFORM, user, query_id, vote)
        if recorded and body.get("response_url"):
            self.tasks.spawn(
                self._respond(
                    str(body["response_url"]),
                    text=FEEDBACK_THANKS,
                    response_type="ephemeral",
                    replace_original=False,
                ),
                name="slack-feedback-thanks",
            )
