"""Which sections are about the sibling of what a question names (``rag_core.reading.sections``)."""

from __future__ import annotations

import pytest

from rag_core.reading.sections import own_words, question_words, sibling_sections

pytestmark = pytest.mark.unit

TITLE = "Fabrikam Life and Disability Plan Summary 2026"
STD, LTD = "Short-Term Disability (STD)", "Long-Term Disability (LTD)"
DISABILITY = {
    "life-disability-2026": (
        TITLE,
        {
            STD: "Benefits begin on the 8th day of disability.",
            LTD: "Elimination period: 180 days (26 weeks), so LTD begins when STD ends.",
            "Supplemental Life Insurance": "You may buy additional life insurance.",
        },
    )
}


def test_siblings_end_in_the_same_word_and_each_has_words_of_its_own() -> None:
    assert own_words(STD, LTD, TITLE) == {"short-term"}
    assert own_words("Supplemental Life Insurance", "Basic Life and AD&D Insurance", TITLE) == {"supplemental"}
    assert own_words("Dependent Care FSA", "Health Care FSA") == {"dependent"}
    # not the same kind of thing: the last words differ
    assert own_words(STD, "Supplemental Life Insurance", TITLE) is None
    # one heading only adds to the other: nothing of its own to be named by
    assert own_words("Medical Transportation", "Emergency Medical Transportation") is None


def test_a_negation_is_not_a_sibling() -> None:
    # "is a massage an eligible expense?" may be answered by the list of ineligible ones
    assert own_words("Eligible expenses", "Ineligible expenses") is None
    assert own_words("What Is Covered", "What Is Not Covered") is None


def test_words_of_the_document_title_name_no_section() -> None:
    # "disability" is the title's word, so only the compounds tell the two sections apart
    assert own_words("Short-Term Disability", "Long-Term Disability", "Disability Plan") == {"short-term"}
    assert own_words("Fabrikam Sick Leave", "Fabrikam Personal Leave", "Fabrikam Handbook") == {"sick"}


def test_a_compound_is_named_however_it_is_typed_and_how_long_is_not_long_term() -> None:
    assert "short-term" in question_words("when do short term disability benefits begin?")
    assert "short-term" in question_words("when do short-term disability benefits begin?")
    assert "long-term" not in question_words("how long is the elimination period for STD?")


def test_a_question_naming_one_sibling_rules_out_the_other() -> None:
    question = "What is the elimination period before short-term disability benefits begin?"
    assert sibling_sections(question, DISABILITY) == {("life-disability-2026", LTD)}
    question = "How long is the elimination period before short-term disability (STD) benefits begin?"
    assert sibling_sections(question, DISABILITY) == {("life-disability-2026", LTD)}


def test_a_question_naming_both_or_neither_rules_out_nothing() -> None:
    assert sibling_sections("How do short-term and long-term disability work together?", DISABILITY) == set()
    assert sibling_sections("Who pays for disability insurance?", DISABILITY) == set()


def test_siblings_are_of_one_document() -> None:
    sections = {"a": ("Guide A", {"Sick Leave": "…"}), "b": ("Guide B", {"Personal Leave": "…"})}
    assert sibling_sections("how many sick leave days do I get?", sections) == set()


def test_a_word_the_sibling_uses_too_names_neither() -> None:
    sections = {
        "ca": (
            "California Parental Leave Policy",
            {
                "Coordination with California Paid Family Leave (PFL)": "You must apply for PFL with the EDD.",
                "Scheduling Your Leave": "Paid parental leave must be taken within 12 months of the birth.",
            },
        )
    }
    assert sibling_sections("how many weeks of paid bonding leave do i get?", sections) == set()
    assert sibling_sections("how does paid family leave work?", sections) == {("ca", "Scheduling Your Leave")}


def test_a_compound_typed_in_three_words_is_named() -> None:
    sections = {"nw": ("Plan", {"Out-Of-Area Care": "more than 100 miles away", "Urgent Care": "urgent care centers"})}
    assert sibling_sections("how far away for out of area care?", sections) == {("nw", "Urgent Care")}
