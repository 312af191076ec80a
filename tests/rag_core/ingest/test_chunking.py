"""Chunk geometry: token bounds, overlap, ids, page and section boundaries, heading prefix."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from rag_core.ingest.chunking import chunk_blocks, chunk_document, chunk_id_for
from rag_core.ingest.extract import Block, extract_markdown
from rag_core.tokens import count_tokens, encoding
from rag_core.types import Chunk, DocumentMeta
from tests.fakes.documents import sentences, write_markdown

pytestmark = pytest.mark.unit

META = DocumentMeta(
    file="medical.pdf",
    document_id="medical-plan-2026",
    policy_id="medical-plan",
    title="Medical Plan 2026",
    jurisdiction="US-ALL",
    effective_date=date(2026, 1, 1),
    version="1",
    source_uri="https://hr.example.com/medical.pdf",
    acl_groups=("employees",),
)

ID_RE = re.compile(r"^medical-plan-2026_p(\d+)_c(\d{2})$")


def long_document() -> list[Block]:
    """Two long pages (several chunks each) and a short third page; blocks of varied size."""
    blocks: list[Block] = []
    for page, word in ((1, "alpha"), (2, "bravo")):
        for part in range(6):
            blocks.append(
                Block(page=page, heading="Eligibility", text=sentences(f"{word} eligibility {part}", 4 + part))
            )
    blocks.append(Block(page=3, heading="Claims", text="Claims are filed online."))
    return blocks


def body_of(chunk: Chunk) -> str:
    return chunk.content.split("\n", 1)[1]


def overlap_tokens(previous: Chunk, following: Chunk) -> int:
    """Tokens of the longest suffix of ``previous`` that starts ``following``'s body."""
    body = body_of(following)
    for size in range(min(len(body), len(previous.content)), 0, -1):
        if previous.content.endswith(body[:size]):
            return len(encoding().encode(body[:size]))
    return 0


def test_no_chunk_over_the_budget_and_counts_are_true() -> None:
    chunks = chunk_blocks(META, long_document(), max_tokens=400, overlap=40)
    assert len(chunks) >= 6
    for chunk in chunks:
        assert chunk.token_count == count_tokens(chunk.content)
        assert chunk.token_count <= 400
    # The budget is used, not wasted: full chunks are close to it.
    assert max(c.token_count for c in chunks) > 340


def test_consecutive_chunks_of_a_page_overlap_by_about_40_tokens() -> None:
    chunks = chunk_blocks(META, long_document(), max_tokens=400, overlap=40)
    pairs = [(a, b) for a, b in zip(chunks, chunks[1:], strict=False) if a.page_number == b.page_number]
    assert len(pairs) >= 4
    for previous, following in pairs:
        assert 35 <= overlap_tokens(previous, following) <= 45, (previous.chunk_id, following.chunk_id)


def test_no_overlap_across_pages() -> None:
    chunks = chunk_blocks(META, long_document(), max_tokens=400, overlap=40)
    for previous, following in zip(chunks, chunks[1:], strict=False):
        if previous.page_number != following.page_number:
            assert body_of(following).startswith(("Rule 0", "Claims"))


def test_ids_are_well_formed_unique_and_stable() -> None:
    first = chunk_blocks(META, long_document())
    second = chunk_blocks(META, long_document())
    assert first == second  # same input, same ids and contents: re-ingest is idempotent
    ids = [c.chunk_id for c in first]
    assert len(set(ids)) == len(ids)
    per_page: dict[int, list[int]] = {}
    for chunk in first:
        match = ID_RE.match(chunk.chunk_id)
        assert match, chunk.chunk_id
        assert int(match.group(1)) == chunk.page_number
        per_page.setdefault(chunk.page_number, []).append(int(match.group(2)))
    assert all(ordinals == list(range(len(ordinals))) for ordinals in per_page.values())
    assert chunk_id_for("x", 12, 3) == "x_p12_c03"


def test_chunks_never_span_pages() -> None:
    chunks = chunk_blocks(META, long_document())
    assert {c.page_number for c in chunks} == {1, 2, 3}
    for chunk in chunks:
        body = body_of(chunk)
        if chunk.page_number == 1:
            assert "bravo" not in body and "Claims" not in body
        elif chunk.page_number == 2:
            assert "alpha" not in body and "Claims" not in body
        else:
            assert "alpha" not in body and "bravo" not in body


def test_heading_prefix() -> None:
    chunks = chunk_blocks(META, long_document())
    for chunk in chunks:
        heading = "Claims" if chunk.page_number == 3 else "Eligibility"
        assert chunk.content.startswith(f"Medical Plan 2026 — {heading}\n")
    untitled = chunk_blocks(META, [Block(page=1, heading="", text="No heading here.")])
    assert untitled[0].content == "Medical Plan 2026\nNo heading here."


def test_heading_change_inside_a_page_is_written_into_the_text() -> None:
    blocks = [
        Block(page=1, heading="Eligibility", text="Employees are eligible on day one."),
        Block(page=1, heading="Claims", text="Claims are filed online."),
    ]
    (chunk,) = chunk_blocks(META, blocks)
    assert chunk.content == (
        "Medical Plan 2026 — Eligibility\nEmployees are eligible on day one.\nClaims\nClaims are filed online."
    )


def test_chunk_header_names_the_section_it_starts_in() -> None:
    blocks = [
        Block(page=1, heading="Eligibility", text=sentences("eligibility", 30)),
        Block(page=1, heading="Claims", text=sentences("claims", 20)),
        Block(page=1, heading="Claims", text=sentences("claims appeals", 20)),
    ]
    chunks = chunk_blocks(META, blocks)
    last = chunks[-1]
    assert "eligibility" not in body_of(last)
    assert last.content.startswith("Medical Plan 2026 — Claims\n")


def test_an_over_long_unit_is_split_on_token_boundaries() -> None:
    row = "Plan: PPO; " + "; ".join(f"Service {i}: covered at {i}% after deductible" for i in range(200)) + "."
    chunks = chunk_blocks(META, [Block(page=4, heading="Rates", text=row)])
    assert len(chunks) >= 3
    assert all(c.token_count <= 400 for c in chunks)
    assert "Service 199: covered at 199%" in chunks[-1].content  # nothing dropped at the end


def test_markdown_sections_are_separate_citation_targets(tmp_path: Path) -> None:
    path = write_markdown(
        tmp_path / "dental.md",
        "Dental Plan",
        {
            "Coverage": sentences("coverage", 40),
            "Waiting Periods": "Major services wait 12 months.",
        },
    )
    meta = META.model_copy(update={"document_id": "medical-plan-2026", "file": "dental.md"})
    chunks = chunk_document(meta, extract_markdown(path))
    anchors = [c.anchor for c in chunks]
    assert anchors[-1] == "waiting-periods" and set(anchors[:-1]) == {"coverage"}
    assert len(anchors) >= 3
    assert [c.chunk_id for c in chunks] == [f"medical-plan-2026_p1_c{i:02d}" for i in range(len(chunks))]
    assert chunks[-1].content == "Medical Plan 2026 — Waiting Periods\nMajor services wait 12 months."
    assert "Major services" not in "".join(c.content for c in chunks[:-1])
