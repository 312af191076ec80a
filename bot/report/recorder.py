"""Counting what the bot could not answer, per day, by topic words and reason, in the bot's Store.

Keys (every one with a TTL, so nothing outlives the retention the settings promise):

- ``report:v1:day:<YYYY-MM-DD>``: a hash ``[kind, reason, [topic words]]`` -> count, where kind is
  ``answered``, ``abstained`` or ``thumbs_down``; kept ``REPORT_RETENTION_DAYS`` (+1 day).
- ``report:v1:query:<query id>``: the topic words and outcome of one answer, so a later thumbs-down
  is counted under its topic; kept as long as feedback is (at most the retention).
- ``report:v1:questions:<YYYY-MM-DD>``: only with ``REPORT_STORE_QUESTIONS=true``, the question text
  of abstentions and thumbs-down (newest 500 a day), kept ``REPORT_QUESTION_DAYS``.

Nothing that identifies the asker is written: no user id, no user hash, no channel. The question
text itself only with the explicit opt-in.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from bot.reply import Outcome, Reply, ReplyKind
from bot.report.topics import TopicVocabulary
from bot.settings import BotSettings
from bot.store import Store

log = logging.getLogger(__name__)

DAY = 86400
QUESTIONS_PER_DAY = 500
ANSWERED, ABSTAINED, THUMBS_DOWN = "answered", "abstained", "thumbs_down"

VocabularySource = Callable[[], Awaitable[TopicVocabulary]]


def day_key(day: date) -> str:
    return f"report:v1:day:{day.isoformat()}"


def query_key(query_id: str) -> str:
    return f"report:v1:query:{query_id}"


def questions_key(day: date) -> str:
    return f"report:v1:questions:{day.isoformat()}"


def counter_field(kind: str, reason: str, topic: Sequence[str]) -> str:
    return json.dumps([kind, reason, list(topic)], separators=(",", ":"))


class OutcomeRecorder(Protocol):
    """What the answerer tells the report: each question's outcome and each vote."""

    async def record(self, question: str, outcome: Outcome) -> None: ...

    async def feedback(self, query_id: str, vote: str, previous: str | None) -> None: ...


@dataclass(frozen=True)
class _Outcome:
    kind: str
    reason: str
    query_id: str


def _classify(reply: Reply) -> _Outcome | None:
    """Answers and abstentions count; notices, rate limits and apologies say nothing about topics."""
    if reply.kind == ReplyKind.NO_ACCESS:
        return _Outcome(ABSTAINED, "no_access", reply.query_id)
    if reply.kind != ReplyKind.ANSWER or reply.answer is None:
        return None
    if reply.answer.abstained:
        return _Outcome(ABSTAINED, str(reply.answer.abstain_reason or "unknown"), reply.query_id)
    return _Outcome(ANSWERED, "", reply.query_id)


class ReportRecorder:
    def __init__(
        self, store: Store, settings: BotSettings, vocabulary: VocabularySource, today: Callable[[], date] | None = None
    ) -> None:
        self.store = store
        self.settings = settings
        self.vocabulary = vocabulary
        self._today = today or (lambda: settings.today or date.today())

    @property
    def _retention_s(self) -> int:
        return (self.settings.report_retention_days + 1) * DAY

    @property
    def _question_s(self) -> int:
        return min(self.settings.report_question_days, self.settings.report_retention_days) * DAY

    async def record(self, question: str, outcome: Outcome) -> None:
        """Count the asker's outcome (their private answer when they got one) under its topic words."""
        counted = _classify(outcome.private or outcome.public)
        if counted is None:
            return
        topic = (await self.vocabulary()).topic(question)
        day = self._today()
        await self.store.hincrby(day_key(day), counter_field(counted.kind, counted.reason, topic), 1, self._retention_s)
        keep_question = self.settings.report_store_questions
        entry = {"kind": counted.kind, "reason": counted.reason, "topic": list(topic)}
        ttl = min(self.settings.feedback_ttl_s, self._retention_s)
        if keep_question:
            ttl = min(ttl, self._question_s)
        await self.store.set(
            query_key(counted.query_id), json.dumps({**entry, "question": question} if keep_question else entry), ttl
        )
        if keep_question and counted.kind == ABSTAINED:
            await self._keep_question(day, {**entry, "question": question})

    async def feedback(self, query_id: str, vote: str, previous: str | None) -> None:
        """A thumbs-down counts once per person and answer (a repeated click or a later change of
        mind does not count again), under the topic of the answer it was given on."""
        if vote != "down" or previous == "down":
            return
        raw = await self.store.get(query_key(query_id))
        if raw is None:
            return  # older than the retention, or answered before the report existed
        try:
            entry = json.loads(raw)
            topic = [str(w) for w in entry.get("topic", [])]
        except (ValueError, AttributeError):
            log.warning("unreadable report entry for query_id=%s", query_id)
            return
        day = self._today()
        await self.store.hincrby(day_key(day), counter_field(THUMBS_DOWN, "", topic), 1, self._retention_s)
        if self.settings.report_store_questions and entry.get("question"):
            await self._keep_question(
                day, {"kind": THUMBS_DOWN, "reason": "", "topic": topic, "question": str(entry["question"])}
            )

    async def _keep_question(self, day: date, entry: dict[str, object]) -> None:
        await self.store.push_recent(
            questions_key(day), json.dumps(entry), keep=QUESTIONS_PER_DAY, ttl_s=self._question_s
        )
