"""Block Kit rendering of answers, abstentions and notices.

Kept apart from the listeners so what users see can be tested without Slack, and so one
function decides what an abstention may show: its text and the HR contact, nothing else.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.render import Source, number_citations, plain_text
from bot.reply import Reply, ReplyKind

LOOKING_UP = "Looking this up…"
SECTION_LIMIT = 2900  # Slack caps a section's text at 3000 characters

Block = dict[str, Any]

FEEDBACK_UP = "feedback_up"
FEEDBACK_DOWN = "feedback_down"
SHARE_ACTION = "share_in_channel"


def escape(text: str) -> str:
    """Slack's three control characters; everything else is literal."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def to_mrkdwn(markdown: str) -> str:
    """The small part of Markdown the core emits, in Slack's mrkdwn dialect."""
    text = escape(markdown)
    text = re.sub(r"\[([^\]]+)\]\((https?://[^)\s]+)\)", r"<\2|\1>", text)
    text = re.sub(r"\*\*(.+?)\*\*", r"*\1*", text)
    text = re.sub(r"__(.+?)__", r"*\1*", text)
    text = re.sub(r"(?m)^#{1,6}\s+(.+)$", r"*\1*", text)
    return text


def _sections(text: str) -> list[Block]:
    chunks: list[str] = []
    current = ""
    for paragraph in text.split("\n"):
        while len(paragraph) > SECTION_LIMIT:
            chunks.append(paragraph[:SECTION_LIMIT])
            paragraph = paragraph[SECTION_LIMIT:]
        if len(current) + len(paragraph) + 1 > SECTION_LIMIT:
            chunks.append(current)
            current = paragraph
        else:
            current = f"{current}\n{paragraph}" if current else paragraph
    if current:
        chunks.append(current)
    return [{"type": "section", "text": {"type": "mrkdwn", "text": c}} for c in chunks if c.strip()]


def _source_line(source: Source) -> str:
    label = escape(f"{source.title}, p. {source.page}" if source.page else source.title)
    if source.link:
        return f"[{source.number}] <{source.link}|{label}>"
    return f"[{source.number}] {label}"


def hr_line(hr_contact: str) -> str:
    return f"Questions about your situation? <{hr_contact}|Contact HR>"


def _context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}


def feedback_block(query_id: str) -> Block:
    return {
        "type": "actions",
        "block_id": "feedback",
        "elements": [
            {
                "type": "button",
                "action_id": FEEDBACK_UP,
                "text": {"type": "plain_text", "text": "👍"},
                "value": query_id,
            },
            {
                "type": "button",
                "action_id": FEEDBACK_DOWN,
                "text": {"type": "plain_text", "text": "👎"},
                "value": query_id,
            },
        ],
    }


BUTTON_VALUE_LIMIT = 2000  # Block Kit's limit on a button's value, counted after JSON encoding


def share_value(question: str) -> str | None:
    """The share button's value, or None when the whole question does not fit: sharing a cut
    question would post the answer to a different question."""
    value = json.dumps({"q": question}, ensure_ascii=False)
    return value if len(value) <= BUTTON_VALUE_LIMIT else None


def share_button(question: str) -> Block | None:
    value = share_value(question)
    if value is None:
        return None
    return {
        "type": "actions",
        "block_id": "share",
        "elements": [
            {
                "type": "button",
                "action_id": SHARE_ACTION,
                "text": {"type": "plain_text", "text": "Share in channel"},
                "value": value,
            }
        ],
    }


def answer_blocks(reply: Reply, *, note: str | None = None, share_question: str | None = None) -> list[Block]:
    """An answer with numbered sources, notices, HR contact and feedback buttons."""
    assert reply.answer is not None
    text, sources = number_citations(reply.answer)
    blocks = _sections(to_mrkdwn(text))
    if sources:
        lines = "\n".join(_source_line(s) for s in sources)
        blocks.extend(_sections(f"*Sources*\n{lines}"))
    for notice in reply.answer.notices:
        blocks.append(_context(f":warning: {escape(notice)}"))
    if note:
        blocks.append(_context(escape(note)))
    blocks.append(_context(hr_line(reply.hr_contact)))
    blocks.append(feedback_block(reply.query_id))
    share = share_button(share_question) if share_question else None
    if share is not None:
        blocks.append(share)
    return blocks


def abstention_blocks(text: str, hr_contact: str, *, note: str | None = None) -> list[Block]:
    """An abstention shows its text and the HR contact, nothing else (no sources, no hints)."""
    blocks = _sections(escape(text))
    if note:
        blocks.append(_context(escape(note)))
    blocks.append(_context(hr_line(hr_contact)))
    return blocks


def render(
    reply: Reply, *, note: str | None = None, share_question: str | None = None
) -> tuple[str, list[Block]]:
    """(fallback text, blocks) for any reply."""
    if reply.kind == ReplyKind.ANSWER and reply.shows_sources:
        assert reply.answer is not None
        return plain_text(reply.answer.answer), answer_blocks(reply, note=note, share_question=share_question)
    if reply.kind == ReplyKind.NOTICE or reply.kind == ReplyKind.RATE_LIMITED:
        blocks = _sections(escape(reply.text))
        if note:
            blocks.append(_context(escape(note)))
        return plain_text(reply.text), blocks
    return plain_text(reply.text), abstention_blocks(reply.text, reply.hr_contact, note=note)
