"""Ingest reports every file: its status, chunks, unsearchable pages and why; empty files are
reported as empty and never indexed; markdown reads as plain text with its heading as title."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import qdrant_edge as qe

from rag_core.index.edge import EdgeIndex
from rag_core.index.manifest import load_manifest
from rag_core.ingest.pipeline import Ingestor, IngestSummary
from tests.fakes.documents import build_pdf
from tests.fakes.embedder import HashEmbedder

pytestmark = pytest.mark.integration

TUITION = """# Tuition Assistance Program

## Amounts

Fabrikam reimburses up to **$6,000** a year for approved courses. See [the HR Portal](https://hr.fabrikam.example/portal).
"""


async def run(index_dir: Path, corpus: Path, embedder: HashEmbedder | None = None) -> IngestSummary:
    index = EdgeIndex(index_dir)
    try:
        return await Ingestor(
            index, embedder or HashEmbedder(), progress=False, link_hosts=["hr.fabrikam.example"]
        ).run(corpus)
    finally:
        await index.aclose()


def points(index: EdgeIndex) -> dict[str, dict[str, Any]]:
    records, _ = index._open().scroll(qe.ScrollRequest(limit=10_000, with_payload=True))
    return {str(r.id): dict(r.payload or {}) for r in records}


def by_file(summary: IngestSummary) -> dict[str, tuple[str, int, str]]:
    return {f.file: (f.status, f.chunks, f.reason) for f in summary.files}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "tuition.md").write_text(TUITION, encoding="utf-8")
    (root / "empty.md").write_text("", encoding="utf-8")
    build_pdf(root / "medical.pdf", paragraphs=["The medical plan deductible is $1,250."], image_page=True)
    return root


async def test_each_file_has_a_status_and_empty_files_are_never_ingested(corpus: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    first = await run(index_dir, corpus)
    files = by_file(first)
    assert files["tuition.md"][0] == "ingested" and files["tuition.md"][1] >= 1
    assert files["medical.pdf"][0] == "ingested"
    assert files["empty.md"] == ("empty", 0, "the file has no text")
    assert (first.ingested, first.empty, first.failed) == (2, 1, [])
    [medical] = [f for f in first.files if f.file == "medical.pdf"]
    assert medical.unsearchable_pages == [2]  # the image-only page, named per file

    again = await run(index_dir, corpus)
    assert by_file(again)["empty.md"][0] == "empty" and by_file(again)["tuition.md"][0] == "unchanged"
    assert (again.ingested, again.skipped, again.empty) == (0, 2, 1)  # not "1 ingested" on every run

    index = EdgeIndex(index_dir)
    try:
        manifest = await load_manifest(index)
        assert manifest is not None and "empty" not in manifest.documents
    finally:
        await index.aclose()

    payload = json.loads(json.dumps(again.to_json()))  # what `ingest --json` prints
    assert {f["file"]: f["status"] for f in payload["files"]} == {
        "empty.md": "empty",
        "medical.pdf": "unchanged",
        "tuition.md": "unchanged",
    }
    assert set(payload["files"][0]) == {
        "file",
        "document_id",
        "status",
        "pages",
        "chunks",
        "unsearchable_pages",
        "reason",
    }
    assert "EMPTY empty.md: the file has no text" in again.render()


async def test_a_document_that_becomes_empty_stops_serving(corpus: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    await run(index_dir, corpus)
    (corpus / "tuition.md").write_text("\n\n", encoding="utf-8")
    summary = await run(index_dir, corpus)
    status, _, reason = by_file(summary)["tuition.md"]
    assert status == "empty" and "previous version was removed" in reason
    index = EdgeIndex(index_dir)
    try:
        assert not [p for p in points(index).values() if p["document_id"] == "tuition"]
    finally:
        await index.aclose()


async def test_markdown_title_from_its_heading_and_plain_text_chunks(corpus: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    await run(index_dir, corpus)
    index = EdgeIndex(index_dir)
    try:
        tuition = [p for p in points(index).values() if p["document_id"] == "tuition"]
    finally:
        await index.aclose()
    assert {p["title"] for p in tuition} == {"Tuition Assistance Program"}  # not "tuition"
    text = " ".join(p["content"] for p in tuition)
    assert "up to $6,000 a year" in text and "**" not in text
    assert "the HR Portal (https://hr.fabrikam.example/portal)" in text
