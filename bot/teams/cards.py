"""Adaptive Cards for Teams channels: the answer, numbered sources, HR contact, footer and
feedback buttons (channels support neither the AI label, citation entities nor the native feedback
loop; 1:1 and group chats get those, see ai_message.py).

An abstention card carries its text, the reply model's help and the HR contact only, like Slack's.
"""

from __future__ import annotations

from typing import Any

from botbuilder.schema import Activity, ActivityTypes, Attachment

from bot.render import Source, hr_markdown, number_citations, plain_text
from bot.reply import Reply, ReplyKind

CARD_CONTENT_TYPE = "application/vnd.microsoft.card.adaptive"
FEEDBACK_ACTION = "feedback"

Card = dict[str, Any]


def _text(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "TextBlock", "text": text, "wrap": True, **extra}


def _source_line(source: Source) -> str:
    label = f"{source.title}, p. {source.page}" if source.page else source.title
    label = label.replace("[", "(").replace("]", ")")
    return f"[{source.number}] [{label}]({source.link})" if source.link else f"[{source.number}] {label}"


def _card(body: list[dict[str, Any]], actions: list[dict[str, Any]] | None = None) -> Card:
    card: Card = {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": "1.4",
        "body": body,
    }
    if actions:
        card["actions"] = actions
    return card


def answer_card(reply: Reply, *, note: str | None = None) -> Card:
    assert reply.answer is not None
    text, sources = number_citations(reply.answer)
    body: list[dict[str, Any]] = [_text(text)]
    if sources:
        body.append(_text("Sources", weight="Bolder", spacing="Medium"))
        body.extend(_text(_source_line(s), spacing="None") for s in sources)
    body.extend(_text(f"⚠️ {n}", isSubtle=True) for n in reply.answer.notices)
    if note:
        body.append(_text(note, isSubtle=True, spacing="Medium"))
    body.append(_text(hr_markdown(reply.hr_contact), isSubtle=True, spacing="Medium"))
    if reply.footer:
        body.append(_text(reply.footer, isSubtle=True, size="Small", spacing="Small"))
    actions = [
        {
            "type": "Action.Submit",
            "title": "👍",
            "data": {"action": FEEDBACK_ACTION, "vote": "up", "query_id": reply.query_id},
        },
        {
            "type": "Action.Submit",
            "title": "👎",
            "data": {"action": FEEDBACK_ACTION, "vote": "down", "query_id": reply.query_id},
        },
    ]
    return _card(body, actions)


def abstention_card(
    text: str, hr_contact: str, *, note: str | None = None, help_lines: list[str] | None = None
) -> Card:
    body = [_text(text), *(_text(line) for line in help_lines or [])]
    if note:
        body.append(_text(note, isSubtle=True, spacing="Medium"))
    body.append(_text(hr_markdown(hr_contact), isSubtle=True, spacing="Medium"))
    return _card(body)


def card_for(reply: Reply, *, note: str | None = None) -> Card:
    if reply.kind == ReplyKind.ANSWER and reply.shows_sources:
        return answer_card(reply, note=note)
    if reply.kind in (ReplyKind.NOTICE, ReplyKind.RATE_LIMITED):
        body = [_text(reply.text)]
        if note:
            body.append(_text(note, isSubtle=True))
        return _card(body)
    return abstention_card(reply.text, reply.hr_contact, note=note, help_lines=reply.help)


def reply_activity(reply: Reply, *, note: str | None = None) -> Activity:
    """A message activity carrying the card; ``summary`` is the notification text (``text`` would
    be shown above the card, duplicating the answer)."""
    fallback = plain_text(reply.answer.answer if reply.shows_sources and reply.answer else reply.text)
    return Activity(
        type=ActivityTypes.message,
        summary=fallback,
        attachments=[Attachment(content_type=CARD_CONTENT_TYPE, content=card_for(reply, note=note))],
    )


def text_activity(text: str) -> Activity:
    return Activity(type=ActivityTypes.message, text=text)
