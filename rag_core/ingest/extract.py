"""Text out of source files, with page numbers and section headings.

PDF tables become one readable line per row ("Header: value; ..."), not the word soup that
plain text extraction gives for a grid. Pages with no text layer are reported, so HR knows
what is not searchable (an image-only table, a scanned page).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag_core.errors import ExtractionError
from rag_core.ingest.visibility import Hidden, drop_invisible_text
from rag_core.markdown import heading_of, plain_inline


@dataclass(frozen=True)
class Block:
    """A run of text from one page under one heading (a paragraph, a list item, a table row)."""

    page: int
    heading: str
    text: str
    anchor: str | None = None


@dataclass
class Extracted:
    blocks: list[Block] = field(default_factory=list)
    pages: int = 0
    pages_without_text: list[int] = field(default_factory=list)
    hidden: list[Hidden] = field(default_factory=list)  # invisible text, dropped (reported at ingest)


def _clean(cell: Any) -> str:
    return re.sub(r"\s+", " ", str(cell or "")).strip()


def table_rows_as_text(rows: list[list[Any]]) -> list[str]:
    """Render a table as "Header: value" rows so each row reads as a statement."""
    cleaned = [[_clean(c) for c in row] for row in rows if any(_clean(c) for c in row)]
    if not cleaned:
        return []
    header, body = cleaned[0], cleaned[1:]
    if not body:
        return [" | ".join(c for c in header if c)]
    lines = []
    for row in body:
        label = row[0] if row else ""
        pairs = [
            f"{header[i] or 'Value'}: {value}" for i, value in enumerate(row) if i > 0 and value and i < len(header)
        ]
        if label and pairs:
            first_header = header[0] or "Item"
            lines.append(f"{first_header}: {label}; " + "; ".join(pairs) + ".")
        else:
            lines.append("; ".join(v for v in row if v) + ".")
    return lines


def _inside(box: tuple[float, float, float, float], obj: dict[str, Any]) -> bool:
    x0, top, x1, bottom = box
    mid_x = (obj["x0"] + obj["x1"]) / 2
    mid_y = (obj["top"] + obj["bottom"]) / 2
    return x0 <= mid_x <= x1 and top <= mid_y <= bottom


@dataclass
class _PageItems:
    """What one PDF page holds, in reading order, before headers and footers are known."""

    number: int
    items: list[tuple[float, str, str, bool]]  # (top, kind, text, in the top/bottom margin)
    image_only: bool


_MARGIN_SHARE = 0.08  # running headers and footers live in the top and bottom 8% of a page
_PAGE_NUMBER = re.compile(r"^(page\s*)?#(\s*(of|/)\s*#)?$")


def _shape(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower()).strip()


def extract_pdf(path: Path) -> Extracted:
    import pdfplumber
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfplumber.utils.exceptions import PdfminerException

    result = Extracted()
    pages: list[_PageItems] = []
    try:
        with pdfplumber.open(path) as pdf:
            result.pages = len(pdf.pages)
            for number, page in enumerate(pdf.pages, start=1):
                result.hidden.extend(drop_invisible_text(page, number))  # before anything reads the page
                pages.append(_page_items(page, number))
                page.close()  # drop the page's parsed layout: memory stays flat on long documents
    except (PDFSyntaxError, PdfminerException, ValueError, KeyError, TypeError) as exc:
        raise ExtractionError(f"{path.name}: not a readable PDF ({type(exc).__name__}: {exc})") from exc
    except Exception as exc:  # pdfminer raises many ad-hoc types on corrupt input
        raise ExtractionError(f"{path.name}: not a readable PDF ({type(exc).__name__}: {exc})") from exc
    running = _running_lines(pages)
    heading = ""
    for page_items in pages:
        heading = _blocks_of(page_items, heading, running, result)
    return result


def _running_lines(pages: list[_PageItems]) -> set[str]:
    """Margin lines that repeat across pages (document title, "Page 3 of 9"): page furniture,
    not content. Left in, they glue themselves into paragraphs and answers."""
    seen: dict[str, int] = {}
    for page in pages:
        for shape in {_shape(text) for _, _, text, margin in page.items if margin}:
            seen[shape] = seen.get(shape, 0) + 1
    needed = max(2, len(pages) // 2)
    return {shape for shape, count in seen.items() if count >= needed or _PAGE_NUMBER.match(shape)}


def _page_items(page: Any, number: int) -> _PageItems:
    # Table detection is the slowest step; a page with no ruling lines has no grid to find.
    tables = page.find_tables() if (page.lines or page.rects or page.edges) else []
    boxes = [t.bbox for t in tables]
    height = float(page.height) or 1.0
    items: list[tuple[float, str, str, bool]] = []
    lines = page.extract_text_lines(return_chars=True, strip=True)
    sizes = [c["size"] for line in lines for c in line["chars"] if c["text"].strip()]
    body_size = statistics.median(sizes) if sizes else 0.0
    for line in lines:
        if any(_inside(box, line) for box in boxes):
            continue
        text = _clean(line["text"])
        if not text:
            continue
        chars = [c for c in line["chars"] if c["text"].strip()]
        size = max((c["size"] for c in chars), default=body_size)
        bold = bool(chars) and all("Bold" in c.get("fontname", "") for c in chars)
        is_heading = (size >= body_size + 1.5 or bold) and len(text) < 120 and not text.endswith(".")
        margin = line["top"] < _MARGIN_SHARE * height or line["bottom"] > (1 - _MARGIN_SHARE) * height
        items.append((line["top"], "heading" if is_heading else "text", text, margin))
    for table in tables:
        rows = table_rows_as_text(table.extract())
        items.extend((table.bbox[1] + i * 0.001, "row", row, False) for i, row in enumerate(rows))
    items.sort(key=lambda item: item[0])
    return _PageItems(number, items, _has_image_only_region(page))


def _blocks_of(page: _PageItems, heading: str, running: set[str], result: Extracted) -> str:
    number = page.number
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            result.blocks.append(Block(page=number, heading=heading, text=" ".join(paragraph)))
            paragraph.clear()

    for _, kind, text, margin in page.items:
        if margin and _shape(text) in running:
            continue
        if kind == "heading":
            flush()
            heading = text
        elif kind == "row":
            flush()
            result.blocks.append(Block(page=number, heading=heading, text=text))
        else:
            paragraph.append(text)
            # A line ending a sentence ends the paragraph; keeps blocks sentence-aligned.
            if text.endswith((".", ":", "?", "!")) and len(" ".join(paragraph)) > 300:
                flush()
    flush()
    if not any(b.page == number for b in result.blocks) or page.image_only:
        result.pages_without_text.append(number)
    return heading


def _has_image_only_region(page: Any, min_share: float = 0.10) -> bool:
    """An image covering a real share of the page with no text over it: a picture of a table,
    a scanned form. Its content is not searchable, and HR should know."""
    area = float(page.width * page.height) or 1.0
    for image in page.images:
        box = (image["x0"], image["top"], image["x1"], image["bottom"])
        if (box[2] - box[0]) * (box[3] - box[1]) / area < min_share:
            continue
        if not any(_inside(box, char) for char in page.chars if char["text"].strip()):
            return True
    return False


def slugify(text: str) -> str:
    """GitHub-style heading anchor: stable as long as the heading text is."""
    slug = re.sub(r"[^\w\s-]", "", text.lower()).strip()
    return re.sub(r"[\s]+", "-", slug)


_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)


def _drop_comments(source: str, result: Extracted) -> str:
    """HTML comments render as nothing: a reader never sees them, so they are not policy."""

    def drop(match: re.Match[str]) -> str:
        text = " ".join(match.group(0).removeprefix("<!--").removesuffix("-->").split())
        if text:
            result.hidden.append(Hidden(1, "markup", text))
        return "\n" * match.group(0).count("\n")  # keep line structure (headings, tables) intact

    return _COMMENT.sub(drop, source)


def extract_markdown(path: Path) -> Extracted:
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ExtractionError(f"{path.name}: cannot read markdown ({exc})") from exc
    result = Extracted(pages=1)
    source = _drop_comments(source, result)
    heading, anchor = "", None
    used: dict[str, int] = {}
    paragraph: list[str] = []
    table: list[list[str]] = []

    def flush() -> None:
        if table:
            rows = [r for r in table if not all(re.fullmatch(r":?-{2,}:?", c or "-") for c in r)]
            for row_text in table_rows_as_text(rows):  # type: ignore[arg-type]
                result.blocks.append(Block(page=1, heading=heading, text=row_text, anchor=anchor))
            table.clear()
        if paragraph:
            result.blocks.append(Block(page=1, heading=heading, text=" ".join(paragraph), anchor=anchor))
            paragraph.clear()

    for raw in source.splitlines():
        line = raw.strip()
        parsed = heading_of(line)
        if parsed is not None:
            flush()
            heading = parsed[1]
            base = slugify(heading)
            count = used.get(base, 0)
            used[base] = count + 1
            anchor = base if count == 0 else f"{base}-{count}"
            continue
        if line.startswith("|") and line.endswith("|"):
            if paragraph:
                flush()
            table.append([plain_inline(c) for c in line.strip("|").split("|")])
            continue
        if not line:
            flush()
            continue
        if table:
            flush()
        if re.match(r"^([-*+]|\d+[.)])\s+", line):
            flush()
            paragraph.append(plain_inline(re.sub(r"^([-*+]|\d+[.)])\s+", "", line)))
            flush()
            continue
        text = plain_inline(line)
        if text:
            paragraph.append(text)
    flush()
    if not result.blocks:
        result.pages_without_text.append(1)
    return result


def extract(path: Path) -> Extracted:
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return extract_pdf(path)
    if suffix in {".md", ".markdown"}:
        return extract_markdown(path)
    raise ExtractionError(f"{path.name}: unsupported file type {suffix!r}")
