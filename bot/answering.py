"""Platform-neutral question handling: rate limit, access, audience rule, cache, core call.

Slack and Teams both hand :class:`Answerer` an asker identity and, when others can read the
reply, the audience's identities; it returns an :class:`~bot.reply.Outcome` saying what to post
publicly and what (if anything) to send the asker privately. Everything that decides which
documents an answer may use lives here, once, so both platforms enforce the same rules.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core_service import AnswerService
from bot.guards import AnswerCache, RateLimiter
from bot.identity import Identity, distinct_scopes, mint_for, scope_hash, user_ref
from bot.observability import Metrics, loggable_question
from bot.reply import (
    APOLOGY_TEXT,
    HELP_TEXT,
    PRIVATE_NOTE,
    RATE_LIMITED_TEXT,
    TOO_LARGE_NOTE,
    TOO_LONG_TEXT,
    Outcome,
    Reply,
    ReplyKind,
)
from bot.report.recorder import OutcomeRecorder
from bot.settings import BotSettings
from bot.store import Store
from rag_core.errors import AccessDenied, GenerationFailed, IndexUnavailable
from rag_core.types import AbstainReason, Answer

log = logging.getLogger(__name__)

_QUERY_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,80}$")


@dataclass(frozen=True)
class Audience:
    """Everyone else who can read a reply. ``None`` members could not be identified."""

    members: Sequence[Identity | None]
    too_large: bool = False


def _same_answer(a: Reply, b: Reply) -> bool:
    if a.abstained and b.abstained:
        return True
    if a.abstained != b.abstained or a.answer is None or b.answer is None:
        return False
    return {c.chunk_id for c in a.answer.citations} == {c.chunk_id for c in b.answer.citations} and (
        a.answer.answer == b.answer.answer
    )


class Answerer:
    def __init__(
        self,
        settings: BotSettings,
        service: AnswerService,
        store: Store,
        metrics: Metrics,
        report: OutcomeRecorder | None = None,
    ) -> None:
        self.settings = settings
        self.service = service
        self.store = store
        self.metrics = metrics
        self.report = report
        self.rate_limiter = RateLimiter(store, settings.rate_limit_per_minute)
        self.cache = AnswerCache(store, service, settings.answer_cache_ttl_s, settings.today)

    # ----- helpers ---------------------------------------------------------------------
    def user_ref(self, platform: str, user_id: str) -> str:
        return user_ref(self.settings.rbac_key, platform, user_id)

    def _reply(self, kind: ReplyKind, text: str, query_id: str) -> Reply:
        return Reply(kind=kind, text=text, hr_contact=self.settings.hr_contact_url, query_id=query_id)

    def no_access(self, query_id: str) -> Reply:
        """Indistinguishable from "not in the documents": it must not hint that restricted documents exist."""
        text = self.settings.abstain_texts.get("no_access") or self.settings.abstain_texts.get("low_similarity", "")
        return self._reply(ReplyKind.NO_ACCESS, text, query_id)

    def apology(self, query_id: str) -> Reply:
        return self._reply(ReplyKind.APOLOGY, f"{APOLOGY_TEXT} (Reference: {query_id})", query_id)

    async def history(self, thread_key: str | None) -> list[str]:
        if not thread_key:
            return []
        return await self.store.recent(f"thread:{thread_key}", self.settings.thread_memory_turns)

    async def _core(
        self,
        question: str,
        asker: Identity,
        others: Sequence[Identity],
        history: Sequence[str],
        platform: str,
    ) -> tuple[Answer, bool]:
        audience = [m for m in distinct_scopes(others) if m.scope != asker.scope]
        key = await self.cache.key(question, asker, audience, history)
        if key:
            cached = await self.cache.get(key)
            if cached is not None:
                self.metrics.cache_hits.inc()
                return cached, True
        ttl = self.settings.rbac_token_ttl_s
        token = mint_for(self.settings.rbac_key, asker, f"{platform}:{self.user_ref(platform, asker.user_id)}", ttl)
        audience_tokens = [mint_for(self.settings.rbac_key, m, f"audience:{scope_hash(m)[:12]}", ttl) for m in audience]
        answer = await asyncio.wait_for(
            self.service.answer(question, token, audience_tokens=audience_tokens, history=list(history)),
            timeout=self.settings.answer_timeout_s,
        )
        if key:
            await self.cache.put(key, answer)
        return answer, False

    def _answer_reply(self, answer: Answer, edge_id: str) -> Reply:
        text = answer.answer
        if answer.abstained and not text.strip():
            reason = str(answer.abstain_reason or "low_similarity")
            text = self.settings.abstain_texts.get(reason) or self.settings.abstain_texts.get("low_similarity", "")
        return Reply(
            kind=ReplyKind.ANSWER,
            text=text,
            hr_contact=answer.hr_contact or self.settings.hr_contact_url,
            query_id=answer.query_id or edge_id,
            answer=answer,
            footer="" if answer.abstained else self.settings.answer_footer,
        )

    def reply_for(self, answer: Answer) -> Reply:
        """The reply the platforms render for the core's ``answer`` (the playground shows exactly this)."""
        return self._answer_reply(answer, answer.query_id or uuid.uuid4().hex[:16])

    # ----- the one entry point ---------------------------------------------------------------
    async def ask(
        self,
        question: str,
        asker: Identity | None,
        *,
        platform: str,
        user_id: str,
        audience: Audience | None = None,
        thread_key: str | None = None,
    ) -> Outcome:
        """Answer ``question`` for ``asker``; with ``audience``, publicly only from what all may see."""
        edge_id = uuid.uuid4().hex[:16]
        started = time.monotonic()
        uref = self.user_ref(platform, user_id)
        question = question.strip()
        if not question:
            return Outcome(self._reply(ReplyKind.NOTICE, HELP_TEXT, edge_id))
        if len(question) > self.settings.max_question_chars:
            return Outcome(
                self._reply(ReplyKind.NOTICE, TOO_LONG_TEXT.format(limit=self.settings.max_question_chars), edge_id)
            )

        if not await self.rate_limiter.allow(platform, uref):
            self.metrics.rate_limited.labels(platform).inc()
            self.metrics.answers.labels(platform, "rate_limited").inc()
            log.info("rate limited edge_id=%s user=%s platform=%s", edge_id, uref, platform)
            text = RATE_LIMITED_TEXT.format(limit=self.settings.rate_limit_per_minute)
            return Outcome(self._reply(ReplyKind.RATE_LIMITED, text, edge_id))

        history = await self.history(thread_key)
        cached = False
        try:
            outcome, cached = await self._decide(question, asker, audience, history, platform, edge_id)
        except (IndexUnavailable, GenerationFailed, AccessDenied, TimeoutError) as exc:
            query_id = getattr(exc, "query_id", None) or edge_id
            self.metrics.errors.labels(platform, type(exc).__name__).inc()
            log.error(
                "core failed query_id=%s user=%s platform=%s error=%s: %s",
                query_id,
                uref,
                platform,
                type(exc).__name__,
                exc,
            )
            outcome = Outcome(self.apology(query_id))
        except Exception as exc:  # noqa: BLE001 - the user gets an apology, the log gets the trace
            self.metrics.errors.labels(platform, type(exc).__name__).inc()
            log.exception("unexpected failure query_id=%s user=%s platform=%s", edge_id, uref, platform)
            outcome = Outcome(self.apology(edge_id))
        if thread_key:
            await self.store.push_recent(
                f"thread:{thread_key}",
                question,
                keep=self.settings.thread_memory_turns,
                ttl_s=self.settings.thread_memory_ttl_s,
            )
        self._observe(outcome, platform, uref, question, started, cached, edge_id)
        await self._report(question, outcome)
        return outcome

    async def _report(self, question: str, outcome: Outcome) -> None:
        if self.report is None:
            return
        try:
            await self.report.record(question, outcome)
        except Exception:  # noqa: BLE001 - the report never costs anyone their answer
            log.warning("could not record the outcome for the report", exc_info=True)

    async def _decide(
        self,
        question: str,
        asker: Identity | None,
        audience: Audience | None,
        history: Sequence[str],
        platform: str,
        edge_id: str,
    ) -> tuple[Outcome, bool]:
        if asker is None or not asker.has_access:
            return Outcome(self.no_access(edge_id)), False
        if audience is None:
            answer, cached = await self._core(question, asker, (), history, platform)
            return Outcome(self._answer_reply(answer, edge_id)), cached
        if audience.too_large:
            answer, cached = await self._core(question, asker, (), history, platform)
            notice = self._reply(ReplyKind.NOTICE, TOO_LARGE_NOTE, edge_id)
            return Outcome(notice, private=self._answer_reply(answer, edge_id)), cached

        members = list(audience.members)
        known = [m for m in members if m is not None and m.has_access]
        cached = False
        if len(known) < len(members):
            # Someone who may read the reply has no access at all: nothing may be shown to everyone.
            public = self.no_access(edge_id)
        else:
            answer, cached = await self._core(question, asker, known, history, platform)
            public = self._answer_reply(answer, edge_id)
        if all(m is not None and m.sees_everything_of(asker) for m in members):
            return Outcome(public), cached
        own, _ = await self._core(question, asker, (), history, platform)
        private = self._answer_reply(own, edge_id)
        if _same_answer(public, private):
            return Outcome(public), cached
        return Outcome(public, private=private, note=PRIVATE_NOTE), cached

    def _observe(
        self,
        outcome: Outcome,
        platform: str,
        uref: str,
        question: str,
        started: float,
        cached: bool,
        edge_id: str,
    ) -> None:
        public = outcome.public
        elapsed = time.monotonic() - started
        if public.kind == ReplyKind.ANSWER and public.answer is not None:
            if public.answer.abstained:
                reason = str(public.answer.abstain_reason or "unknown")
                result = "abstained"
                self.metrics.abstentions.labels(platform, reason).inc()
            else:
                reason, result = "", "answered"
        elif public.kind == ReplyKind.NO_ACCESS:
            reason, result = AbstainReason.NO_ACCESS.value, "abstained"
            self.metrics.abstentions.labels(platform, reason).inc()
        elif public.kind == ReplyKind.APOLOGY:
            reason, result = "", "error"
        else:
            reason, result = "", public.kind.value
        self.metrics.answers.labels(platform, result).inc()
        if result in ("answered", "abstained"):
            self.metrics.latency.labels(platform).observe(elapsed)
        log.info(
            "question handled query_id=%s edge_id=%s user=%s platform=%s outcome=%s reason=%s private=%s "
            "cache=%s latency_ms=%d question=%s",
            public.query_id,
            edge_id,
            uref,
            platform,
            result,
            reason or "-",
            outcome.private is not None,
            cached,
            elapsed * 1000,
            loggable_question(question, self.settings.log_queries, self.settings.rbac_key),
        )

    async def record_feedback(self, platform: str, user_id: str, query_id: str, vote: str) -> bool:
        """Store a thumbs up/down against the core's query id; False for a malformed request."""
        if vote not in ("up", "down") or not _QUERY_ID_RE.match(query_id or ""):
            return False
        uref = self.user_ref(platform, user_id)
        previous = (await self.store.hgetall(f"feedback:{query_id}")).get(uref) if self.report else None
        await self.store.hset(f"feedback:{query_id}", uref, vote, self.settings.feedback_ttl_s)
        if self.report is not None:
            try:
                await self.report.feedback(query_id, vote, previous)
            except Exception:  # noqa: BLE001
                log.warning("could not record the vote for the report", exc_info=True)
        self.metrics.feedback.labels(platform, vote).inc()
        log.info("feedback query_id=%s user=%s platform=%s vote=%s", query_id, uref, platform, vote)
        return True
