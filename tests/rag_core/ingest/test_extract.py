"""Extraction: PDF tables as readable rows, headings, image-only pages, corrupt files, markdown anchors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rag_core.errors import ExtractionError
from rag_core.ingest.extract import extract, extract_markdown, extract_pdf, slugify, table_rows_as_text
from tests.fakes.documents import build_pdf, sentences

pytestmark = pytest.mark.unit


def test_pdf_table_rows_become_statements_and_heading_is_captured(tmp_path: Path) -> None:
    extracted = extract_pdf(build_pdf(tmp_path / "medical.pdf"))
    assert extracted.pages == 1
    assert extracted.pages_without_text == []
    texts = [block.text for block in extracted.blocks]
    assert "Plan: PPO; Deductible: $1,250; Copay: $25." in texts
    assert "Plan: HDHP; Deductible: $3,000; Copay: $0 after deductible." in texts
    # Rows are whole statements, not the word soup of the grid ("Plan Deductible Copay PPO $1,250 ...").
    assert not any("Deductible Copay" in text for text in texts)
    assert texts[0] == "This summary describes the medical plans available to employees in 2026."
    # The heading is not body text; it labels every block under it.
    assert all(block.heading == "Medical Plan Summary" for block in extracted.blocks)
    assert "Medical Plan Summary" not in texts
    assert all(block.page == 1 and block.anchor is None for block in extracted.blocks)
    # Reading order: the paragraph comes before the table rows.
    assert texts.index("Plan: PPO; Deductible: $1,250; Copay: $25.") > 0


def test_image_only_page_is_reported(tmp_path: Path) -> None:
    extracted = extract(build_pdf(tmp_path / "rates.pdf", image_page=True, more_pages=[[sentences("dental", 3)]]))
    assert extracted.pages == 3
    assert extracted.pages_without_text == [3]
    assert {block.page for block in extracted.blocks} == {1, 2}
    # The heading carries over to the next page's text.
    assert all(block.heading == "Medical Plan Summary" for block in extracted.blocks if block.page == 2)


@pytest.mark.parametrize("kind", ["random", "truncated", "empty", "not-a-pdf"])
def test_corrupt_pdf_raises_extraction_error(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "broken.pdf"
    if kind == "random":
        path.write_bytes(os.urandom(4096))
    elif kind == "truncated":
        data = build_pdf(tmp_path / "good.pdf").read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif kind == "empty":
        path.write_bytes(b"")
    else:
        path.write_text("Just some text pretending to be a PDF.\n", encoding="utf-8")
    with pytest.raises(ExtractionError, match="broken.pdf"):
        extract(path)


def test_unsupported_suffix(tmp_path: Path) -> None:
    path = tmp_path / "notes.docx"
    path.write_bytes(b"PK")
    with pytest.raises(ExtractionError, match="unsupported"):
        extract(path)


MARKDOWN = """# Dental Plan 2026

Intro paragraph about the dental plan.

## Coverage & Limits

Preventive care is covered at 100%.
Basic services are covered at 80%.

| Service | In network | Out of network |
|---|:---:|---|
| Cleaning | 100% | 80% |
| Filling | 80% | 60% |

- Orthodontia has a lifetime maximum of $1,500.
- Implants are not covered.

## Coverage & Limits

A second section with the same heading.

### Waiting Periods ###

Major services have a 12-month waiting period.
"""


def test_markdown_headings_give_stable_anchors_and_sections(tmp_path: Path) -> None:
    path = tmp_path / "dental.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    extracted = extract_markdown(path)
    assert extracted.pages == 1 and extracted.pages_without_text == []
    by_text = {block.text: block for block in extracted.blocks}

    intro = by_text["Intro paragraph about the dental plan."]
    assert (intro.heading, intro.anchor) == ("Dental Plan 2026", "dental-plan-2026")

    # Note: GitHub would render "Coverage & Limits" as "coverage--limits"; slugify collapses the run.
    paragraph = by_text["Preventive care is covered at 100%. Basic services are covered at 80%."]
    assert (paragraph.heading, paragraph.anchor) == ("Coverage & Limits", "coverage-limits")
    assert by_text["Service: Cleaning; In network: 100%; Out of network: 80%."].anchor == "coverage-limits"
    assert "Service: Filling; In network: 80%; Out of network: 60%." in by_text
    assert by_text["Orthodontia has a lifetime maximum of $1,500."].anchor == "coverage-limits"
    assert "Implants are not covered." in by_text

    # A repeated heading gets a suffixed anchor (GitHub style); closing hashes are not part of the heading.
    assert by_text["A second section with the same heading."].anchor == "coverage-limits-1"
    waiting = by_text["Major services have a 12-month waiting period."]
    assert (waiting.heading, waiting.anchor) == ("Waiting Periods", "waiting-periods")
    assert all(block.page == 1 for block in extracted.blocks)

    # Stable: the same file gives the same blocks; editing one section leaves other anchors alone.
    assert extract_markdown(path) == extracted
    path.write_text(MARKDOWN.replace("Implants are not covered.", "Implants are covered at 50%."), encoding="utf-8")
    assert [b.anchor for b in extract_markdown(path).blocks] == [b.anchor for b in extracted.blocks]


def test_markdown_without_text_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "empty.md"
    path.write_text("# Only a heading\n\n", encoding="utf-8")
    assert extract(path).pages_without_text == [1]


def test_unreadable_markdown(tmp_path: Path) -> None:
    path = tmp_path / "latin1.md"
    path.write_bytes("Caf\xe9 benefits".encode("latin-1"))
    with pytest.raises(ExtractionError, match="latin1.md"):
        extract(path)


def test_slugify_and_table_rows() -> None:
    assert slugify("Parental Leave (California)") == "parental-leave-california"
    assert slugify("401(k) Match") == "401k-match"
    assert table_rows_as_text([["Plan", "Deductible"], ["PPO", "$1,250"], [None, ""]]) == [
        "Plan: PPO; Deductible: $1,250."
    ]
    assert table_rows_as_text([["Only", "a header"]]) == ["Only | a header"]
    assert table_rows_as_text([]) == []


# -- running headers and footers ----------------------------------------------------------------------------


@pytest.mark.unit
def test_running_headers_and_page_numbers_are_not_content(tmp_path: Path) -> None:
    from reportlab.lib.pagesizes import LETTER
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    def furniture(canvas: object, doc: object) -> None:
        canvas.saveState()  # type: ignore[attr-defined]
        canvas.setFont("Helvetica", 8)  # type: ignore[attr-defined]
        canvas.drawString(72, LETTER[1] - 30, "Fabrikam Vision Plan 2026 | Confidential")  # type: ignore[attr-defined]
        canvas.drawString(72, 24, f"Page {doc.page}")  # type: ignore[attr-defined]
        canvas.restoreState()  # type: ignore[attr-defined]

    styles = getSampleStyleSheet()
    story: list[object] = []
    for number in range(3):
        story += [
            Paragraph(f"Section {number}", styles["Heading2"]),
            Paragraph(f"Frames are covered up to ${150 + number * 10} every 24 months.", styles["BodyText"]),
            PageBreak(),
        ]
    path = tmp_path / "vision.pdf"
    SimpleDocTemplate(str(path), pagesize=LETTER).build(story, onFirstPage=furniture, onLaterPages=furniture)

    extracted = extract(path)
    text = " ".join(block.text for block in extracted.blocks)
    assert "Confidential" not in text and "Page 2" not in text
    assert "Frames are covered up to $160 every 24 months." in text  # the content itself stays
