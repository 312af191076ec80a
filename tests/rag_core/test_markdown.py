"""Markdown as the text a reader sees: what answers quote and titles show."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core.markdown import first_heading, heading_of, plain_inline

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("typed", "seen"),
    [
        ("Tuition reimbursement is up to **$6,000** a year.", "Tuition reimbursement is up to $6,000 a year."),
        ("- **Annual amount:** 80 hours", "- Annual amount: 80 hours"),
        ("Use the __HR Portal__ or *email* HR.", "Use the HR Portal or email HR."),
        (
            "See [the HR Portal](https://hr.fabrikam.example/portal).",
            "See the HR Portal (https://hr.fabrikam.example/portal).",
        ),
        ("Go to [https://hr.fabrikam.example](https://hr.fabrikam.example).", "Go to https://hr.fabrikam.example."),
        ("Write to <mailto:hr@fabrikam.example>.", "Write to mailto:hr@fabrikam.example."),
        ("Rates ![rate sheet](https://evil.example.net/x.png) apply.", "Rates apply."),
        ("> Quoted **policy** text", "Quoted policy text"),
        ("Use code `HSA-2026` and ~~old~~ new rules.", "Use code HSA-2026 and old new rules."),
        ("A literal \\*asterisk\\* and snake_case_name stay.", "A literal *asterisk* and snake_case_name stay."),
        ("2 * 3 * 4 is arithmetic.", "2 * 3 * 4 is arithmetic."),
    ],
)
def test_plain_inline(typed: str, seen: str) -> None:
    assert plain_inline(typed) == seen


def test_heading_of() -> None:
    assert heading_of("## **Sick** leave ##") == (2, "Sick leave")
    assert heading_of("#hashtag") is None
    assert heading_of("Not a heading") is None


def test_first_heading_skips_code_fences_and_blank_headings(tmp_path: Path) -> None:
    doc = tmp_path / "tuition.md"
    doc.write_text("Intro line\n```\n# not a heading\n```\n#\n# Tuition **Assistance** Program\n## Amounts\n")
    assert first_heading(doc) == "Tuition Assistance Program"
    (tmp_path / "none.md").write_text("no heading here\n")
    assert first_heading(tmp_path / "none.md") is None
    assert first_heading(tmp_path / "missing.md") is None
