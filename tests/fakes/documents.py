"""Small source documents built on the fly: reportlab PDFs (text, grid tables, image-only pages)
and markdown policies."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from PIL import Image as PILImage
from PIL import ImageDraw
from reportlab.lib import colors
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.platypus import Image, PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

PLAN_ROWS: list[list[str]] = [
    ["Plan", "Deductible", "Copay"],
    ["PPO", "$1,250", "$25"],
    ["HDHP", "$3,000", "$0 after deductible"],
]


def picture_of_a_table() -> io.BytesIO:
    """A PNG that looks like a table but has no text layer (like a scanned rate sheet)."""
    image = PILImage.new("RGB", (600, 400), "white")
    draw = ImageDraw.Draw(image)
    for x in range(0, 601, 150):
        draw.line([(x, 0), (x, 400)], fill="black", width=3)
    for y in range(0, 401, 80):
        draw.line([(0, y), (600, y)], fill="black", width=3)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    buffer.seek(0)
    return buffer


def build_pdf(
    path: Path,
    *,
    heading: str = "Medical Plan Summary",
    paragraphs: Sequence[str] = ("This summary describes the medical plans available to employees in 2026.",),
    table: Sequence[Sequence[str]] | None = PLAN_ROWS,
    image_page: bool = False,
    more_pages: Sequence[Sequence[str]] = (),
) -> Path:
    """Page 1: heading, paragraphs, optional grid table. Then one page per ``more_pages`` entry
    (its paragraphs), then optionally an image-only page."""
    styles = getSampleStyleSheet()
    story: list[object] = [Paragraph(heading, styles["Heading1"]), Spacer(1, 0.2 * inch)]
    story += [Paragraph(text, styles["BodyText"]) for text in paragraphs]
    if table:
        grid = Table([list(row) for row in table])
        grid.setStyle(
            TableStyle([("GRID", (0, 0), (-1, -1), 0.75, colors.black), ("FONTNAME", (0, 0), (-1, 0), "Helvetica")])
        )
        story += [Spacer(1, 0.2 * inch), grid]
    for page in more_pages:
        story.append(PageBreak())
        story += [Paragraph(text, styles["BodyText"]) for text in page]
    if image_page:
        story += [PageBreak(), Image(picture_of_a_table(), width=6 * inch, height=4 * inch)]
    path.parent.mkdir(parents=True, exist_ok=True)
    SimpleDocTemplate(str(path), pagesize=LETTER, title=heading).build(story)
    return path


def sentences(topic: str, count: int) -> str:
    """Distinct, readable filler sentences (each one different, so chunks differ)."""
    return " ".join(
        f"Rule {i} of the {topic} policy says that claim type {i} is reviewed within {i + 3} business days."
        for i in range(count)
    )


def write_markdown(path: Path, title: str, sections: dict[str, str]) -> Path:
    lines = [f"# {title}", ""]
    for heading, body in sections.items():
        lines += [f"## {heading}", "", body, ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
