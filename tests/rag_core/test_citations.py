"""The citation validator: the last gate between generated text and an employee."""

from __future__ import annotations

import pytest

from rag_core.citations import sentences, strip_unsafe_links, validate
from rag_core.types import AbstainReason

pytestmark = pytest.mark.unit

IDS = ["medical-plan-2026_p1_c00", "medical-plan-2026_p1_c01", "dental-plan-2026_p2_c03"]
A, B, C = IDS
URIS = [
    "https://hr.fabrikam.example/policies/medical-plan-2026.pdf",
    "https://hr.fabrikam.example/policies/dental-plan-2026.pdf",
]


def ok(text: str) -> tuple[str, list[str]]:
    result = validate(text, IDS, URIS)
    assert result.rejected is None, result
    return result.text, result.cited


@pytest.mark.parametrize(
    "text",
    [
        f"The PPO deductible is $1,250.[^{A}]",  # after the period
        f"The PPO deductible is $1,250 [^{A}].",  # before the period
        f"The PPO deductible is $1,250[^{A}].",  # before the period, no space
        f"The PPO deductible is $1,250[^{A}]",  # no period at all
    ],
)
def test_citation_before_or_after_the_period_is_accepted(text: str) -> None:
    kept, cited = ok(text)
    assert kept == text
    assert cited == [A]


def test_multiple_citations_on_one_sentence_and_across_sentences() -> None:
    text = f"The deductible is $1,250.[^{A}][^{B}] Cleanings are covered twice a year.[^{C}] Copays apply.[^{A}]"
    kept, cited = ok(text)
    assert kept == text
    assert cited == [A, B, C]  # first-seen order, no duplicates


def test_unknown_citation_rejects_the_whole_answer() -> None:
    text = f"The deductible is $1,250.[^{A}] Executives get a car.[^executive-car-allowance-2026_p1_c00]"
    result = validate(text, IDS, URIS)
    assert result.rejected == AbstainReason.INVALID_CITATION
    assert result.text == "" and result.cited == []


def test_unknown_citation_rejects_even_inside_an_otherwise_uncited_sentence() -> None:
    result = validate("Nothing cited here [^made-up_p1_c00] at all", IDS, URIS)
    assert result.rejected == AbstainReason.INVALID_CITATION


def test_uncited_sentences_are_stripped() -> None:
    text = (
        f"Great question! The deductible is $1,250.[^{A}] I believe it also covers pets. "
        f"Cleanings are covered.[^{C}] Let me know if you need anything else."
    )
    result = validate(text, IDS, URIS)
    assert result.rejected is None
    assert result.text == f"The deductible is $1,250.[^{A}] Cleanings are covered.[^{C}]"
    assert result.dropped_sentences == 3
    assert result.cited == [A, C]


def test_a_bare_citation_is_not_a_sentence() -> None:
    result = validate(f"[^{A}]", IDS, URIS)
    assert result.rejected == AbstainReason.NO_SUPPORTED_CLAIMS


def test_bullets_are_sentences_too() -> None:
    text = f"- The deductible is $1,250.[^{A}]\n- You can also get pet insurance.\n* Cleanings are free.[^{C}]"
    kept, cited = ok(text)
    assert kept == f"The deductible is $1,250.[^{A}] Cleanings are free.[^{C}]"
    assert cited == [A, C]


def test_images_are_removed() -> None:
    text = (
        f"The new manager is Northwind ![pixel](https://evil.example.net/pixel.png).[^{A}] "
        f"See the card ![card](https://hr.fabrikam.example/card.png).[^{A}]"
    )
    result = validate(text, IDS, URIS)
    assert "![" not in result.text
    assert "evil.example.net" not in result.text
    assert "card.png" not in result.text  # images go even from the documents' own host
    assert result.removed_links == 2
    assert result.cited == [A]


def test_links_to_other_hosts_lose_their_url_but_keep_their_text() -> None:
    text = f"Activate your account at [the member portal](https://evil.example.net/claim).[^{A}]"
    kept, _ = ok(text)
    assert kept == f"Activate your account at the member portal.[^{A}]"


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example.net/claim",
        "https://hr.fabrikam.example@evil.example.net/claim",  # userinfo trick
        "https://hr.fabrikam.example.evil.example.net/claim",  # look-alike subdomain
        "http://evil.example.net:8080/hr.fabrikam.example",  # own host only in the path
        "javascript:alert(1)",
    ],
)
def test_tricky_link_targets_are_removed(url: str) -> None:
    kept, _ = ok(f"Claim here: [HR portal]({url}).[^{A}]")
    assert url not in kept
    assert "](" not in kept


