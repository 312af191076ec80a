"""Text a reader cannot see on a PDF page is not policy: find it and drop it before extraction.

A poisoned PDF can carry text that pdfplumber extracts but no reader sees: white (or
near-background) glyphs, glyphs of 1 pt or less, glyphs placed outside the crop box, or glyphs a
filled shape or an image drawn *later* paints over. Such text would otherwise be quoted to
employees and handed to an LLM. Stacking order matters (a coloured table cell drawn *before* its
text is a background, the same box drawn *after* it is a cover), so the page's objects are walked
once in content-stream order.

Not detected (documented limits): clipping paths, text render mode 3 (pdfminer does not expose
it; OCR layers use it legitimately), transparency, and colours in Indexed/Pattern spaces (treated
as visible rather than guessed).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

# WCAG contrast ratio under which text is "the background's colour"; light grey (#CCCCCC) on
# white is 1.6 and still readable, #EEEEEE is 1.16 and is not.
MIN_CONTRAST = 1.5
# ...and the colours must also be close channel by channel (red on green has low luminance
# contrast but is plainly visible).
MAX_CHANNEL_DIFFERENCE = 0.25
MAX_INVISIBLE_SIZE = 1.0  # points: 1-pt text is a dot
MIN_GLYPH_WIDTH = 0.25  # points: a glyph squeezed (Tz) to nothing
COVER_TOLERANCE = 0.5  # points a cover may fall short of the glyph box and still hide it
WHITE = (1.0, 1.0, 1.0)

REASONS = {
    "colour": "text in the background's colour",
    "tiny": "text of 1 pt or smaller",
    "off_page": "text outside the page's crop box",
    "covered": "text under a shape or image drawn over it",
    "markup": "text hidden by markup (an HTML comment)",
}


@dataclass(frozen=True)
class Hidden:
    """A run of invisible text on one page, for the ingest report."""

    page: int
    reason: str  # a key of REASONS
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"page": self.page, "reason": REASONS[self.reason], "text": self.text[:300]}


def to_rgb(color: Any, space: str | None = None) -> tuple[float, float, float] | None:
    """A PDF fill colour as RGB in [0, 1]; None when it cannot be judged (patterns, indexed)."""
    if space and any(word in space for word in ("Pattern", "Indexed")):
        return None
    if isinstance(color, int | float):
        color = (color,)
    if not isinstance(color, tuple | list) or not color:
        return None
    if not all(isinstance(c, int | float) for c in color):
        return None
    values = [min(1.0, max(0.0, float(c))) for c in color]
    if len(values) == 1:
        if space and ("Separation" in space or "DeviceN" in space):
            values = [1.0 - values[0]]  # a tint is an amount of ink: 0 paints nothing
        return (values[0], values[0], values[0])
    if len(values) == 3:
        return (values[0], values[1], values[2])
    if len(values) == 4:
        c, m, y, k = values
        return ((1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k))
    return None


@functools.lru_cache(maxsize=4096)
def _cached_rgb(color: Any, space: str | None) -> tuple[float, float, float] | None:
    return to_rgb(color, space)


def _glyph_rgb(color: Any, space: str | None) -> tuple[float, float, float] | None:
    """``to_rgb`` once per distinct colour (pdfplumber gives tuples; anything unhashable is judged afresh)."""
    try:
        return _cached_rgb(color, space)
    except TypeError:
        return to_rgb(color, space)


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


# A page has a few colours and tens of thousands of glyphs: judging each pair once keeps this screen
# from being a tenth of a document's ingest CPU (pure functions of hashable tuples, so caching is safe).
@functools.lru_cache(maxsize=4096)
def indistinguishable(text: tuple[float, float, float], background: tuple[float, float, float]) -> bool:
    lighter, darker = sorted((_luminance(text), _luminance(background)), reverse=True)
    contrast = (lighter + 0.05) / (darker + 0.05)
    close = max(abs(a - b) for a, b in zip(text, background, strict=True)) <= MAX_CHANNEL_DIFFERENCE
    return contrast < MIN_CONTRAST and close


def _ordered_objects(page: Any) -> list[dict[str, Any]]:
    """The page's objects in content-stream order (pdfplumber's own lists keep that order per kind
    only); annotations are dropped, as pdfplumber does."""
    return [obj for obj in page.iter_layout_objects(page.layout._objs) if obj["object_type"] != "anno"]


def _paints(obj: dict[str, Any]) -> bool:
    """Objects that put opaque paint on the page: filled shapes and images."""
    kind = obj["object_type"]
    return kind == "image" or (kind in ("rect", "curve") and bool(obj.get("fill")))


def _classify(
    chars: list[tuple[int, dict[str, Any]]],
    shapes: list[tuple[int, dict[str, Any]]],
    crop: tuple[float, float, float, float],
) -> list[str | None]:
    """For each char: the reason it is invisible, or None."""
    if not chars:
        return []
    box = np.array([[c["x0"], c["top"], c["x1"], c["bottom"]] for _, c in chars], dtype=float)
    order = np.array([seq for seq, _ in chars])
    mid_x, mid_y = (box[:, 0] + box[:, 2]) / 2, (box[:, 1] + box[:, 3]) / 2
    reasons: list[str | None] = [None] * len(chars)
    x0, top, x1, bottom = crop
    off: np.ndarray = np.asarray((mid_x < x0) | (mid_x > x1) | (mid_y < top) | (mid_y > bottom))

    shape_box = np.array([[s["x0"], s["top"], s["x1"], s["bottom"]] for _, s in shapes], dtype=float).reshape(-1, 4)
    shape_order = np.array([seq for seq, _ in shapes], dtype=int)
    later = shape_order[None, :] > order[:, None]
    t = COVER_TOLERANCE
    covers = (
        (shape_box[None, :, 0] <= box[:, None, 0] + t)
        & (shape_box[None, :, 1] <= box[:, None, 1] + t)
        & (shape_box[None, :, 2] >= box[:, None, 2] - t)
        & (shape_box[None, :, 3] >= box[:, None, 3] - t)
    )
    under = (
        (shape_box[None, :, 0] <= mid_x[:, None])
        & (shape_box[None, :, 2] >= mid_x[:, None])
        & (shape_box[None, :, 1] <= mid_y[:, None])
        & (shape_box[None, :, 3] >= mid_y[:, None])
    )
    covered: np.ndarray = np.asarray((covers & later).any(axis=1))
    # The background of each glyph: the last filled shape drawn before it under its middle (-1: none).
    beneath_order = np.where(under & ~later, shape_order[None, :], -1)
    top_below: np.ndarray = beneath_order.argmax(axis=1) if shapes else np.zeros(len(chars), dtype=int)
    has_below: np.ndarray = beneath_order.max(axis=1) >= 0 if shapes else np.zeros(len(chars), dtype=bool)
    tiny: np.ndarray = (box[:, 2] - box[:, 0]) < MIN_GLYPH_WIDTH

    for i, (_, char) in enumerate(chars):
        if not char["text"].strip():
            continue
        if off[i]:
            reasons[i] = "off_page"
        elif float(char.get("size") or 0) <= MAX_INVISIBLE_SIZE or tiny[i]:
            reasons[i] = "tiny"
        elif covered[i]:
            reasons[i] = "covered"
        else:
            background: tuple[float, float, float] | None = WHITE
            if has_below[i]:
                top_shape = shapes[int(top_below[i])][1]
                background = (
                    None
                    if top_shape["object_type"] == "image"
                    else _glyph_rgb(top_shape.get("non_stroking_color"), None)
                )
            colour = _glyph_rgb(char.get("non_stroking_color"), char.get("ncs"))
            if background is not None and colour is not None and indistinguishable(colour, background):
                reasons[i] = "colour"
    return reasons


def drop_invisible_text(page: Any, number: int) -> list[Hidden]:
    """Remove invisible characters from ``page`` (a pdfplumber page) and report them.

    Everything downstream (lines, tables, headings, image-only detection) then reads the page's
    visible characters only: pdfplumber serves ``page.chars`` from ``page._objects``.
    """
    ordered = _ordered_objects(page)
    chars = [(seq, obj) for seq, obj in enumerate(ordered) if obj["object_type"] == "char"]
    shapes = [(seq, obj) for seq, obj in enumerate(ordered) if _paints(obj)]
    crop = tuple(float(v) for v in page.cropbox)
    reasons = _classify(chars, shapes, crop)  # type: ignore[arg-type]

    hidden: list[Hidden] = []
    run: list[str] = []
    run_reason: str | None = None

    def close_run() -> None:
        text = " ".join("".join(run).split())
        if run_reason and text:
            hidden.append(Hidden(number, run_reason, text))
        run.clear()

    for (_, char), reason in zip(chars, reasons, strict=True):
        blank = not char["text"].strip()
        if blank and run_reason:
            run.append(char["text"])  # spaces inside a hidden run belong to it
            continue
        if reason != run_reason:
            close_run()
            run_reason = reason
        if reason:
            run.append(char["text"])
    close_run()

    invisible = {seq for (seq, _), reason in zip(chars, reasons, strict=True) if reason}
    objects: dict[str, list[dict[str, Any]]] = {}
    for seq, obj in enumerate(ordered):
        if seq not in invisible:
            objects.setdefault(obj["object_type"], []).append(obj)
    page._objects = objects
    return hidden
