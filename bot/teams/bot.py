"""Teams edge: ``POST /api/messages`` on a botbuilder CloudAdapter.

The HTTP handler validates the request shape itself (415/400 instead of botbuilder's 500 on a
missing Content-Type), authenticates the Bot Framework JWT (any failure is a 401), then runs
the turn. The turn only deduplicates, sends a typing indicator and schedules the answer; the
answer is sent from a proactive continuation (the Bot Framework wants a response within 15 s),
as a threaded reply to the question at the activity's serviceUrl, with the typing indicator kept
on until it is sent.

In 1:1 and group chats the reply is an AI message (label, citations, native feedback loop: see
ai_message.py) and the vote arrives as a ``message/submitAction`` invoke naming the message; in
channels, which support none of that, it is the Adaptive Card with numbered sources (cards.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from aiohttp import web
from botbuilder.core import ActivityHandler, CloudAdapterBase, InvokeResponse, TurnContext
from botbuilder.integration.aiohttp import CloudAdapter
from botbuilder.schema import (
    Activity,
    ActivityTypes,
    ChannelAccount,
    ConversationAccount,
    ConversationParameters,
    ConversationReference,
)
from botframework.connector.aio import ConnectorClient
from botframework.connector.auth import ServiceClientCredentialsFactory

from bot.answering import Answerer, Audience
from bot.errors import IdentityLookupError
from bot.identity import Identity
from bot.observability import Metrics
from bot.reply import Outcome, Reply
from bot.settings import BotSettings
from bot.store import Store
from bot.tasks import BackgroundTasks
from bot.teams.ai_message import ai_activity
from bot.teams.auth import build_authentication
from bot.teams.cards import FEEDBACK_ACTION, reply_activity, text_activity
from bot.teams.directory import TeamsIdentities

log = logging.getLogger(__name__)

PLATFORM = "teams"
FEEDBACK_THANKS = "Thanks for the feedback!"
FEEDBACK_INVOKE = "message/submitAction"
AI_CONVERSATIONS = frozenset({"personal", "groupChat"})  # where Teams shows labels, citations, feedback
_VOTES = {"like": "up", "dislike": "down"}


def conversation_type_of(activity: Activity) -> str:
    return getattr(activity.conversation, "conversation_type", None) or "personal"


def feedback_key(conversation_id: str, activity_id: str) -> str:
    """Which answer a message is: the invoke names the message, the vote is stored by query id."""
    return f"teams:answer:{conversation_id}:{activity_id}"


@contextlib.asynccontextmanager
async def typing_while(send: Callable[[], Awaitable[Any]], interval_s: float) -> AsyncIterator[None]:
    """Re-send the typing indicator every ``interval_s`` (Teams drops it after a few seconds) until
    the block ends; a failed send just stops it."""

    async def keep_typing() -> None:
        while True:
            await asyncio.sleep(interval_s)
            try:
                await send()
            except Exception as exc:  # noqa: BLE001 - cosmetic: never fail an answer over it
                log.info("typing indicator failed: %s", type(exc).__name__)
                return

    task = asyncio.get_running_loop().create_task(keep_typing(), name="teams-typing")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def _tenant_of(activity: Activity) -> str | None:
    tenant = getattr(activity.conversation, "tenant_id", None)
    if tenant:
        return str(tenant)
    data = activity.channel_data if isinstance(activity.channel_data, dict) else {}
    return (data.get("tenant") or {}).get("id")


class _Handler(ActivityHandler):  # type: ignore[misc]
    def __init__(self, edge: TeamsEdge) -> None:
        self._edge = edge

    async def on_message_activity(self, turn_context: TurnContext) -> None:
        await self._edge.on_message(turn_context)

    async def on_invoke_activity(self, turn_context: TurnContext) -> InvokeResponse | None:
        if turn_context.activity.name == FEEDBACK_INVOKE:
            await self._edge.on_feedback_invoke(turn_context)
            return InvokeResponse(status=200, body={})  # Teams answers 400 to a non-empty body
        return await super().on_invoke_activity(turn_context)


class TeamsEdge:
    typing_interval_s = 3.0

    def __init__(
        self,
        settings: BotSettings,
        answerer: Answerer,
        directory: TeamsIdentities,
        store: Store,
        metrics: Metrics,
        tasks: BackgroundTasks,
        credentials_factory: ServiceClientCredentialsFactory | None = None,
    ) -> None:
        self.settings = settings
        self.answerer = answerer
        self.directory = directory
        self.store = store
        self.metrics = metrics
        self.tasks = tasks
        self.auth = build_authentication(settings, credentials_factory)
        self.adapter = CloudAdapter(self.auth)
        self.adapter.on_turn_error = self._on_turn_error
        self.handler = _Handler(self)

    # ----- HTTP -----------------------------------------------------------------------------
    async def handle_http(self, request: web.Request) -> web.Response:
        if "application/json" not in request.headers.get("Content-Type", ""):
            return web.json_response({"error": "Content-Type must be application/json"}, status=415)
        try:
            body = await request.json()
        except ValueError:
            return web.json_response({"error": "body is not valid JSON"}, status=400)
        if not isinstance(body, dict):
            return web.json_response({"error": "body must be an Activity object"}, status=400)
        try:
            activity = Activity().deserialize(body)
        except Exception:  # noqa: BLE001 - msrest raises assorted errors on malformed input
            return web.json_response({"error": "body is not a valid Activity"}, status=400)
        if not activity.type:
            return web.json_response({"error": "Activity.type is required"}, status=400)
        self.metrics.requests.labels(PLATFORM, str(activity.type)).inc()

        auth_header = request.headers.get("Authorization")
        try:
            auth_result = await self.auth.authenticate_request(activity, auth_header)
        except Exception as exc:  # noqa: BLE001 - PermissionError, jwt errors, unknown keys: all 401
            log.info("rejected Bot Framework request: %s", type(exc).__name__)
            return web.json_response({"error": "unauthorized"}, status=401)

        try:
            invoke = await self.adapter.process_activity(auth_result, activity, self.handler.on_turn)
        except Exception:  # noqa: BLE001
            self.metrics.errors.labels(PLATFORM, "turn_failed").inc()
            log.exception("Teams turn failed")
            return web.json_response({"error": "internal error"}, status=500)
        if invoke is not None:
            return web.json_response(invoke.body, status=invoke.status)
        return web.Response(status=200)

    async def _on_turn_error(self, turn_context: TurnContext, error: Exception) -> None:
        self.metrics.errors.labels(PLATFORM, "turn_error").inc()
        log.error("Teams turn error: %s", type(error).__name__, exc_info=error)

    # ----- the turn ----------------------------------------------------------------------------
    async def on_message(self, turn_context: TurnContext) -> None:
        activity = turn_context.activity
        if activity.id and not await self.store.claim(
            f"dedupe:teams:{activity.conversation.id}:{activity.id}", self.settings.dedupe_ttl_s
        ):
            self.metrics.duplicates.labels(PLATFORM).inc()
            return
        user = activity.from_property
        if user is None or (activity.recipient is not None and user.id == activity.recipient.id):
            return
        if getattr(user, "role", None) == "bot":
            return
        if isinstance(activity.value, dict) and activity.value.get("action") == FEEDBACK_ACTION:
            await self._feedback(turn_context, activity.value)
            return
        question = (TurnContext.remove_recipient_mention(activity) or "").strip()
        await turn_context.send_activity(Activity(type=ActivityTypes.typing))
        reference = TurnContext.get_conversation_reference(activity)
        self.tasks.spawn(self._answer(reference, activity, question), name=f"teams-answer-{activity.id}")

    async def on_feedback_invoke(self, turn_context: TurnContext) -> None:
        """A thumbs on an AI message: ``value`` is {actionName: feedback, actionValue: {reaction,
        feedback}} and ``replyToId`` the message. Only the vote is kept; the free text the form
        collects is an employee's words and is not stored."""
        activity = turn_context.activity
        value: dict[str, Any] = activity.value if isinstance(activity.value, dict) else {}
        action = value.get("actionValue")
        vote = _VOTES.get(str(action.get("reaction"))) if isinstance(action, dict) else None
        if value.get("actionName") != "feedback" or vote is None or not activity.reply_to_id:
            return
        query_id = await self.store.get(feedback_key(str(activity.conversation.id), str(activity.reply_to_id)))
        user = activity.from_property
        if query_id and user is not None:
            user_key = getattr(user, "aad_object_id", None) or user.id
            await self.answerer.record_feedback(PLATFORM, user_key, query_id, vote)

    async def _feedback(self, turn_context: TurnContext, value: dict[str, Any]) -> None:
        user = turn_context.activity.from_property
        user_key = getattr(user, "aad_object_id", None) or user.id
        if await self.answerer.record_feedback(
            PLATFORM, user_key, str(value.get("query_id", "")), str(value.get("vote"))
        ):
            await turn_context.send_activity(text_activity(FEEDBACK_THANKS))

    async def _answer(self, reference: ConversationReference, activity: Activity, question: str) -> None:
        async def logic(ctx: TurnContext) -> None:
            connector: ConnectorClient = ctx.turn_state[CloudAdapterBase.BOT_CONNECTOR_CLIENT_KEY]
            await self._answer_with(connector, reference, activity, question)

        try:
            await self.adapter.continue_conversation(reference, logic, bot_app_id=self.settings.microsoft_app_id or "")
        except Exception:  # noqa: BLE001 - logged; the user never sees a trace
            self.metrics.errors.labels(PLATFORM, "reply_failed").inc()
            log.exception("Teams answer failed")

    async def _resolve(self, connector: ConnectorClient, activity: Activity) -> tuple[Identity | None, Audience | None]:
        user = activity.from_property
        allowed_tenant = self.settings.microsoft_app_tenant_id
        if allowed_tenant and _tenant_of(activity) != allowed_tenant:
            log.warning("message from a foreign tenant: answered as no access")
            return None, None
        asker = await self.directory.identity(getattr(user, "aad_object_id", None))
        conversation_type = getattr(activity.conversation, "conversation_type", None) or "personal"
        if conversation_type == "personal" or asker is None or not asker.has_access:
            return asker, None
        roster_id = str(activity.conversation.id).split(";", 1)[0]
        members = await connector.conversations.get_conversation_members(roster_id)
        bot_id = activity.recipient.id if activity.recipient else None
        object_ids = [getattr(m, "aad_object_id", None) for m in members if m.id != bot_id]
        return asker, await self.directory.audience(object_ids, asker_object_id=asker.user_id)

    async def _answer_with(
        self, connector: ConnectorClient, reference: ConversationReference, activity: Activity, question: str
    ) -> None:
        async def typing() -> None:
            indicator = TurnContext.apply_conversation_reference(Activity(type=ActivityTypes.typing), reference)
            await connector.conversations.send_to_conversation(activity.conversation.id, indicator)

        async with typing_while(typing, self.typing_interval_s):  # off before the answer is sent
            outcome = await self._decide(connector, activity, question)
        await self._send(connector, reference, activity, outcome)

    async def _decide(self, connector: ConnectorClient, activity: Activity, question: str) -> Outcome:
        user = activity.from_property
        user_key = getattr(user, "aad_object_id", None) or user.id
        conversation_type = conversation_type_of(activity)
        try:
            asker, audience = await self._resolve(connector, activity)
        except IdentityLookupError as exc:
            reply = self.answerer.apology(uuid.uuid4().hex[:16])
            self.metrics.errors.labels(PLATFORM, "identity_lookup").inc()
            log.error("identity lookup failed query_id=%s: %s", reply.query_id, exc)
            outcome = Outcome(reply)
        else:
            thread_key = f"{PLATFORM}:{activity.conversation.id}"
            if conversation_type == "personal":
                thread_key = f"{PLATFORM}:{activity.conversation.id}:{user_key}"
            outcome = await self.answerer.ask(
                question, asker, platform=PLATFORM, user_id=user_key, audience=audience, thread_key=thread_key
            )
        return outcome

    async def _send(
        self, connector: ConnectorClient, reference: ConversationReference, activity: Activity, outcome: Outcome
    ) -> None:
        conversation_type = conversation_type_of(activity)
        if outcome.private is not None:
            await self._send_private(connector, activity, outcome.private)
        if conversation_type in AI_CONVERSATIONS:
            message = ai_activity(outcome.public, note=outcome.note)
        else:
            message = reply_activity(outcome.public, note=outcome.note)
        public = TurnContext.apply_conversation_reference(message, reference)
        if activity.id:
            sent = await connector.conversations.reply_to_activity(activity.conversation.id, activity.id, public)
        else:
            sent = await connector.conversations.send_to_conversation(activity.conversation.id, public)
        if conversation_type in AI_CONVERSATIONS:
            await self._remember(str(activity.conversation.id), sent, outcome.public)

    async def _remember(self, conversation_id: str, sent: Any, reply: Reply) -> None:
        """Map the sent message to its query id, for the feedback invoke that will name it."""
        message_id = getattr(sent, "id", None)
        if message_id and reply.shows_sources:
            await self.store.set(
                feedback_key(conversation_id, str(message_id)), reply.query_id, self.settings.feedback_ttl_s
            )

    async def _send_private(self, connector: ConnectorClient, activity: Activity, reply: Reply) -> None:
        """A 1:1 chat with the asker (created if needed) for the answer only they may see."""
        tenant = _tenant_of(activity)
        params = ConversationParameters(
            is_group=False,
            bot=activity.recipient,
            members=[ChannelAccount(id=activity.from_property.id)],
            tenant_id=tenant,
            channel_data={"tenant": {"id": tenant}} if tenant else None,
        )
        created = await connector.conversations.create_conversation(params)
        message = ai_activity(reply)  # a 1:1 chat: an AI message
        message.from_property = activity.recipient
        message.recipient = ChannelAccount(id=activity.from_property.id)
        message.conversation = ConversationAccount(id=created.id, tenant_id=tenant)
        message.channel_id = activity.channel_id
        message.service_url = activity.service_url
        sent = await connector.conversations.send_to_conversation(created.id, message)
        await self._remember(str(created.id), sent, reply)
