"""Per-user rate limiting and the answer cache, both kept in the shared store."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence
from datetime import date

from bot.core_service import AnswerService, IndexAware
from bot.identity import Identity, scope_hash
from bot.store import Store
from rag_core.types import AbstainReason, Answer

log = logging.getLogger(__name__)


def normalize_question(question: str) -> str:
    return " ".join(question.casefold().split()).rstrip("?!. ")


class RateLimiter:
    """A fixed one-minute window per user and platform, counted in the store (so every replica
    of the service shares it)."""

    def __init__(self, store: Store, per_minute: int) -> None:
        self.store = store
        self.per_minute = per_minute

    async def allow(self, platform: str, user_ref: str) -> bool:
        window = int(time.time() // 60)
        count = await self.store.incr_window(f"ratelimit:{platform}:{user_ref}:{window}", 60)
        return count <= self.per_minute


class AnswerCache:
    """Answers keyed by the normalised question, the asker's and audience's access scope, the
    thread history, the index version and the day: a re-ingest, a changed group or a new day
    never serves a stale answer, and nobody gets an answer cached for a wider scope."""

    def __init__(self, store: Store, service: AnswerService, ttl_s: int, today: date | None = None) -> None:
        self.store = store
        self.service = service
        self.ttl_s = ttl_s
        self.today = today

    async def key(
        self, question: str, asker: Identity, audience: Sequence[Identity], history: Sequence[str]
    ) -> str | None:
        if self.ttl_s <= 0 or not isinstance(self.service, IndexAware):
            return None
        try:
            version = await self.service.index_version()
        except Exception:  # noqa: BLE001 - no version, no cache; never fail a question for it
            log.warning("index_version() failed; answer cache skipped", exc_info=True)
            return None
        if not version:
            return None
        material = json.dumps(
            {
                "q": normalize_question(question),
                "scope": scope_hash(asker, audience),
                "index": version,
                "history": [normalize_question(h) for h in history],
                "day": (self.today or date.today()).isoformat(),
            },
            sort_keys=True,
        )
        return "answer:" + hashlib.sha256(material.encode()).hexdigest()

    async def get(self, key: str) -> Answer | None:
        cached = await self.store.get(key)
        if not cached:
            return None
        try:
            return Answer.model_validate_json(cached)
        except ValueError:
            log.warning("discarding unreadable cached answer")
            return None

    async def put(self, key: str, answer: Answer) -> None:
        if answer.abstain_reason == AbstainReason.GENERATION_ERROR:
            return  # an outage is not an answer: the next question tries again
        await self.store.set(key, answer.model_dump_json(by_alias=True), self.ttl_s)
