"""A question that names one of two look-alike documents rules the other out, and only then."""

from __future__ import annotations

import pytest

from rag_core.siblings import DocumentWords, ruled_out, siblings

pytestmark = pytest.mark.unit

STANDARD = DocumentWords("Northwind Standard Benefits Details", {"northwind": 900, "standard": 632, "health": 587})
PLUS = DocumentWords("Northwind Health Plus Benefits Details", {"northwind": 900, "plus": 864, "health": 1180})
OPTIONS = DocumentWords("Benefit Options", {"plus": 12, "standard": 14, "health": 24})
HANDBOOK = DocumentWords("Employee Handbook", {"vacation": 10})
DOCUMENTS = {"standard": STANDARD, "plus": PLUS, "options": OPTIONS, "handbook": HANDBOOK}


def test_titles_that_share_most_words_are_siblings() -> None:
    assert siblings(STANDARD.title, PLUS.title)
    assert siblings("Fabrikam Dental Plan Summary 2026", "Fabrikam Vision Plan Summary 2026")
    assert not siblings("Fabrikam Medical Plan Summary 2026", "Fabrikam Commuter, FSA and HSA Guide 2026")
    assert not siblings(STANDARD.title, HANDBOOK.title)


@pytest.mark.parametrize(
    ("question", "out"),
    [
        ("im on northwind standard, how many days of skilled nursing?", {"plus"}),
        ("my health plus plan: what does it pay for hearing aids?", {"standard"}),
        # both plans named: a comparison, nothing ruled out
        ("is the ER copay lower on standard or plus?", set()),
        # words every sibling uses name no plan
        ("how much is the northwind health insurance premium?", set()),
        ("how many vacation days do I get?", set()),
    ],
)
def test_a_named_plan_rules_out_the_sibling_that_never_uses_its_name(question: str, out: set[str]) -> None:
    assert ruled_out(question, DOCUMENTS) == out


def test_a_document_that_uses_the_named_word_stays() -> None:
    # The plan-comparison document says both "standard" and "plus": it is never ruled out.
    assert "options" not in ruled_out("what does standard cover?", DOCUMENTS)
    # A sibling that mentions the other plan by name is not ruled out by it.
    mentions = DocumentWords(STANDARD.title, {**STANDARD.vocabulary, "plus": 3})
    assert ruled_out("my health plus plan?", {"standard": mentions, "plus": PLUS}) == set()


def test_the_company_name_most_titles_share_makes_no_documents_alike() -> None:
    # A corpus without a catalog is titled by file name: "tailspin medical 2026", "tailspin time off
    # 2026"... Sharing "tailspin" made every pair siblings, so "fell off" named the time-off policy
    # and ruled out the medical guide (which never says "off"). Mutation: keep the company's word
    # in the titles and the medical guide is ruled out again.
    titles = ["medical", "time off", "perks", "retirement", "dental vision", "life disability eap"]
    documents = {
        title: DocumentWords(f"tailspin {title} 2026", {word: 5 for word in ["tailspin", *title.split()]})
        for title in titles
    }
    question = "my kid fell off the trampoline last nite, if we end up in the ER on keystone whats the copay"
    assert ruled_out(question, documents) == set()
    # Look-alike titles still are siblings once the company's word is set aside.
    plans = {
        "standard": DocumentWords("Tailspin Standard Dental Plan", {"standard": 40}),
        "premier": DocumentWords("Tailspin Premier Dental Plan", {"premier": 40}),
        "eap": DocumentWords("Tailspin Employee Assistance Program", {"counseling": 9}),
    }
    assert ruled_out("what does the premier dental plan pay for crowns?", plans) == {"standard"}
