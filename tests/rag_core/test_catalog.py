"""catalog.yaml: errors name the file and the field, and a bad entry skips only its document."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from rag_core.catalog import derive_document_id, load_catalog
from rag_core.errors import CatalogError

pytestmark = pytest.mark.unit


def folder(tmp_path: Path, files: list[str], catalog: str | None = None) -> Path:
    for name in files:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {Path(name).stem}\n\nSome policy text.\n", encoding="utf-8")
    if catalog is not None:
        (tmp_path / "catalog.yaml").write_text(catalog, encoding="utf-8")
    return tmp_path


def errors_by_file(root: Path) -> dict[str, CatalogError]:
    return {error.file: error for error in load_catalog(root).errors}


def ids(root: Path) -> list[str]:
    return sorted(meta.document_id for meta in load_catalog(root).documents)


def test_folder_without_catalog_gets_defaults_and_derived_ids(tmp_path: Path) -> None:
    root = folder(tmp_path, ["plans/dental.md", "README.md", "notes.txt"])
    (root / "Benefit_Options.pdf").write_bytes(b"%PDF-1.4 not parsed by the catalog")
    catalog = load_catalog(root)
    assert catalog.errors == []
    by_id = {meta.document_id: meta for meta in catalog.documents}
    assert sorted(by_id) == ["benefit-options", "plans-dental"]  # README and .txt are not ingested
    meta = by_id["benefit-options"]
    assert meta.file == "Benefit_Options.pdf"
    assert meta.policy_id == "benefit-options"
    assert meta.title == "Benefit Options"
    assert meta.jurisdiction == "US-ALL"
    assert meta.acl_groups == ("employees",)
    assert meta.language == "en" and meta.version == "1"
    assert meta.effective_date == date(1970, 1, 1)
    assert meta.source_uri == (root / "Benefit_Options.pdf").resolve().as_uri()
    assert catalog.path_of(meta) == root.resolve() / "Benefit_Options.pdf"


def test_derive_document_id() -> None:
    assert derive_document_id("Benefit_Options.pdf") == "benefit-options"
    assert derive_document_id("2026/Medical Plan (PPO).PDF") == "2026-medical-plan-ppo"
    assert derive_document_id("___.md") == "document"


def test_catalog_entries_and_defaults(tmp_path: Path) -> None:
    root = folder(
        tmp_path,
        ["medical.md", "leave-ca.md"],
        """
defaults:
  acl_groups: [employees, contractors]
  effective_date: 2026-01-01
documents:
  - file: medical.md
    document_id: medical-plan-2026
    policy_id: medical-plan
    title: Medical Plan 2026
    version: "2026.1"
    source_uri: https://hr.example.com/medical.pdf
  - file: leave-ca.md
    jurisdiction: US-CA
    acl_groups: [employees]
    language: es
    overrides: [medical-plan-2026]
""",
    )
    catalog = load_catalog(root)
    assert catalog.errors == []
    by_id = {meta.document_id: meta for meta in catalog.documents}
    medical = by_id["medical-plan-2026"]
    assert (medical.policy_id, medical.title, medical.version) == (
        "medical-plan",
        "Medical Plan 2026",
        "2026.1",
    )
    assert medical.acl_groups == ("employees", "contractors")
    assert medical.effective_date == date(2026, 1, 1)
    leave = by_id["leave-ca"]
    assert (leave.jurisdiction, leave.language, leave.acl_groups) == ("US-CA", "es", ("employees",))
    assert leave.overrides == ("medical-plan-2026",)


@pytest.mark.parametrize(
    ("entry", "field", "problem"),
    [
        ("effective_date: 2026-02-30", "effective_date", "not a date"),
        ("effective_date: 01/02/2026", "effective_date", "not a date"),
        ("effective_date: next year", "effective_date", "not a date"),
        ("colour: blue", "colour", "unknown field"),
        ("jurisdiction: CA", "jurisdiction", "US-ALL or US-<state code>"),
        ("jurisdiction: us-ca", "jurisdiction", "US-ALL or US-<state code>"),
        ("acl_groups: []", "acl_groups", "non-empty list"),
        ("acl_groups: employees", "acl_groups", "non-empty list"),
        ("language: english", "language", "two-letter"),
        ("document_id: Bad Id", "document_id", "not a valid id"),
        ("source_uri: hr.example.com/x.pdf", "source_uri", "http(s) or file URI"),
        ("version: ''", "version", "not a version"),
        ("title: '  '", "title", "non-empty"),
        ("overrides: [no-such-doc]", "overrides", "unknown document id 'no-such-doc'"),
    ],
)
def test_bad_entry_names_file_and_field_and_skips_only_that_document(
    tmp_path: Path, entry: str, field: str, problem: str
) -> None:
    root = folder(
        tmp_path,
        ["good.md", "bad.md"],
        f"""
documents:
  - file: good.md
  - file: bad.md
    {entry}
