"""The units a reader picks from: sentences and table rows of the context chunks, each with its
character span in the chunk (so token vectors computed for the whole chunk can score it) and the
section heading it sits under (a cross-encoder reading "Copay - specialist visit; PPO Plan: $50"
alone does not know it is about the medical plan's in-network costs).

A question the document asks itself (an FAQ entry: "Can my manager see that I used the EAP? No.
Your manager and HR are not told...") is one unit with the sentences that answer it: alone, the
question reads as a perfect match and answers nothing, and the answer's "No." is too short to be a
unit of its own.

A list read item by item loses what its lead-in said: "• Scuba diving lessons" does not say PerksPlus
covers it, "• Routine foot care" under "Our plan does not cover:" reads like coverage. So a sentence
ending in a colon leads the lines of its list: each item is one unit with it ("Some of the lessons
covered under PerksPlus include: • Skiing … • Scuba diving lessons …"), and the lead-in is not a unit
of its own (it answers nothing before its colon)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rag_core.text import terms
from rag_core.types import Candidate

# A sentence ends at . ! ? followed by what starts a sentence (the rule of text.split_sentences),
# so "6 a.m. to 9 p.m." or "U.S. employees" is not cut in two. Table rows are one line each.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(¿¡$])")
_TERMINAL = (".", "!", "?", ":", ";")
MIN_WORDS = 3
# What starts a list item line: a bullet, a dash, or "1." / "a)".
_LIST_ITEM = re.compile(r"^(?:[•▪●◦‣*\-–—]|\(?[0-9a-z]{1,2}[.)])\s")
# A list inside a line ("RESPONSIBILITIES: • Develop … • Review budgets QUALIFICATIONS:"): a line ending
# in a colon whose last sentence holds one is a list itself, not a lead-in, and is read as it is.
_INLINE_ITEMS = re.compile(r"[•▪●◦‣]|\s[-–—]\s?[A-Z]")
LEAD_IN_MAX_WORDS = 40
# How a list item ends when the list runs on to the next line (a markdown list loses its markers).
_RUNS_ON = re.compile(r"(?:[,;]|[,;]?\s+(?:and|or))$", re.IGNORECASE)
HEADING_MAX_WORDS = 12
# An all-caps label a section's first line may put before its heading ("COVERED SERVICES:",
# "IMPORTANT PLAN INFORMATION:", "COMPLAINTS AND APPEALS").
_CAPS_LABEL = r"[A-Z][A-Z ,&/'’()-]*[A-Z)](?:\s*[:\-–—])?\s+"
# "When choosing…", "Surgery is…": a word, then a lowercase one that no title would use ("Coverage At…",
# "Providers and How…" go on a title).
_STARTS_SENTENCE = re.compile(r"\S+\s+([a-z][\w'’-]*)")
# An FAQ answer rarely needs more than its first two sentences; more would dilute the reading.
FAQ_ANSWER_SENTENCES = 2


@dataclass(frozen=True)
class Span:
    """One sentence or table row of a context chunk."""

    text: str
    chunk: Candidate
    start: int  # character offsets of ``text`` in ``chunk.content`` (a list item said with its
    end: int  # lead-in runs from the lead-in's start, and its text skips the items between them)
    heading: str  # the section heading in effect ("" when the chunk names none)
    lead: str = ""  # the list lead-in ``text`` starts with ("" for a span that is not a list item)
    # Words of its document's title the question names (``ReadStage`` with READER_TITLE_WORDS): when
    # the span itself lacks one, it is also read under the title (``reader_texts``).
    title_words: frozenset[str] = frozenset()

    @property
    def item(self) -> str:
        """A list item's own words, without the lead-in it is read with (a span that is no item: its text)."""
        return self.text[len(self.lead) :].strip()

    def in_context(self) -> str:
        """The span as a reader should see it: under its heading. (Under the document title as
        well was measured in session 4: formal rows gained, but handbook rows lost 2-4 logits and
        two near misses rose above the cutoff with quotes from a neighbouring plan's table, e.g. a
        hearing-exam question answered with the vision plan's eye-exam copay; benchmarks/README.md.)"""
        return self._under_heading(self.text)

    def for_reader(self) -> str:
        """What the cross-encoder reads: the span under its heading, a table row written out as
        a statement about its label ("Coverage tier: Family; PPO Plan (per paycheck): $212.00" ->
        "Family (coverage tier): PPO Plan (per paycheck) is $212.00"). The model was trained on web
        prose: the answering row read 0.7-1.3 logits higher written out for 6 of 8 questions measured
        (benchmarks/README.md "Reading, session 10")."""
        return self._under_heading(row_statement(self.text) or self.text)

    def reader_texts(self, question: str) -> list[str]:
        """What the cross-encoder reads for ``question``: ``for_reader``, for a table row also each cell
        of a column the question names, as a statement of its own (``column_statements``), and, when the
        span lacks one of its ``title_words``, ``for_reader`` under the document's title; the span reads
        as well as the best of them."""
        framed = self.for_reader()
        texts = [framed, *(self._under_heading(s) for s in column_statements(self.text, question))]
        if self.title_words - set(terms(framed)):
            # "How much is the dental deductible?": the dental tier row never says "dental" (its heading
            # is "Tier Comparison") and reads 0.7; under "Fabrikam Dental Plan Summary 2026" it reads 5.2.
            texts.append(f"{self.chunk.title}: {framed}")
        return texts

    def _under_heading(self, text: str) -> str:
        return f"{self.heading}: {text}" if self.heading and self.heading not in self.text else text


