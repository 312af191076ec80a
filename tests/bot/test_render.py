"""Footnote numbering shared by Slack and Teams."""

from __future__ import annotations

import pytest

from bot.render import citation_link, number_citations, plain_text
from rag_core.types import Answer, Citation

pytestmark = pytest.mark.unit


def cit(chunk: str, doc: str, page: int, uri: str = "https://x.example.com/d.pdf") -> Citation:
    return Citation(chunk_id=chunk, document_id=doc, title=doc.title(), page=page, source_uri=uri, score=0.8)


def answer(text: str, citations: list[Citation]) -> Answer:
    return Answer(answer=text, citations=citations, abstained=False, hr_contact="https://hr", model="m")


def test_markers_become_numbers_in_order_of_appearance() -> None:
    a = answer("A is 1.[^c2] B is 2. [^c1] C is 3 [^c2]", [cit("c1", "dental", 2), cit("c2", "vision", 4)])
    text, sources = number_citations(a)
    assert text == "A is 1. [1] B is 2. [2] C is 3 [1]"
    assert [(s.number, s.title, s.page) for s in sources] == [(1, "Vision", 4), (2, "Dental", 2)]


def test_same_page_shares_a_number_and_repeats_collapse() -> None:
    a = answer("X.[^c1][^c2]", [cit("c1", "dental", 2), cit("c2", "dental", 2)])
    text, sources = number_citations(a)
    assert text == "X. [1]" and len(sources) == 1


def test_unknown_marker_is_dropped_and_unmarked_citation_listed() -> None:
    a = answer("X.[^ghost] Y.", [cit("c1", "dental", 2)])
    text, sources = number_citations(a)
    assert text == "X. Y." and [s.number for s in sources] == [1]


def test_links() -> None:
    assert citation_link(cit("c", "d", 3)) == "https://x.example.com/d.pdf#page=3"
    assert citation_link(cit("c", "d", 3, "https://x.example.com/d.md#section")) == "https://x.example.com/d.md#section"
    assert citation_link(cit("c", "d", 3, "corpus/d.pdf")) is None


def test_plain_text() -> None:
    assert plain_text("**Bold** claim.[^c1]") == "Bold claim."
    assert plain_text("x" * 400, limit=10).endswith("…")
