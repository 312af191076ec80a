"""Build the sample corpus PDFs: ``corpus/source/<name>.md`` -> ``corpus/docs/<name>.pdf``.

The source files use a small markdown subset:

* ``# Title`` (first one is the document title, repeated in every page header)
* ``## Section`` and ``### Subsection`` headings
* paragraphs (consecutive non-blank lines are joined)
* bullets (``- item``) and numbered items (``1. item``)
* pipe tables (``| a | b |`` with a ``|---|---|`` separator after the header row)
* ``**bold**`` inline; every other markdown construct (links, images) is kept as literal text,
  which is what the poisoned vendor notice needs.

Tables are drawn as real reportlab ``Table`` objects with a full grid, so ``pdfplumber``'s
``find_tables()`` / ``extract_tables()`` recover them cell by cell.

Output is deterministic: ``invariant=1`` fixes the creation date and document id, so running
the script twice produces byte-identical PDFs.

Usage::

    .venv/bin/python scripts/build_corpus.py            # build every source file
    .venv/bin/python scripts/build_corpus.py --check    # build to a temp dir and compare bytes
    .venv/bin/python scripts/build_corpus.py --source benchmarks/tailspin/source \
        --out benchmarks/tailspin/docs --org "Tailspin Toys, Inc."   # the third, unseen corpus
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from reportlab import rl_config

rl_config.invariant = 1  # must be set before documents are built

from reportlab.lib import colors  # noqa: E402
from reportlab.lib.enums import TA_LEFT  # noqa: E402
from reportlab.lib.pagesizes import LETTER  # noqa: E402
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet  # noqa: E402
from reportlab.lib.units import inch  # noqa: E402
from reportlab.pdfbase.pdfmetrics import stringWidth  # noqa: E402
from reportlab.platypus import (  # noqa: E402
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

ROOT = Path(__file__).resolve().parent.parent
SOURCE_DIR = ROOT / "corpus" / "source"
OUT_DIR = ROOT / "corpus" / "docs"

PAGE_W, PAGE_H = LETTER
MARGIN_X = 0.9 * inch
MARGIN_TOP = 0.95 * inch
MARGIN_BOTTOM = 0.85 * inch
FRAME_W = PAGE_W - 2 * MARGIN_X

ORG = "Fabrikam Corp"


# --------------------------------------------------------------------------- styles


def _styles() -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    body = ParagraphStyle(
        "Body", parent=base["Normal"], fontName="Helvetica", fontSize=10, leading=13.2, spaceAfter=6, alignment=TA_LEFT
    )
    return {
        "title": ParagraphStyle(
            "DocTitle",
            parent=body,
            fontName="Helvetica-Bold",
            fontSize=17,
            leading=21,
            spaceAfter=10,
            textColor=colors.HexColor("#1F3864"),
        ),
        "h2": ParagraphStyle(
            "H2",
            parent=body,
            fontName="Helvetica-Bold",
            fontSize=13,
            leading=16,
            spaceBefore=10,
            spaceAfter=5,
            keepWithNext=1,
            textColor=colors.HexColor("#1F3864"),
        ),
        "h3": ParagraphStyle(
            "H3",
            parent=body,
            fontName="Helvetica-Bold",
            fontSize=11,
            leading=14,
            spaceBefore=6,
            spaceAfter=3,
            keepWithNext=1,
        ),
        "body": body,
        "bullet": ParagraphStyle(
            "Bullet",
            parent=body,
            spaceAfter=2,
            leftIndent=18,
            bulletIndent=4,
            bulletFontName="Helvetica",
            bulletFontSize=10,
        ),
        "cell": ParagraphStyle("Cell", parent=body, fontSize=9, leading=11, spaceAfter=0),
        "cell_head": ParagraphStyle(
            "CellHead", parent=body, fontName="Helvetica-Bold", fontSize=9, leading=11, spaceAfter=0
        ),
    }


STYLES = _styles()


# --------------------------------------------------------------------------- markdown subset

_BOLD_RE = re.compile(r"\*\*(.+?)\*\*")
_BULLET_RE = re.compile(r"^[-*]\s+(.*)$")
_NUMBERED_RE = re.compile(r"^(\d+)[.)]\s+(.*)$")
_TABLE_SEP_RE = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")


def inline(text: str) -> str:
    """Escape for reportlab's mini-HTML, then turn ``**x**`` into bold."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _BOLD_RE.sub(r"<b>\1</b>", text)