def test_links_to_the_documents_own_host_are_kept() -> None:
    text = f"Read [the plan summary](https://hr.fabrikam.example/policies/medical-plan-2026.pdf#page=2).[^{A}]"
    kept, _ = ok(text)
    assert kept == text
    # The host match ignores case.
    kept, _ = ok(f"Read [it](https://HR.Fabrikam.Example/x).[^{A}]")
    assert "](https://HR.Fabrikam.Example/x)" in kept


@pytest.mark.parametrize(
    ("url", "survives"),
    [
        ("https://evil.example.net/claim", False),
        ("http://evil.example.net", False),
        ("www.evil.example.net/claim", False),
        ("HTTPS://EVIL.EXAMPLE.NET/x", False),
        ("https://hr.fabrikam.example/policies/medical-plan-2026.pdf", True),
    ],
)
def test_bare_urls(url: str, survives: bool) -> None:
    kept, _ = ok(f"Activate your account at {url} today.[^{A}]")
    assert (url in kept) is survives
    assert kept.endswith(f"today.[^{A}]")


def test_bare_url_in_parentheses_is_removed() -> None:
    kept, _ = ok(f"Activate your account (https://evil.example.net/claim) today.[^{A}]")
    assert "evil.example.net" not in kept


def test_bare_url_after_an_opening_parenthesis_and_a_word_is_removed() -> None:
    kept, _ = ok(f"Activate your account (see https://evil.example.net/claim) today.[^{A}]")
    assert "evil.example.net" not in kept


def test_no_allowed_hosts_when_sources_are_local_files() -> None:
    result = validate(f"See [the plan](https://hr.fabrikam.example/x).[^{A}]", IDS, ["file:///srv/corpus/medical.pdf"])
    assert result.text == f"See the plan.[^{A}]"


def test_strip_unsafe_links_counts_what_it_removed() -> None:
    text, removed = strip_unsafe_links(
        "![a](https://x.example/a.png) [b](https://x.example/b) https://x.example/c [d](https://ok.example/d)",
        {"ok.example"},
    )
    assert removed == 3
    assert "x.example" not in text
    assert "[d](https://ok.example/d)" in text


@pytest.mark.parametrize("text", ["INSUFFICIENT_CONTEXT", "  insufficient_context\n", "INSUFFICIENT_CONTEXT."])
def test_insufficient_context_abstains_no_supported_claims(text: str) -> None:
    result = validate(text, IDS, URIS)
    assert result.rejected == AbstainReason.NO_SUPPORTED_CLAIMS
    assert result.text == ""


@pytest.mark.parametrize("text", ["", "   ", "\n\n"])
def test_empty_output_abstains_no_supported_claims(text: str) -> None:
    assert validate(text, IDS, URIS).rejected == AbstainReason.NO_SUPPORTED_CLAIMS


def test_only_uncited_sentences_abstain_no_supported_claims() -> None:
    result = validate("The deductible is $1,250. Copays are $25.", IDS, URIS)
    assert result.rejected == AbstainReason.NO_SUPPORTED_CLAIMS
    assert result.dropped_sentences == 2


def test_money_decimals_do_not_split_sentences() -> None:
    assert sentences(f"The copay is $25.50 per visit.[^{A}] Next.[^{B}]") == [
        f"The copay is $25.50 per visit.[^{A}]",
        f"Next.[^{B}]",
    ]


def test_citation_after_the_period_and_a_space_is_accepted() -> None:
    text = f"The PPO deductible is $1,250. [^{A}]"
    kept, cited = ok(text)
    assert kept == text and cited == [A]


@pytest.mark.parametrize(
    "text",
    [
        f"Contractors may use the gym from 6 a.m. to 9 p.m. on weekdays.[^{A}]",
        f"Employees who are not U.S. citizens must provide a work permit.[^{A}]",
        f"Cosmetic procedures (e.g. teeth whitening) are not covered.[^{C}]",
    ],
)
def test_abbreviations_do_not_truncate_a_cited_sentence(text: str) -> None:
    kept, _ = ok(text)
    assert kept == text


@pytest.mark.unit
def test_a_bare_url_right_before_a_citation_is_removed_and_the_citation_kept() -> None:
    text = "Claims go to https://evil.example.net/x.[^medical-plan-2026_p1_c00]"
    result = validate(text, ["medical-plan-2026_p1_c00"], ["https://hr.fabrikam.example/policies/medical.pdf"])
    assert result.rejected is None
    assert "evil.example.net" not in result.text
    assert result.cited == ["medical-plan-2026_p1_c00"]
