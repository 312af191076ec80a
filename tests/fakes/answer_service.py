"""An in-memory stand-in for ``rag_core.answer`` that honours RBAC tokens for real.

It verifies every token with :func:`rag_core.access.verify_token` (forged or expired tokens
raise :class:`~rag_core.errors.AccessDenied` like the core), and answers only from fake
documents whose ACL groups intersect the asker's groups *and* every audience token's groups,
in the asker's jurisdictions. The canary tests depend only on that contract, so swapping in
the real core later changes the fixture, not the tests.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from rag_core.access import AccessClaims, verify_token
from rag_core.settings import DEFAULT_ABSTAIN_TEXTS
from rag_core.types import AbstainReason, Answer, Citation

HR_CONTACT = "https://hr.example.com/contact"
_WORD = re.compile(r"[a-z0-9]+")
_STOP = {
    "the",
    "a",
    "an",
    "is",
    "what",
    "how",
    "much",
    "my",
    "do",
    "i",
    "for",
    "of",
    "about",
    "and",
    "to",
    "in",
}


@dataclass(frozen=True)
class FakeDoc:
    doc_id: str
    title: str
    text: str
    acl_groups: tuple[str, ...]
    keywords: frozenset[str]
    jurisdiction: str = "US-ALL"
    page: int = 1

    @property
    def chunk_id(self) -> str:
        return f"{self.doc_id}-p{self.page}-c0"

    @property
    def source_uri(self) -> str:
        return f"https://benefits.example.com/docs/{self.doc_id}.pdf"


def doc(
    doc_id: str,
    text: str,
    groups: Sequence[str],
    keywords: str,
    *,
    title: str | None = None,
    jurisdiction: str = "US-ALL",
    page: int = 1,
) -> FakeDoc:
    return FakeDoc(
        doc_id,
        title or doc_id.replace("-", " ").title(),
        text,
        tuple(groups),
        frozenset(keywords.split()),
        jurisdiction,
        page,
    )


CANARIES: dict[str, str] = {
    "employees": "CANARY-EMPLOYEES-7F3A",
    "contractors": "CANARY-CONTRACTORS-19C2",
    "executives": "CANARY-EXECUTIVES-B44E",
    "hr-admins": "CANARY-HRADMINS-0D91",
}


def canary_docs() -> list[FakeDoc]:
    """One document per ACL group, each carrying its group's unique canary string."""
    return [
        doc(
            f"canary-{group}",
            f"The {group} benefits code is {code}.",
            [group],
            "canary code benefits",
            title=f"{group.title()} Benefits Guide",
            page=3,
        )
        for group, code in CANARIES.items()
    ]


def default_docs() -> list[FakeDoc]:
    return [
        *canary_docs(),
        doc(
            "dental-plan",
            "The dental deductible is $50 per year.",
            ["employees", "contractors"],
            "dental deductible teeth",
            title="Dental Plan Summary",
            page=2,
        ),
        doc(
            "vision-plan",
            "The vision plan covers one eye exam per year.",
            ["employees"],
            "vision eye exam glasses",
            title="Vision Plan Summary",
            page=4,
        ),
        doc(
            "ca-leave",
            "California employees get 8 weeks of paid family leave.",
            ["employees"],
            "leave family paid",
            jurisdiction="US-CA",
            title="California Leave Supplement",
            page=1,
        ),
    ]


@dataclass
class RecordedCall:
    question: str
    claims: AccessClaims
    audience: list[AccessClaims]
    history: list[str]


@dataclass
class FakeAnswerService:
    key: str
    docs: list[FakeDoc] = field(default_factory=default_docs)
    delay_s: float = 0.0
    fail_with: BaseException | None = None
    version: str | None = "fake-index-1"
    is_ready: bool = True
    calls: list[RecordedCall] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._release = asyncio.Event()

    def release(self) -> None:
        """End any deliberate delay early (tests assert ordering without waiting it out)."""
        self._release.set()

    async def index_version(self) -> str | None:
        return self.version

    async def ready(self) -> tuple[bool, str]:
        return (True, "fake index") if self.is_ready else (False, "fake index is not loaded")

    @staticmethod
    def _allowed(d: FakeDoc, claims: AccessClaims) -> bool:
        return bool(set(d.acl_groups) & claims.acl_groups) and d.jurisdiction in claims.jurisdictions

    def _abstain(self, reason: AbstainReason, query_id: str) -> Answer:
        return Answer(
            query_id=query_id,
            answer=DEFAULT_ABSTAIN_TEXTS[reason.value],
            abstained=True,
            abstain_reason=reason,
            hr_contact=HR_CONTACT,
            model="fake",
            index_version=self.version or "",
        )

    async def answer(
        self,
        question: str,
        token: str,
        *,
        as_of: date | None = None,
        audience_tokens: Sequence[str] = (),
        history: Sequence[str] = (),
    ) -> Answer:
        claims = verify_token(self.key, token)
        audience = [verify_token(self.key, t) for t in audience_tokens]
        self.calls.append(RecordedCall(question, claims, audience, list(history)))
        if self.delay_s:
            try:
                await asyncio.wait_for(self._release.wait(), timeout=self.delay_s)
            except TimeoutError:
                pass
        if self.fail_with is not None:
            raise self.fail_with
        query_id = uuid.uuid4().hex
        if not claims.acl_groups:
            return self._abstain(AbstainReason.NO_ACCESS, query_id)
        words = set(_WORD.findall(question.lower())) - _STOP
        if history and not (words & set().union(*(d.keywords for d in self.docs))):
            words |= set(_WORD.findall(history[-1].lower())) - _STOP  # a follow-up leans on the thread
        visible = [d for d in self.docs if self._allowed(d, claims) and all(self._allowed(d, a) for a in audience)]
        matched = [d for d in visible if words & d.keywords]
        if not matched:
            return self._abstain(AbstainReason.LOW_SIMILARITY, query_id)
        text = " ".join(f"{d.text} [^{d.chunk_id}]" for d in matched)
        citations = [
            Citation(
                chunk_id=d.chunk_id,
                document_id=d.doc_id,
                title=d.title,
                page=d.page,
                source_uri=d.source_uri,
                score=0.9,
            )
            for d in matched
        ]
        return Answer(
            query_id=query_id,
            answer=text,
            citations=citations,
            abstained=False,
            hr_contact=HR_CONTACT,
            model="fake",
            retrieved=[d.chunk_id for d in matched],
            index_version=self.version or "",
        )