# A table row as the chunker writes it: "<first column>: <label>; <column>: <value>; ...".
_ROW = re.compile(r"^(?P<column>[^:;\n]{2,60}): (?P<label>[^;\n]{1,120}); (?P<rest>[^:;\n]{2,80}: .*)$")


def row_label(text: str) -> tuple[str, str] | None:
    """(first column, label) of a table row ("Years of service", "3 to 5 years"); None for a sentence."""
    match = _ROW.match(text)
    return (match["column"], match["label"]) if match else None


def row_key(span: Span) -> tuple[str, str, str] | None:
    """(document, first column, label) of a table row span; None for a sentence."""
    label = row_label(span.text)
    return (span.chunk.document_id, *label) if label else None


def row_tables(keys: Iterable[tuple[str, str, str] | None]) -> dict[tuple[str, str], list[str]]:
    """The labels of each document's table rows among ``keys`` (``row_key``), by first column."""
    tables: dict[tuple[str, str], list[str]] = {}
    for key in keys:
        if key is not None:
            tables.setdefault(key[:2], []).append(key[2])
    return tables


def _cells(rest: str) -> list[tuple[str, str | None]]:
    """A row's further cells as (column, value); a cell the chunker wrote without its column: (text, None)."""
    cells: list[tuple[str, str | None]] = []
    for cell in rest.rstrip(".").split("; "):
        column, sep, value = cell.partition(": ")
        cells.append((column, value) if sep else (cell, None))
    return cells


def row_statement(text: str) -> str | None:
    """A table row written out label first, each further cell as "<column> is <value>"; None when
    ``text`` is not a row."""
    match = _ROW.match(text)
    if match is None:
        return None
    cells = [column if value is None else f"{column} is {value}" for column, value in _cells(match["rest"])]
    return f"{match['label']} ({match['column'].lower()}): {', '.join(cells)}."


# Words of a column header that name no one column ("PPO Plan", "Northwind Health Plus"): a question
# that says "plan" or "health" names none of them.
_GENERIC_COLUMN_WORDS = frozenset(
    terms("plan plans option options tier coverage health benefit benefits network cost costs per paycheck month year")
)


def column_statements(text: str, question: str) -> list[str]:
    """The cells of a table row whose column ``question`` names, each written as a statement of its own,
    column first: "PPO Plan deductible (individual / family) (benefit (in-network)): $1,250 / $2,500." for
    "What's the PPO deductible?". A column is named by a word of its header that no other column of the
    row has ("ppo", "hdhp", "standard"), and only a row the question names too (a word of its label) has
    its cell read so: "on the PPO, whats the copay for a chiropractor visit" names no emergency room, and
    the ER row's PPO cell alone ("$300 copay") read 2.4 for it with the benefits reader.

    Read beside the whole row, never instead of it: the other column's cell can be what makes a row read
    as the answer ("how much is the ER copay on the hdhp?" reads the whole ER row 4.9 with the benefits
    reader, its HDHP cell alone -5.6), while a row holding two plans' figures reads under the benefits
    reader's gate for a question about one of them (1.8, the PPO cell alone 2.5; benchmarks/README.md
    "Sessions 19–20"). Rows of one value column: none."""
    match = _ROW.match(text)
    if match is None:
        return []
    cells = [(column, value) for column, value in _cells(match["rest"]) if value is not None]
    if len(cells) < 2:
        return []
    asked = set(terms(question))
    label, first = match["label"], match["column"].lower()
    if not asked & set(terms(label)):
        return []  # the row is not the asked one: its cell of the named column answers nothing
    words = [set(terms(column)) - _GENERIC_COLUMN_WORDS for column, _ in cells]
    statements = []
    for index, (column, value) in enumerate(cells):
        others = set().union(*(w for i, w in enumerate(words) if i != index))
        if (words[index] - others) & asked:
            statements.append(f"{column} {label[:1].lower()}{label[1:]} ({first}): {value}.")
    return statements


