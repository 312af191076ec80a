"""The reply model: what the platforms render. Renderers (Slack blocks, Teams cards) import only
this module; it knows the core's ``Answer`` and nothing of how a question was decided."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rag_core.types import Answer

PRIVATE_NOTE = "I've sent you a private answer that uses documents only you can see."
TOO_LARGE_NOTE = (
    "This conversation has too many members for me to check who may see which documents, "
    "so I've sent you the answer privately."
)
HELP_TEXT = 'Ask me a benefits question, for example: "How much is the dental deductible?"'
APOLOGY_TEXT = "Sorry, I can't answer right now. Please try again in a few minutes, or contact HR."
TOO_LONG_TEXT = "That question is too long for me. Please ask it in fewer than {limit} characters."
RATE_LIMITED_TEXT = (
    "You're asking questions faster than I can answer them (limit: {limit} a minute). "
    "Please wait a minute and ask again."
)


class ReplyKind(StrEnum):
    ANSWER = "answer"  # the core's Answer (which may itself be an abstention)
    NO_ACCESS = "no_access"  # the edge's own abstention: no mapped group, the core was not asked
    RATE_LIMITED = "rate_limited"
    APOLOGY = "apology"
    NOTICE = "notice"


@dataclass(frozen=True)
class Reply:
    kind: ReplyKind
    text: str
    hr_contact: str
    query_id: str
    answer: Answer | None = None

    @property
    def abstained(self) -> bool:
        return self.answer is None or self.answer.abstained

    @property
    def shows_sources(self) -> bool:
        return self.answer is not None and not self.answer.abstained


@dataclass(frozen=True)
class Outcome:
    public: Reply
    private: Reply | None = None
    note: str | None = None  # shown with the public reply when a private one was sent
