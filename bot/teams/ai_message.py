"""Teams 1:1 and group-chat replies as AI messages.

The answer is the message text (Markdown) with ``[n]`` markers. One root ``schema.org/Message``
entity carries both the AI-generated label (``additionalType: ["AIGeneratedContent"]``) and the
citations (``Claim`` items whose ``position`` is the ``[n]`` in the text; Teams answers 400 to more
than one root message entity or more than 20 citations). ``channelData`` turns on the native
feedback loop; the vote comes back as a ``message/submitAction`` invoke naming this message's id.
Channels support none of these, so they keep the Adaptive Card (cards.py).

A citation's abstract is the answer's own sentences that cite it (validated text, links already
policed), never raw chunk text: a chunk may hold text the validator would not let through.
"""

from __future__ import annotations

import re
from typing import Any

from botbuilder.schema import Activity, ActivityTypes, Entity

from bot.render import Source, hr_markdown, number_citations, plain_text
from bot.reply import Reply, ReplyKind

MESSAGE_ENTITY_TYPE = "https://schema.org/Message"
AI_GENERATED = "AIGeneratedContent"
MAX_CITATIONS = 20
NAME_LIMIT = 80
ABSTRACT_LIMIT = 160
FEEDBACK_CHANNEL_DATA: dict[str, Any] = {"feedbackLoopEnabled": True, "feedbackLoopType": "default"}
_SENTENCE = re.compile(r"[^.!?]+[.!?]?(?:\s*\[\d+\])*")


class MessageEntity(Entity):  # type: ignore[misc]
    """The root message entity. botbuilder's ``Entity`` serialises ``type`` only, so the schema.org
    fields are declared for msrest here (the connector client serialises by this map)."""

    _attribute_map = {
        "type": {"key": "type", "type": "str"},
        "schema_type": {"key": "@type", "type": "str"},
        "context": {"key": "@context", "type": "str"},
        "id": {"key": "@id", "type": "str"},
        "additional_type": {"key": "additionalType", "type": "[str]"},
        "citation": {"key": "citation", "type": "[object]"},
    }

    def __init__(self, *, citation: list[dict[str, Any]] | None = None, **kwargs: Any) -> None:
        super().__init__(type=MESSAGE_ENTITY_TYPE, **kwargs)
        self.schema_type = "Message"
        self.context = "https://schema.org"
        self.id = ""  # the Bot Framework schema wants it present and empty
        self.additional_type = [AI_GENERATED]
        self.citation = citation or None


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def abstract_for(text: str, number: int, source: Source) -> str:
    """The answer's sentences citing ``[number]``, markers removed, at most 160 characters."""
    marker = f"[{number}]"
    cited = [s for s in (m.group(0) for m in _SENTENCE.finditer(text)) if marker in s]
    excerpt = re.sub(r"\s*\[\d+\]", "", " ".join(cited)).strip()
    fallback = f"{source.title}, page {source.page}" if source.page else source.title
    return _clip(plain_text(excerpt, limit=10_000) or fallback, ABSTRACT_LIMIT)


def citations(text: str, sources: list[Source]) -> list[dict[str, Any]]:
    claims = []
    for source in sources[:MAX_CITATIONS]:
        name = f"{source.title}, p. {source.page}" if source.page else source.title
        appearance: dict[str, Any] = {
            "@type": "DigitalDocument",
            "name": _clip(name, NAME_LIMIT),
            "abstract": abstract_for(text, source.number, source),
        }
        if source.link:
            appearance["url"] = source.link
        claims.append({"@type": "Claim", "position": source.number, "appearance": appearance})
    return claims


def ai_activity(reply: Reply, *, note: str | None = None) -> Activity:
    """The reply as a Teams AI message: label on everything the answer path produced (answers and
    abstentions alike, so "no access" and "not found" look the same), citations and the feedback
    loop on answers with sources."""
    lines: list[str] = []
    entity_citations: list[dict[str, Any]] = []
    if reply.kind == ReplyKind.ANSWER and reply.shows_sources:
        assert reply.answer is not None
        text, sources = number_citations(reply.answer)
        lines.append(text)
        lines.extend(f"⚠️ {n}" for n in reply.answer.notices)
        entity_citations = citations(text, sources)
    else:
        lines.append(reply.text)
        lines.extend(reply.help)
    if note:
        lines.append(f"_{note}_")
    if reply.kind not in (ReplyKind.NOTICE, ReplyKind.RATE_LIMITED):
        lines.append(hr_markdown(reply.hr_contact))
    if reply.footer:
        lines.append(f"_{reply.footer}_")
    labelled = reply.kind in (ReplyKind.ANSWER, ReplyKind.NO_ACCESS)
    return Activity(
        type=ActivityTypes.message,
        text="\n\n".join(lines),
        text_format="markdown",
        entities=[MessageEntity(citation=entity_citations)] if labelled else None,
        channel_data=dict(FEEDBACK_CHANNEL_DATA) if reply.shows_sources else None,
    )
