"""The reply model: what the platforms render. Renderers (Slack blocks, Teams cards) import only
this module; it knows the core's ``Answer`` and nothing of how a question was decided.

Every sentence a user reads about an answer (not a platform's chrome) is written here once: the
footer comes from settings, and an abstention's help from the facts the core found under the
asker's access filter (``Answer.abstain_detail``), so both platforms say the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from enum import StrEnum

from rag_core.types import AbstainDetail, Answer

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


NOT_YET_EFFECTIVE_TEXT = (
    "“{title}” covers this, but it only takes effect on {day}. I can answer from it from that day; "
    "until then, HR can tell you what applies now."
)
CONFLICT_TEXT = "These documents disagree on this: {titles}. HR can tell you which one applies to you."
SELF_CONFLICT_TEXT = "“{title}” states different amounts for this. HR can tell you which one applies to you."
OTHER_JURISDICTION_TEXT = (
    "“{title}” covers employees who work in {state}, and your HR record doesn't list {state} as your "
    "work location. If you work there, ask HR to update your record; then I can answer from it."
)
REPHRASE_TEXT = (
    "The closest topic I found is “{section}” in “{title}”. If that is what you meant, try asking: "
    "“What does the {title} say about {topic}?”"
)


def long_date(day: date) -> str:
    """ "January 1, 2027": unambiguous whatever the reader's date convention."""
    return f"{day:%B} {day.day}, {day.year}"


def _titles(titles: list[str]) -> str:
    quoted = [f"“{t}”" for t in titles]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def abstention_help(detail: AbstainDetail | None) -> list[str]:
    """What an abstention may add to its text. Only ever names documents the core found under the
    asker's (and audience's) access filter; nothing for "no access", so it hints at nothing."""
    if detail is None:
        return []
    if detail.not_yet_effective is not None:
        doc = detail.not_yet_effective
        return [NOT_YET_EFFECTIVE_TEXT.format(title=doc.title, day=long_date(doc.effective_date))]
    if len(detail.conflicting) == 1:
        return [SELF_CONFLICT_TEXT.format(title=detail.conflicting[0].title)]
    if detail.conflicting:
        return [CONFLICT_TEXT.format(titles=_titles([d.title for d in detail.conflicting]))]
    if detail.other_jurisdiction is not None:
        elsewhere = detail.other_jurisdiction
        return [OTHER_JURISDICTION_TEXT.format(title=elsewhere.document.title, state=elsewhere.state)]
    if detail.near_topic is not None:
        near = detail.near_topic
        return [REPHRASE_TEXT.format(section=near.section, title=near.title, topic=near.section.lower())]
    return []


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
    footer: str = ""  # shown under an answer (settings: ANSWER_FOOTER); empty for everything else

    @property
    def abstained(self) -> bool:
        return self.answer is None or self.answer.abstained

    @property
    def help(self) -> list[str]:
        """An abstention's helpful sentences (a later document, the documents that disagree, a
        covered topic to rephrase towards); empty for answers and for the edge's own replies."""
        if self.kind != ReplyKind.ANSWER or self.answer is None or not self.answer.abstained:
            return []
        return abstention_help(self.answer.abstain_detail)

    @property
    def shows_sources(self) -> bool:
        return self.answer is not None and not self.answer.abstained


@dataclass(frozen=True)
class Outcome:
    public: Reply
    private: Reply | None = None
    note: str | None = None  # shown with the public reply when a private one was sent
