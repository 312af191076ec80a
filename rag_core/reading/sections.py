"""Sections about the sibling of what was asked.

A plan summary gives look-alike things sections of their own: "Short-Term Disability (STD)" and
"Long-Term Disability (LTD)", "Basic Life and AD&D Insurance" and "Supplemental Life Insurance",
"Health Care FSA" and "Dependent Care FSA", "Maternity Care" and "Newborn Care". Their sentences
read alike to the cross-encoder: "What is the elimination period before short-term disability
benefits begin?" read the LTD section's "…Elimination period: 180 days (26 weeks), so LTD begins
when STD ends." at 5.44, above the STD section's "Benefits begin on the 8th day of disability."
(4.94), and the bot answered 180 days.

Two headings of one document are siblings when they end in the same word (the kind of thing both
are: "disability", "leave", "FSA", "care") and each has words of its own that the other lacks
("short-term" against "long-term"; a parenthesis is an aside, the document title's words name no
section). A question that uses an own word of one sibling and none of the other's asks about the
first: the other's sentences do not answer it, however well they read. Hyphenated words are one
word, typed with or without the hyphens ("short term", "out of area"), so "how long" does not name
"long-term". An own word that the other sibling's sentences use as well tells nothing apart ("paid"
in "Coordination with California Paid Family Leave", against "Paid parental leave must be taken…"
under "Scheduling Your Leave"). Pairs that differ by a negation ("Eligible expenses" /
"Ineligible expenses") are not siblings: "is X eligible?" may be answered by the list of ineligible
ones.

The document-level counterpart is ``rag_core.siblings`` (look-alike documents, told apart by their
titles, before the context is cut); this module works on the sections of the sentences read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rag_core.text import stem, terms

# "Eligible" / "Ineligible expenses". ("What Is Covered" / "What Is Not Covered" have no own words at
# all: "not" is a stopword.)
_NEGATING_PREFIXES = ("in", "un", "non-", "non", "dis")
_RAW_WORD = re.compile(r"[a-z0-9][a-z0-9'’-]*")
_PARENTHESES = re.compile(r"\([^)]*\)")


def words_of(text: str) -> list[str]:
    """The words of ``text`` that can name a thing (``rag_core.text.terms``: stemmed, no stopwords,
    hyphenated compounds kept whole), without numbers and one- or two-letter words. Unlike the
    topic words, "newborn" or "family" count: "Newborn Care" is a section of its own."""
    return [t for t in terms(text) if len(t) > 2 and not t[0].isdigit()]


def heading_words(heading: str) -> list[str]:
    """The words of a heading in order, without a parenthesis ("(STD)", "(Enhanced only)": an aside,
    not the name)."""
    return words_of(_PARENTHESES.sub(" ", heading))


def _negation_pair(own: frozenset[str], other: frozenset[str]) -> bool:
    return any(a == p + b or b == p + a for a in own for b in other for p in _NEGATING_PREFIXES)


def own_words(heading: str, sibling: str, title: str = "") -> frozenset[str] | None:
    """The words of ``heading`` that ``sibling`` lacks, when the two are siblings (they end in the
    same word, each has words of its own, and they do not differ by a negation); otherwise None."""
    words, sibling_words = heading_words(heading), heading_words(sibling)
    if not words or not sibling_words or words[-1] != sibling_words[-1]:
        return None
    # A word of the document's title ("Fabrikam", "Guide") names no section.
    mine, theirs = frozenset(words), frozenset(sibling_words)
    in_title = frozenset(words_of(title))
    own, other = mine - theirs - in_title, theirs - mine - in_title
    if not own or not other or _negation_pair(own, other):
        return None
    return own


def _joined(text: str, longest: int = 3) -> frozenset[str]:
    """Runs of two to ``longest`` adjacent words joined by hyphens ("out of area" -> "out-of-area")."""
    raw = _RAW_WORD.findall(text.lower())
    return frozenset(stem("-".join(raw[i : i + n])) for n in range(2, longest + 1) for i in range(len(raw) - n + 1))


def question_words(question: str) -> frozenset[str]:
    """The question's words, and its runs of adjacent words joined by hyphens ("short term" ->
    "short-term"), so a compound is named however it is typed and "how long" is not "long-term"."""
    return frozenset(words_of(question)) | _joined(question)


def text_words(text: str) -> frozenset[str]:
    """Every word a section's sentences use, compounds typed either way."""
    return frozenset(words_of(text)) | _joined(text)


def sibling_sections(question: str, sections: Mapping[str, tuple[str, Mapping[str, str]]]) -> set[tuple[str, str]]:
    """The (document, heading) sections whose sentences are about the sibling of what the question
    asks. ``sections``: each document's title, and its section headings among the sentences read
    with the text read under each (a heading that is the title itself names no section). An own
    word of one heading that the sibling's sentences use as well tells nothing apart ("paid" in
    "Coordination with California Paid Family Leave" against the scheduling section's "Paid
    parental leave must be taken…"), so it does not name the section."""
    asked = question_words(question)
    out: set[tuple[str, str]] = set()
    for document, (title, texts) in sections.items():
        distinct = sorted(set(texts) - {title})
        used = {heading: text_words(texts[heading]) for heading in distinct}
        for other in distinct:
            for named in distinct:
                if named == other:
                    continue
                named_own = own_words(named, other, title)
                other_own = own_words(other, named, title)
                if named_own is None or other_own is None:
                    continue
                if (named_own - used[other]) & asked and not other_own & asked:
                    out.add((document, other))
    return out