def _is_heading(line: str, is_last: bool) -> bool:
    """A short line without closing punctuation followed by more text: a section heading the
    chunker inserted where the section changed. A list item ("• Gym memberships", "…headset; and")
    is not one, however short. The chunk's last line is one only when it is written as a title
    ("PerksPlus Health and Wellness Reimbursement Program for Contoso Electronics Employees", "OTHER
    INFORMATION ABOUT THIS PLAN"): the next section's heading, which states nothing; any other short
    last line may be a sentence the chunk cut."""
    if not line or line.endswith(_TERMINAL) or len(line.split()) > HEADING_MAX_WORDS:
        return False
    if _LIST_ITEM.match(line) or _RUNS_ON.search(line):
        return False
    return not is_last or _is_title(line)


_TITLE_SMALL_WORDS = frozenset({"a", "an", "and", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with"})


def _is_title(line: str) -> bool:
    """Every word capitalised but the small ones, and no figure: how documents write headings."""
    words = re.findall(r"[^\W\d_][\w'’-]*", line)
    return (
        len(words) >= 2
        and not re.search(r"\d", line)
        and all(word[0].isupper() or word.lower() in _TITLE_SMALL_WORDS for word in words)
    )


def split_spans(chunk: Candidate) -> list[Span]:
    """Sentences and table rows of ``chunk`` in reading order, with offsets and headings. Line 0
    (``"title — heading"``, added by the chunker) is context, not a statement; headings become
    the ``heading`` of what follows them; a lead-in ending in a colon goes with each line of its
    list (``_leads``: the first sentence of each of its lines); fragments under three words are dropped."""
    content = chunk.content
    lines = [(m.start(), m.group(0)) for m in re.finditer(r"[^\n]+", content)]
    if not lines:
        return []
    first = lines[0][1]
    heading = first.split(" — ", 1)[1].strip() if " — " in first else ""
    body = [(offset, raw) for offset, raw in lines[1:] if raw.strip()]
    headings = {n for n, (_, raw) in enumerate(body) if _is_heading(raw.strip(), n == len(body) - 1)}
    leads = _leads([raw.strip() for _, raw in body], headings)
    lead_in_lines = set(leads.values())
    lead_ins: dict[int, tuple[str, int]] = {}  # lead-in line -> its lead-in and where it starts
    spans: list[Span] = []
    for number, (offset, raw) in enumerate(body):
        line = raw.strip()
        if number in headings:
            heading = line
            continue
        base = offset + (len(raw) - len(raw.lstrip()))
        if number not in leads and number not in lead_in_lines and (records := _records(line)):
            for text, at, end, said_with in _record_units(line, records, heading):
                if len(text.split()) >= MIN_WORDS:
                    spans.append(
                        Span(text=text, chunk=chunk, start=base + at, end=base + end, heading=heading, lead=said_with)
                    )
            continue
        units = _units(line)
        for index, (at, end) in enumerate(units):
            if index == 0:
                at = _restated_heading(line[:end], heading)
            text, start, said_with = line[at:end], base + at, ""
            if number in lead_in_lines and index == len(units) - 1:
                lead_ins[number] = (text, start)  # said with each item of the list below it, not alone
                continue
            if number in leads and index == 0:  # the item; a sentence after it on its line is prose
                said_with, start = lead_ins[leads[number]]
                text = f"{said_with} {text}"
            if len(text.split()) >= MIN_WORDS:
                spans.append(Span(text=text, chunk=chunk, start=start, end=base + end, heading=heading, lead=said_with))
    return spans


# A list item that is a record of labelled facts ("– July offering: July 1 through December 31, 2026.
# Purchase date: December 31, 2026. Enrollment deadline: June 15, 2026."): a PDF list joined into one
# line runs each item's last fact into the next item's label ("Enrollment deadline: December 15, 2025. –
# July offering: …" read as the July deadline), and a later fact alone ("Enrollment deadline: June 15,
# 2026.") does not say whose it is. Only records: splitting every inline item off its neighbour lost the
# sentence that said what a prose item is about (benchmarks/README.md "Session 31", "Session 34").
_INLINE_ITEM_MARK = re.compile(r"(?:^|(?<=[.!?:]))\s*[–•]\s+(?=[A-Z0-9$])")
_LABELLED = re.compile(r"^[A-Z][\w'’/()-]*(?: [\w'’/()-]+){0,3}: \S")


def _sentence_ranges(text: str, offset: int = 0) -> list[tuple[int, int]]:
    """Character ranges (shifted by ``offset``) of ``text``'s sentences, as ``_SENTENCE_END`` cuts them."""
    ranges: list[tuple[int, int]] = []
    cursor = 0
    for part in _SENTENCE_END.split(text):
        at = text.index(part, cursor)
        cursor = at + len(part)
        stripped = part.strip()
        if stripped:
            start = at + part.index(stripped)
            ranges.append((offset + start, offset + start + len(stripped)))
    return ranges


def _records(line: str) -> list[list[tuple[int, int]]]:
    """The inline list items of ``line`` that are records: each as the ranges of its labelled sentences,
    from its first (which names the item) through the last labelled one after it (prose that follows the
    list on the same line is not part of it). An item is a record when its first two sentences are
    labelled facts ("Label: value")."""
    marks = list(_INLINE_ITEM_MARK.finditer(line))
    records: list[list[tuple[int, int]]] = []
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(line)
        sentences = _sentence_ranges(line[mark.end() : end], mark.end())
        labelled = [_LABELLED.match(line[a:b]) is not None for a, b in sentences]
        if len(sentences) < 2 or not (labelled[0] and labelled[1]):
            continue
        count = 2
        while count < len(sentences) and labelled[count]:
            count += 1
        records.append(sentences[:count])
    return records


def _record_units(line: str, records: Sequence[list[tuple[int, int]]], heading: str) -> list[tuple[str, int, int, str]]:
    """(text, start, end, lead) of each unit of a line holding records: the line's other text read as usual
    (``_units``), a record's first sentence alone, and each later fact of it said with that first sentence
    as its lead (so the answer quotes the whole record, ``whole_list``)."""
    out: list[tuple[str, int, int, str]] = []
    cursor = 0

    def prose(until: int) -> None:
        segment = line[cursor:until]
        units = _units(segment)
        for index, (at, end) in enumerate(units):
            if cursor == 0 and index == 0:
                at = _restated_heading(segment[:end], heading)
            text = segment[at:end].rstrip(" –•")  # the marker of the record after it
            if until < len(line) and index == len(units) - 1 and text.endswith(":"):
                continue  # the list's lead-in ("There are two offering periods each year:") answers nothing
            if text:
                out.append((text, cursor + at, cursor + at + len(text), ""))

    for record in records:
        prose(record[0][0])
        (first_at, first_end), *facts = record
        name = line[first_at:first_end]
        out.append((name, first_at, first_end, ""))
        out.extend((f"{name} {line[at:end]}", first_at, end, name) for at, end in facts)
        cursor = record[-1][1]
    prose(len(line))
    return out


def _restated_heading(sentence: str, heading: str) -> int:
    """How many characters at the start of a line's first sentence restate its section's heading:
    the PDF set the heading again in body type, and the extractor joined it to the first sentence
    ("IMPORTANT PLAN INFORMATION: Copayments (Copays) When using Northwind Health Plus, you may be
    responsible for a copayment…", "COVERED SERVICES: Acupuncture Acupuncture is an ancient form…").
    Glued on, the heading made an introduction read as the section's answer and was quoted as part
    of a sentence. Taken only where the sentence clearly starts after it: behind an all-caps label,
    after an all-caps heading, or before a word followed by a lowercase one no title uses ("In-Network
    Providers When choosing…"); "Substance Use Disorder Coverage At Contoso…", "Non-Participating
    Providers and How They Affect…" and "Welcome to Fabrikam Corp." keep their words. 0 when there is
    nothing to take, or too little would be left."""
    if not heading:
        return 0
    match = re.match(rf"(?P<label>{_CAPS_LABEL})?{re.escape(heading)}\s+(?=[A-Z])", sentence)
    if match is None:
        return 0
    rest = sentence[match.end() :]
    starts = _STARTS_SENTENCE.match(rest)
    clear = match.group("label") or heading.isupper() or (starts and starts.group(1) not in _TITLE_SMALL_WORDS)
    return match.end() if clear and len(rest.split()) >= MIN_WORDS else 0


def whole_list(span: Span) -> str:
    """A list item's whole list as the document says it: the lead-in, then every item of it in the
    chunk's order (an item's ``start`` is its lead-in's); a span that is no list item is its text."""
    if not span.lead:
        return span.text
    items = [s.item for s in split_spans(span.chunk) if s.lead and s.start == span.start]
    return " ".join([span.lead, *items])


def _ends_in_lead_in(line: str) -> bool:
    """The line's last sentence introduces a list: it ends in a colon, is short, holds no list itself."""
    units = _units(line)
    if not units or not line.endswith(":"):
        return False
    last = line[units[-1][0] : units[-1][1]]
    return len(last.split()) <= LEAD_IN_MAX_WORDS and not _INLINE_ITEMS.search(last)


def _leads(lines: Sequence[str], headings: set[int]) -> dict[int, int]:
    """Line number -> the number of the line whose last sentence leads it in: the line after one
    ending in a lead-in (``_ends_in_lead_in``), then each following line that starts with a list
    marker or follows an item that runs on ("…headset;", "…; and")."""
    led: dict[int, int] = {}
    for number, line in enumerate(lines):
        if number in headings or number + 1 >= len(lines) or number + 1 in headings or not _ends_in_lead_in(line):
            continue
        follower = number + 1
        led[follower] = number
        while follower + 1 < len(lines) and follower + 1 not in headings:
            after = lines[follower + 1]
            if not (_LIST_ITEM.match(after) or _RUNS_ON.search(lines[follower])) or after.endswith(":"):
                break
            follower += 1
            led[follower] = number
    return led


# A sentence whose subject is a bare pronoun ("It is free, confidential… at 1-888-555-0119.") says
# nothing of what it is about: "whats the EAP phone number?" cannot find it alone. A demonstrative that
# names its noun ("This coverage includes…", "These services are…") says what it is about and stays
# alone: joined, such sentences made overview paragraphs read as answers (benchmarks/README.md "Session 18").
_POINTS_BACK = re.compile(
    r"(?:It|Its|They|Their"
    r"|(?:This|These|That|Those)(?=\s+(?:is|are|was|were|includes?|means|applies|covers|can|will|may|must"
    r"|has|have|does|do)\b))\s"
)
# How many such sentences are read (and quoted) with the sentence they point back to.
BACK_REFERENCE_SENTENCES = 2


def _units(line: str) -> list[tuple[int, int]]:
    """Character ranges of the line's sentences, each question joined with the (at most
    ``FAQ_ANSWER_SENTENCES``) sentences after it that are not questions themselves, and each sentence
    with the (at most ``BACK_REFERENCE_SENTENCES``) sentences after it that open by pointing back to it."""
    sentences = _sentence_ranges(line)
    units: list[tuple[int, int]] = []
    index = 0
    while index < len(sentences):
        start, end = sentences[index]
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
        else:
            taken = 0
            while (
                index < len(sentences)
                and taken < BACK_REFERENCE_SENTENCES
                and _POINTS_BACK.match(line[sentences[index][0] : sentences[index][1]])
            ):
                end = sentences[index][1]
                index += 1
                taken += 1
        units.append((start, end))
    return units


def spans_of(context: Sequence[Candidate]) -> list[Span]:
    """Every span of the context chunks, duplicates (the chunker's 40-token overlap repeats the
    tail of the previous chunk) kept once, in the first chunk that has them, and without the cut-off
    ends of spans the context holds whole (``_tail_of_another``)."""
    seen: set[str] = set()
    out: list[Span] = []
    for chunk in context:
        for span in split_spans(chunk):
            if span.text not in seen:
                seen.add(span.text)
                out.append(span)
    return [span for span in out if not _tail_of_another(span, out)]


def _tail_of_another(span: Span, spans: Sequence[Span]) -> bool:
    """Is ``span`` the cut-off end of another span of its document? A chunk opens with the last 40 tokens
    of the one before it, which can start inside a sentence or a table row: ": $7,500 per household…;
    Minimum election: $120…" is the end of the dependent care FSA's row without its "Account: Dependent
    care FSA" label, and read without it as any account's limit. When the whole sentence or row is in the
    context too, the cut-off end says nothing it does not."""
    return any(
        other.chunk.document_id == span.chunk.document_id
        and len(other.text) > len(span.text)
        and other.text.endswith(span.text)
        for other in spans
    )
