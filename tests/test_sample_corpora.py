"""The committed sample corpora are what their sources build, and the Tailspin question set asks what
its PDFs say: a source edit without a rebuild (or a rebuild that drifts) would silently change every
benchmark figure measured on them."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pdfplumber
import pytest

ROOT = Path(__file__).resolve().parent.parent
TAILSPIN = ROOT / "benchmarks" / "tailspin"


@functools.cache
def _builder() -> ModuleType:
    """scripts/build_corpus.py, loaded once (it is a script, not a package module)."""
    spec = importlib.util.spec_from_file_location("build_corpus", ROOT / "scripts" / "build_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_corpus"] = module  # its dataclasses resolve their module while it loads
    spec.loader.exec_module(module)
    return module


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


@pytest.mark.parametrize(
    ("source", "out", "org"),
    [
        (ROOT / "corpus" / "source", ROOT / "corpus" / "docs", None),
        (TAILSPIN / "source", TAILSPIN / "docs", "Tailspin Toys, Inc."),
    ],
    ids=["fabrikam", "tailspin"],
)
def test_the_committed_pdfs_are_what_their_sources_build(
    source: Path, out: Path, org: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--check", "--source", str(source), "--out", str(out), *(["--org", org] if org else [])]
    assert _builder().main(args) == 0, capsys.readouterr().err


@pytest.mark.parametrize("question_set", sorted(TAILSPIN.glob("tailspin-*.jsonl")), ids=lambda path: path.stem)
def test_every_tailspin_answer_is_on_its_cited_page(question_set: Path) -> None:
    pages: dict[str, list[str]] = {}
    for pdf in sorted((TAILSPIN / "docs").glob("*.pdf")):
        with pdfplumber.open(pdf) as document:
            pages[pdf.name] = [_squeezed(page.extract_text() or "") for page in document.pages]
    rows = [json.loads(line) for line in question_set.read_text(encoding="utf-8").splitlines()]
    # 80 rows a set, 30 for a short one (tailspin-27); every id once.
    assert len(rows) in (30, 80) and len({row["id"] for row in rows}) == len(rows)
    for row in rows:
        if row["expect"] == "abstain":
            assert not row["sources"] and not row["must_include"], row["id"]
            continue
        cited = []
        for source in row["sources"]:
            name, _, page = source.partition("#page=")
            cited.append(pages[name][int(page) - 1])
        for fact in row["must_include"]:
            assert any(_squeezed(fact) in text for text in cited), (row["id"], fact)