def split_row(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [cell.strip() for cell in line.split("|")]


@dataclass
class Parsed:
    title: str = ""
    flowables: list = field(default_factory=list)


def parse(source: str) -> Parsed:
    result = Parsed()
    lines = source.splitlines()
    i = 0
    paragraph: list[str] = []
    items: list[str] = []
    list_kind = ""  # "bullet" or "numbered"

    def flush_paragraph() -> None:
        if paragraph:
            result.flowables.append(Paragraph(inline(" ".join(paragraph)), STYLES["body"]))
            paragraph.clear()

    def flush_list() -> None:
        # One Paragraph per item (not a ListFlowable) so a heading's keepWithNext keeps it on
        # the page of the first item. The bullet is an en dash, not U+2022: reportlab writes
        # that glyph as code 127 of WinAnsiEncoding, which pdfplumber extracts as "(cid:127)".
        nonlocal list_kind
        for number, text in enumerate(items, start=1):
            bullet = f"{number}." if list_kind == "numbered" else "\u2013"
            result.flowables.append(Paragraph(inline(text), STYLES["bullet"], bulletText=bullet))
        if items:
            result.flowables.append(Spacer(1, 4))
            items.clear()
        list_kind = ""

    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        if not line:
            flush_paragraph()
            flush_list()
            i += 1
            continue
        if line.startswith("|"):
            flush_paragraph()
            flush_list()
            block = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                block.append(lines[i].strip())
                i += 1
            result.flowables.append(make_table(block))
            result.flowables.append(Spacer(1, 8))
            continue
        if line.startswith("#"):
            flush_paragraph()
            flush_list()
            level = len(line) - len(line.lstrip("#"))
            text = line[level:].strip()
            if level == 1:
                if not result.title:
                    result.title = text
                result.flowables.append(Paragraph(inline(text), STYLES["title"]))
            elif level == 2:
                result.flowables.append(Paragraph(inline(text), STYLES["h2"]))
            else:
                result.flowables.append(Paragraph(inline(text), STYLES["h3"]))
            i += 1
            continue
        bullet = _BULLET_RE.match(line)
        numbered = _NUMBERED_RE.match(line)
        if bullet or numbered:
            flush_paragraph()
            kind = "bullet" if bullet else "numbered"
            if list_kind and list_kind != kind:
                flush_list()
            list_kind = kind
            items.append(bullet.group(1) if bullet else numbered.group(2))  # type: ignore[union-attr]
            i += 1
            continue
        if items and raw.startswith((" ", "\t")):
            items[-1] += " " + line  # continuation of a list item
            i += 1
            continue
        flush_list()
        paragraph.append(line)
        i += 1
    flush_paragraph()
    flush_list()
    if not result.title:
        raise ValueError("source has no '# Title' line")
    return result


def make_table(block: list[str]) -> Table:
    rows = [split_row(line) for line in block if not _TABLE_SEP_RE.match(line)]
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    data = []
    for r, row in enumerate(rows):
        style = STYLES["cell_head"] if r == 0 else STYLES["cell"]
        data.append([Paragraph(inline(cell), style) for cell in row])
    table = Table(data, colWidths=column_widths(rows), repeatRows=1, hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.6, colors.HexColor("#555555")),
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#D9E2F3")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LEFTPADDING", (0, 0), (-1, -1), 4),
                ("RIGHTPADDING", (0, 0), (-1, -1), 4),
                ("TOPPADDING", (0, 0), (-1, -1), 3),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
            ]
        )
    )
    return table


