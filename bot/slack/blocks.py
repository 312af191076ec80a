"""Block Kit rendering of answers, abstentions and notices.

Kept apart from the listeners so what users see can be tested without Slack, and so one
function decides what an abstention may show: its text, the help the reply model gives (only ever
documents the asker may see) and the HR contact, nothing else.

A reply is a *body* (the answer or abstention text) and its *closing blocks* (sources, notices, HR
contact, footer, native feedback buttons). A streamed answer sends the body as standard Markdown
(``markdown_text``) and the closing blocks with ``chat.stopStream``; a posted or updated one puts
the body in mrkdwn sections above the same closing blocks.
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

FEEDBACK_ACTION = "answer_feedback"  # the native feedback_buttons element
# Thumbs buttons of messages posted before the native feedback buttons: still handled, never sent.
FEEDBACK_UP = "feedback_up"
FEEDBACK_DOWN = "feedback_down"
SHARE_ACTION = "share_in_channel"
MARKDOWN_TEXT_LIMIT = 12_000  # chat.startStream / appendStream / stopStream markdown_text


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


def feedback_value(vote: str, query_id: str) -> str:
    return f"{vote}:{query_id}"


def parse_feedback_value(value: str) -> tuple[str, str]:
    """("up" | "down", query id) from a feedback button's value; ("", "") when malformed."""
    vote, sep, query_id = value.partition(":")
    return (vote, query_id) if sep else ("", "")


def feedback_block(query_id: str) -> Block:
    """Slack's native thumbs (a ``feedback_buttons`` element in a ``context_actions`` block)."""
    return {
        "type": "context_actions",
        "block_id": "feedback",
        "elements": [
            {
                "type": "feedback_buttons",
                "action_id": FEEDBACK_ACTION,
                "positive_button": {
                    "text": {"type": "plain_text", "text": "Helpful"},
                    "accessibility_label": "This answer was helpful",
                    "value": feedback_value("up", query_id),
                },
                "negative_button": {
                    "text": {"type": "plain_text", "text": "Not helpful"},
                    "accessibility_label": "This answer was not helpful",
                    "value": feedback_value("down", query_id),
                },
            }
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


def closing_blocks(reply: Reply, *, note: str | None = None, share_question: str | None = None) -> list[Block]:
    """What follows the body: numbered sources, notices, the note, the HR contact, the footer and
    the feedback buttons for an answer; the help, the note and the HR contact for an abstention."""
    blocks: list[Block] = []
    if reply.kind == ReplyKind.ANSWER and reply.shows_sources:
        assert reply.answer is not None
        _, sources = number_citations(reply.answer)
        if sources:
            lines = "\n".join(_source_line(s) for s in sources)
            blocks.extend(_sections(f"*Sources*\n{lines}"))
        blocks.extend(_context(f":warning: {escape(n)}") for n in reply.answer.notices)
        if note:
            blocks.append(_context(escape(note)))
        blocks.append(_context(hr_line(reply.hr_contact)))
        if reply.footer:
            blocks.append(_context(escape(reply.footer)))
        blocks.append(feedback_block(reply.query_id))
        share = share_button(share_question) if share_question else None
        if share is not None:  # None: the question does not fit a button's value
            blocks.append(share)
        return blocks
    blocks.extend(_sections("\n".join(escape(h) for h in reply.help)))
    if note:
        blocks.append(_context(escape(note)))
    if reply.kind not in (ReplyKind.NOTICE, ReplyKind.RATE_LIMITED):
        blocks.append(_context(hr_line(reply.hr_contact)))
    return blocks


def body_markdown(reply: Reply) -> str:
    """The body as standard Markdown for ``markdown_text`` (Slack renders it literally: mrkdwn
    control sequences such as ``<!channel>`` are plain text there, so nothing is escaped)."""
    if reply.kind == ReplyKind.ANSWER and reply.shows_sources:
        assert reply.answer is not None
        return number_citations(reply.answer)[0]
    return reply.text


def body_blocks(reply: Reply) -> list[Block]:
    """The body as mrkdwn sections (posted and updated messages, ``/benefits``)."""
    if reply.kind == ReplyKind.ANSWER and reply.shows_sources:
        return _sections(to_mrkdwn(body_markdown(reply)))
    return _sections(escape(reply.text))


def fallback_text(reply: Reply) -> str:
    """Marker-free text for notifications and clients that show no blocks."""
    return plain_text(reply.answer.answer if reply.shows_sources and reply.answer else reply.text)


def render(reply: Reply, *, note: str | None = None, share_question: str | None = None) -> tuple[str, list[Block]]:
    """(fallback text, blocks) for any reply posted or updated in one go."""
    return fallback_text(reply), body_blocks(reply) + closing_blocks(reply, note=note, share_question=share_question)
