"""Which look-alike documents a question rules out by naming the other one.

Benefits corpora often hold documents that differ only in the plan they describe ("Northwind
Standard Benefits Details" / "Northwind Health Plus Benefits Details"; "Fabrikam Dental Plan
Summary" / "Fabrikam Vision Plan Summary"), with near-identical sentences and different figures.
An employee who names the plan ("im on northwind standard", "my health plus plan") asks about that
document only, yet retrieval, the reader and the answer happily mix in the sibling's sentence
(measured on the Contoso sets: 36 answered questions that named one plan cited the other plan's
document as well, one of them with the other plan's figure alone; benchmarks/README.md "Reading,
session 6").

A sibling is ruled out when the question uses a word of the named document's title that the
sibling's own title lacks and that the sibling's text NEVER uses: the Standard document never says
"plus", so a question with "plus" is not about it. Words every document uses ("northwind",
"health", "benefits") rule nothing out, and a question that names both siblings rules out neither.

A word (nearly) all the titles share is the company's name, not a plan's: it makes no two documents
alike and names none. Without this, a corpus titled "tailspin medical 2026", "tailspin time off
2026", "tailspin perks 2026"... made every document a sibling of every other, and "my kid fell off
the trampoline, ER copay on keystone?" named the time-off policy ("off") and ruled out the medical
guide, which never says "off" (the Tailspin corpus, benchmarks/tailspin/).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from rag_core.text import STOPWORDS

_WORD = re.compile(r"[a-z][a-z'-]*[a-z]")
# Titles this alike are siblings: at least half of the shorter title's words are shared.
MIN_SHARED_TITLE_WORDS = 0.5
# A word this many of the titles share names the company, not a document.
MOST_TITLES = 0.75


@dataclass(frozen=True)
class DocumentWords:
    """What the rule needs of a document: its title and how often its text uses each word."""

    title: str
    vocabulary: Mapping[str, int]


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


def siblings(a: str, b: str) -> bool:
    """Titles that share at least half of the shorter one's words."""
    return _alike(_words(a), _words(b))


def _alike(a: set[str], b: set[str]) -> bool:
    shorter = min(len(a), len(b))
    return shorter > 0 and len(a & b) / shorter >= MIN_SHARED_TITLE_WORDS


def company_words(titles: Collection[set[str]]) -> set[str]:
    """Words in at least three quarters of three or more titles (the company's name; a plan's
    word, shared by a few look-alikes, stays)."""
    if len(titles) < 3:
        return set()
    counts = Counter(word for title in titles for word in title)
    return {word for word, count in counts.items() if count >= MOST_TITLES * len(titles)}


def ruled_out(question: str, documents: Mapping[str, DocumentWords]) -> set[str]:
    """Ids of the documents the question rules out by naming a sibling of theirs (see module doc)."""
    asked = _words(question)
    titles = {d: _words(doc.title) for d, doc in documents.items()}
    company = company_words(list(titles.values()))
    titles = {d: title - company for d, title in titles.items()}

    def excluding(named: str, other: str) -> set[str]:
        """The asked words of ``named``'s title that ``other``'s title lacks and its text never uses."""
        if named == other or not _alike(titles[named], titles[other]):
            return set()
        return {w for w in titles[named] & asked if w not in titles[other] and not documents[other].vocabulary.get(w)}

    named = {d for d in documents if any(excluding(d, other) for other in documents)}
    # A document the question names itself is never ruled out ("standard or plus?": both stay).
    return {other for other in documents if other not in named and any(excluding(d, other) for d in named)}
