"""The units a reader picks from: sentences and table rows of the context chunks, each with its
character span in the chunk (so token vectors computed for the whole chunk can score it) and the
section heading it sits under (a cross-encoder reading "Copay - specialist visit; PPO Plan: $50"
alone does not know it is about the medical plan's in-network costs).

A question the document asks itself (an FAQ entry: "Can my manager see that I used the EAP? No.
Your manager and HR are not told...") is one unit with the sentences that answer it: alone, the
question reads as a perfect match and answers nothing, and the answer's "No." is too short to be a
unit of its own."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.types import Candidate

# A sentence ends at . ! ? followed by what starts a sentence (the rule of text.split_sentences),
# so "6 a.m. to 9 p.m." or "U.S. employees" is not cut in two. Table rows are one line each.
# A list item is a unit of its own: ingestion joins a paragraph's lines, so "…childbirth. – Benefit:
# 60% of your weekly base pay… – Elimination period: 7 calendar days." would otherwise be read (and
# quoted) as one blob. An item starts at a bullet after the end of a sentence, a lead-in's colon or
# the previous item's semicolon (or "; and"); a dash between words ("Training – We provide") stays inside.
_SENTENCE_END = re.compile(
    r"(?<=[.!?])\s+(?=[A-Z0-9\"“(¿¡$])|(?:(?<=[.!?:;])|(?<=[;,] and)|(?<=[;,] or))\s+(?=[–•▪-]\s)"
)
_BULLET = re.compile(r"[–•▪-]\s+")
_TERMINAL = (".", "!", "?", ":", ";")
MIN_WORDS = 3
HEADING_MAX_WORDS = 12
# An FAQ answer rarely needs more than its first two sentences; more would dilute the reading.
FAQ_ANSWER_SENTENCES = 2


@dataclass(frozen=True)
class Span:
    """One sentence or table row of a context chunk."""

    text: str
    chunk: Candidate
    start: int  # character offsets of ``text`` in ``chunk.content``
    end: int
    heading: str  # the section heading in effect ("" when the chunk names none)
    lead: str = ""  # a list item's lead-in ("You are eligible if all of the following are true:")

    def words(self) -> str:
        """Everything the span is read with, for word matching: heading, lead-in and text."""
        return " ".join(part for part in (self.heading, self.lead, self.text) if part)

    def quoted(self) -> str:
        """The span as an answer quotes it: a list item with its lead-in, which says what it is a
        list of ("…you may set aside pre-tax money each month for commuting costs: Transit: up to
        $340 per month…")."""
        return f"{self.lead} {self.text}" if self.lead else self.text

    def in_context(self) -> str:
        """The span as a reader should see it: under its heading. (Under the document title as
        well was measured in session 4: formal rows gained, but handbook rows lost 2-4 logits and
        two near misses rose above the cutoff with quotes from a neighbouring plan's table, e.g. a
        hearing-exam question answered with the vision plan's eye-exam copay; benchmarks/README.md.)"""
        text = self.quoted()
        return f"{self.heading}: {text}" if self.heading and self.heading not in text else text


def _is_heading(line: str, is_last: bool) -> bool:
    """A short line without closing punctuation followed by more text: a section heading the
    chunker inserted where the section changed."""
    return not is_last and not line.endswith(_TERMINAL) and len(line.split()) <= HEADING_MAX_WORDS


def split_spans(chunk: Candidate) -> list[Span]:
    """Sentences and table rows of ``chunk`` in reading order, with offsets and headings. Line 0
    (``"title — heading"``, added by the chunker) is context, not a statement; headings become
    the ``heading`` of what follows them; fragments under three words are dropped."""
    content = chunk.content
    lines = [(m.start(), m.group(0)) for m in re.finditer(r"[^\n]+", content)]
    if not lines:
        return []
    first = lines[0][1]
    heading = first.split(" — ", 1)[1].strip() if " — " in first else ""
    spans: list[Span] = []
    for number, (offset, raw) in enumerate(lines[1:], start=1):
        line = raw.strip()
        if not line:
            continue
        if _is_heading(line, number == len(lines) - 1):
            heading = line
            continue
        base = offset + (len(raw) - len(raw.lstrip()))
        for at, end, lead in _with_lead_ins(line, _units(line)):
            text = line[at:end]
            if len(text.split()) >= MIN_WORDS:
                spans.append(Span(text=text, chunk=chunk, start=base + at, end=base + end, heading=heading, lead=lead))
    return spans


def _with_lead_ins(line: str, units: list[tuple[int, int, bool]]) -> list[tuple[int, int, str]]:
    """The line's units with the lead-in each is read under. A lead-in ("…if all of the following are
    true:") is not a unit: each item after it is read and quoted with it (a sentence after an item
    is not: "Fabrikam adds a $75 transit subsidy" after the pre-tax list is not one of its items).
    Items of a list without one ("…childbirth. – Benefit: 60%… – Elimination period: 7 calendar
    days.") stay with the sentence before them, which says what they describe."""
    out: list[tuple[int, int, str]] = []
    lead = ""
    for index, (at, end, item) in enumerate(units):
        if line[at:end].endswith(":") and index + 1 < len(units) and units[index + 1][2]:
            lead = line[at:end]
        elif item and not lead and out:
            out[-1] = (out[-1][0], end, "")
        else:
            out.append((at, end, lead if item else ""))
    return out


def _units(line: str) -> list[tuple[int, int, bool]]:
    """Character ranges of the line's sentences, each question joined with the (at most
    ``FAQ_ANSWER_SENTENCES``) sentences after it that are not questions themselves, and whether
    the unit is a list item (it started at a bullet)."""
    sentences: list[tuple[int, int, bool]] = []
    cursor = 0
    for part in _SENTENCE_END.split(line):
        at = line.index(part, cursor)
        cursor = at + len(part)
        stripped = part.strip()
        bullet = _BULLET.match(stripped)
        if bullet:  # the item reads (and is quoted) without its marker
            stripped = stripped[bullet.end() :]
        if stripped:
            start = at + part.index(stripped)
            sentences.append((start, start + len(stripped), bullet is not None))
    units: list[tuple[int, int, bool]] = []
    index = 0
    while index < len(sentences):
        start, end, item = sentences[index]
        index += 1
        if line[start:end].endswith("?"):
            taken = 0
            while index < len(sentences) and taken < FAQ_ANSWER_SENTENCES:
                following = line[sentences[index][0] : sentences[index][1]]
                if following.endswith("?"):
                    break
                end = sentences[index][1]
                index += 1
                taken += 1
        units.append((start, end, item))
    return units


def spans_of(context: Sequence[Candidate]) -> list[Span]:
    """Every span of the context chunks, duplicates (the chunker's 40-token overlap repeats the
    tail of the previous chunk) kept once, in the first chunk that has them."""
    seen: set[str] = set()
    out: list[Span] = []
    for chunk in context:
        for span in split_spans(chunk):
            if span.text not in seen:
                seen.add(span.text)
                out.append(span)
    return out