CELL_PADDING = 8  # left + right padding of a cell


def column_widths(rows: list[list[str]]) -> list[float]:
    """Widths that fill the frame: every column at least as wide as its longest word (so no
    word is split across a cell border, which would break table extraction), the rest shared
    in proportion to how much wider each column would like to be."""
    width = len(rows[0])
    minimum, preferred = [], []
    for c in range(width):
        words, natural = 0.0, 0.0
        for r, row in enumerate(rows):
            font = "Helvetica-Bold" if r == 0 else "Helvetica"
            text = _BOLD_RE.sub(r"\1", row[c])
            words = max([words] + [stringWidth(w, font, 9) for w in text.split()])
            natural = max(natural, stringWidth(text, font, 9))
        minimum.append(words + CELL_PADDING + 2)
        preferred.append(min(natural, 0.55 * FRAME_W) + CELL_PADDING)
    spare = FRAME_W - sum(minimum)
    if spare <= 0:
        raise ValueError(f"table too wide for the page: {rows[0]}")
    wants = [max(p - m, 0.0) for p, m in zip(preferred, minimum, strict=True)]
    total_wants = sum(wants) or 1.0
    return [m + spare * w / total_wants for m, w in zip(minimum, wants, strict=True)]


# --------------------------------------------------------------------------- pages


def _decorate(title: str, org: str):
    def draw(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.setFillColor(colors.HexColor("#555555"))
        top = PAGE_H - 0.55 * inch
        canvas.drawString(MARGIN_X, top, title)
        canvas.drawRightString(PAGE_W - MARGIN_X, top, org)
        canvas.setStrokeColor(colors.HexColor("#999999"))
        canvas.setLineWidth(0.5)
        canvas.line(MARGIN_X, top - 5, PAGE_W - MARGIN_X, top - 5)
        bottom = 0.5 * inch
        canvas.line(MARGIN_X, bottom + 12, PAGE_W - MARGIN_X, bottom + 12)
        canvas.drawString(MARGIN_X, bottom, f"{org} Human Resources")
        canvas.drawRightString(PAGE_W - MARGIN_X, bottom, f"Page {doc.page}")
        canvas.restoreState()

    return draw


def build_one(source: Path, out_dir: Path, org: str = ORG) -> tuple[Path, int]:
    parsed = parse(source.read_text(encoding="utf-8"))
    out = out_dir / f"{source.stem}.pdf"
    doc = SimpleDocTemplate(
        str(out),
        pagesize=LETTER,
        leftMargin=MARGIN_X,
        rightMargin=MARGIN_X,
        topMargin=MARGIN_TOP,
        bottomMargin=MARGIN_BOTTOM,
        title=parsed.title,
        author=f"{org} Human Resources",
        subject=parsed.title,
        creator="scripts/build_corpus.py",
        invariant=1,
    )
    decorate = _decorate(parsed.title, org)
    doc.build(list(parsed.flowables), onFirstPage=decorate, onLaterPages=decorate)
    return out, doc.page


def build_all(source_dir: Path, out_dir: Path, org: str = ORG) -> list[tuple[Path, int]]:
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = sorted(source_dir.glob("*.md"))
    if not sources:
        raise SystemExit(f"no source files in {source_dir}")
    return [build_one(src, out_dir, org) for src in sources]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE_DIR)
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--org", default=ORG, help="the company named in every page's header and footer")
    parser.add_argument(
        "--check", action="store_true", help="build into a temporary folder and verify it matches --out byte for byte"
    )
    args = parser.parse_args(argv)

    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            built = build_all(args.source, Path(tmp), args.org)
            stale = [
                p.name for p, _ in built if not (args.out / p.name).exists() or _digest(p) != _digest(args.out / p.name)
            ]
        if stale:
            print("out of date: " + ", ".join(stale), file=sys.stderr)
            return 1
        print(f"{len(built)} PDFs up to date")
        return 0

    for path, pages in build_all(args.source, args.out, args.org):
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {pages} pages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
