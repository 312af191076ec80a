"""Markdown as plain text: what a reader sees, not how it was typed.

Answers quote document sentences; a quoted ``**$6,000**`` or ``[HR Portal](https://…)`` must read
as "$6,000" and "HR Portal (https://…)" in every surface (a renderer that knows markdown would
otherwise bold half a sentence, one that does not would show asterisks). Images are dropped with
their alt text: a reader sees the picture, not the text behind it.
"""

from __future__ import annotations

import re
from pathlib import Path

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_EMPHASIS = (
    (re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"), r"\1"),
    (re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)"), r"\1"),
    (re.compile(r"(?<![\w*\\])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w\\])_(?=\S)(.+?)(?<=\S)_(?!\w)"), r"\1"),
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), r"\1"),
    (re.compile(r"`([^`]+)`"), r"\1"),
)
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!~|>])")
_QUOTE = re.compile(r"^(\s*>)+\s?")


def _link(match: re.Match[str]) -> str:
    label, target = match.group(1), match.group(2)
    return label if label.strip() == target else f"{label} ({target})"


def plain_inline(text: str) -> str:
    """One line of markdown as the text a reader sees."""
    text = _QUOTE.sub("", text)
    text = _IMAGE.sub("", text)
    text = _LINK.sub(_link, text)
    text = _AUTOLINK.sub(r"\1", text)
    for pattern, replacement in _EMPHASIS:
        text = pattern.sub(replacement, text)
    text = _ESCAPED.sub(r"\1", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def heading_of(line: str) -> tuple[int, str] | None:
    """(level, plain text) of an ATX heading line (``## Sick leave``), else None."""
    match = _HEADING.match(line)
    if match is None:
        return None
    return len(match.group(1)), plain_inline(match.group(2))


def first_heading(path: Path, max_bytes: int = 65536) -> str | None:
    """The document's first heading (its title as written), or None when it has none."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            head = handle.read(max_bytes)
    except OSError:
        return None
    in_fence = False
    for line in head.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        heading = None if in_fence else heading_of(line)
        if heading is not None and heading[1]:
            return heading[1]
    return None
