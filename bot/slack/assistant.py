"""The DM as a Slack AI app, in both messaging experiences bolt documents.

- The agent messaging experience (the default for new apps): the DM is the app's Messages tab.
  Opening it is ``app_home_opened`` with ``tab == "messages"``; suggested prompts pin to the top of
  the tab (no ``thread_ts``); every top-level message starts its own thread; what the user is
  looking at arrives as ``app_context_changed``.
- The assistant view (installed apps that still use it): ``assistant_thread_started`` opens a
  thread that takes prompts, and ``message.im`` in that thread is the question; bolt's
  :class:`AsyncAssistant` middleware routes both.

Either way a question becomes :meth:`SlackEdge.answer_dm`, with a thread title from the question.
The viewed channel (``app_context_changed`` / ``assistant_thread_context_changed``) is deliberately
ignored: an answer depends on the asker's access, never on what is open beside the chat.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncAssistant
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.store import Store
from bot.tasks import BackgroundTasks

log = logging.getLogger(__name__)

PROMPTS_TITLE = "Ask about your benefits, for example:"
TITLE_CHARS = 60
TITLE_TTL_S = 7 * 86400


def thread_title(question: str, limit: int = TITLE_CHARS) -> str:
    text = " ".join(question.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class DmAssistant:
    """Suggested prompts when the DM opens, the thread title, and the assistant-view routing."""

    def __init__(
        self,
        client: AsyncWebClient,
        store: Store,
        tasks: BackgroundTasks,
        prompts: Sequence[str],
        on_question: Callable[[dict[str, Any], dict[str, Any]], Awaitable[None]],
    ) -> None:
        self.client = client
        self.store = store
        self.tasks = tasks  # calls run after the ack, tracked like answers (drained at shutdown)
        self.prompts = [{"title": p, "message": p} for p in prompts]
        self.on_question = on_question  # (event, context): the same handler as a DM message

    def register(self, app: AsyncApp) -> None:
        app.event("app_home_opened")(self._on_home_opened)
        app.event("app_context_changed")(self._ignore)
        assistant = AsyncAssistant(logger=logging.getLogger("bot.slack.bolt"))
        assistant.thread_started(self._on_thread_started)
        assistant.thread_context_changed(self._ignore)  # not bolt's default: it stores the context
        assistant.user_message(self._on_user_message)
        app.use(assistant)

    # -- listeners --------------------------------------------------------------------------------
    async def _on_home_opened(self, event: dict[str, Any]) -> None:
        if event.get("tab") == "messages" and event.get("channel"):  # the agent DM, not the Home tab
            self.tasks.spawn(self.suggest(str(event["channel"])), name="slack-prompts")

    async def _on_thread_started(self, payload: dict[str, Any]) -> None:
        thread = payload.get("assistant_thread") or {}
        if thread.get("channel_id") and thread.get("thread_ts"):
            self.tasks.spawn(self.suggest(str(thread["channel_id"]), str(thread["thread_ts"])), name="slack-prompts")

    async def _on_user_message(self, payload: dict[str, Any], context: dict[str, Any]) -> None:
        await self.on_question(payload, context)

    async def _ignore(self) -> None:
        return None

    # -- calls --------------------------------------------------------------------------------------
    async def suggest(self, channel: str, thread_ts: str | None = None) -> None:
        if not self.prompts:
            return
        try:
            await self.client.assistant_threads_setSuggestedPrompts(
                channel_id=channel, thread_ts=thread_ts, title=PROMPTS_TITLE, prompts=self.prompts
            )
        except SlackApiError as exc:
            log.info("assistant.threads.setSuggestedPrompts failed (%s)", exc.response.get("error"))

    async def title(self, channel: str, thread_ts: str, question: str) -> None:
        """Name a DM thread after its first question (once per thread)."""
        if not question.strip() or not await self.store.claim(f"slack:title:{channel}:{thread_ts}", TITLE_TTL_S):
            return
        try:
            # As a JSON body: slack_sdk's assistant_threads_setTitle puts the arguments in the URL's
            # query string, where proxies and access logs would keep an employee's question.
            await self.client.api_call(
                "assistant.threads.setTitle",
                json={"channel_id": channel, "thread_ts": thread_ts, "title": thread_title(question)},
            )
        except SlackApiError as exc:
            log.info("assistant.threads.setTitle failed (%s)", exc.response.get("error"))