""",
    )
    catalog = load_catalog(root)
    assert [meta.file for meta in catalog.documents] == ["good.md"]
    (error,) = catalog.errors
    assert (error.file, error.field) == ("bad.md", field)
    assert problem in error.problem
    assert str(error).startswith(f"bad.md: field '{field}': ")


def test_missing_file(tmp_path: Path) -> None:
    root = folder(tmp_path, ["present.md"], "documents:\n  - file: gone.pdf\n  - file: present.md\n")
    errors = errors_by_file(root)
    assert set(errors) == {"gone.pdf"}
    assert errors["gone.pdf"].field == "file" and "no such file" in errors["gone.pdf"].problem
    assert ids(root) == ["present"]


def test_entry_without_file(tmp_path: Path) -> None:
    root = folder(tmp_path, ["a.md"], "documents:\n  - title: Orphan\n  - file: a.md\n")
    catalog = load_catalog(root)
    (error,) = catalog.errors
    assert (error.file, error.field) == ("catalog.yaml", "documents[0].file")
    assert [m.document_id for m in catalog.documents] == ["a"]


def test_duplicate_id_keeps_the_first_and_names_both(tmp_path: Path) -> None:
    root = folder(
        tmp_path,
        ["one.md", "two.md"],
        """
documents:
  - file: one.md
    document_id: medical
  - file: two.md
    document_id: medical
""",
    )
    catalog = load_catalog(root)
    assert [m.file for m in catalog.documents] == ["one.md"]
    (error,) = catalog.errors
    assert (error.file, error.field) == ("two.md", "document_id")
    assert "duplicate id 'medical'" in error.problem and "one.md" in error.problem


def test_derived_id_colliding_with_a_declared_id(tmp_path: Path) -> None:
    root = folder(tmp_path, ["a.md", "Medical.md"], "documents:\n  - file: a.md\n    document_id: medical\n")
    errors = errors_by_file(root)
    assert set(errors) == {"Medical.md"} and errors["Medical.md"].field == "document_id"
    assert ids(root) == ["medical"]


def test_override_of_a_skipped_document_is_reported(tmp_path: Path) -> None:
    root = folder(
        tmp_path,
        ["base.md", "rider.md", "other.md"],
        """
documents:
  - file: base.md
    effective_date: not-a-date
  - file: rider.md
    overrides: [base]
""",
    )
    errors = errors_by_file(root)
    assert errors["base.md"].field == "effective_date"
    assert errors["rider.md"].field == "overrides" and "'base'" in errors["rider.md"].problem
    assert ids(root) == ["other"]


def test_include_globs(tmp_path: Path) -> None:
    root = folder(
        tmp_path,
        ["plans/medical.md", "plans/dental.md", "drafts/vision.md", "top.md"],
        "include: ['plans/*.md']\n",
    )
    assert ids(root) == ["plans-dental", "plans-medical"]


def test_include_does_not_hide_described_files(tmp_path: Path) -> None:
    root = folder(
        tmp_path,
        ["plans/medical.md", "extra/faq.md"],
        "include: ['plans/**/*.md']\ndocuments:\n  - file: extra/faq.md\n",
    )
    assert ids(root) == ["extra-faq", "plans-medical"]


@pytest.mark.parametrize(
    ("text", "file", "field"),
    [
        ("defaults:\n  jurisdiction: Texas\n", "catalog.yaml", "jurisdiction"),
        ("defaults:\n  title: Everything\n", "catalog.yaml", "defaults.title"),
        ("documentz: []\n", "catalog.yaml", "documentz"),
        ("include: '*.md'\n", "catalog.yaml", "include"),
        ("documents: {file: a.md}\n", "catalog.yaml", "documents"),
        ("- just\n- a list\n", "catalog.yaml", "-"),
        ("documents: [\n", "catalog.yaml", "-"),
    ],
)
def test_catalog_level_errors_name_catalog_and_field(tmp_path: Path, text: str, file: str, field: str) -> None:
    root = folder(tmp_path, ["a.md"], text)
    with pytest.raises(CatalogError) as info:
        load_catalog(root)
    assert (info.value.file, info.value.field) == (file, field)


def test_timestamp_effective_date_is_a_catalog_error(tmp_path: Path) -> None:
    root = folder(
        tmp_path,
        ["good.md", "bad.md"],
        """
documents:
  - file: good.md
  - file: bad.md
    effective_date: 2026-01-01 10:30:00
""",
    )
    catalog = load_catalog(root)
    assert [m.file for m in catalog.documents] == ["good.md"]
    assert [(e.file, e.field) for e in catalog.errors] == [("bad.md", "effective_date")]


def test_a_file_listed_twice_is_an_error(tmp_path: Path) -> None:
    root = folder(
        tmp_path,
        ["a.md"],
        """
documents:
  - file: a.md
    document_id: first
  - file: a.md
    document_id: second
""",
    )
    catalog = load_catalog(root)
    assert [m.document_id for m in catalog.documents] == ["first"]
    assert [(e.file, e.field) for e in catalog.errors] == [("a.md", "documents[1].file")]


def test_unquoted_decimal_version_is_not_silently_changed(tmp_path: Path) -> None:
    root = folder(tmp_path, ["a.md"], "documents:\n  - file: a.md\n    version: 2.10\n")
    catalog = load_catalog(root)
    assert [m.version for m in catalog.documents] in ([], ["2.10"])
    assert catalog.documents or catalog.errors[0].field == "version"
