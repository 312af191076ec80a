"""``catalog.yaml``: the metadata contract for a corpus folder.

Shape: ``defaults:`` (any document field), ``documents:`` (one entry per file) and optionally
``include:`` (globs of the files to ingest; default every PDF and markdown file). A file with
no entry is ingested with the defaults and an id derived from its name; a folder with no
catalog works with defaults alone. A bad entry is reported (file and field named) and only
that document is skipped, so one typo cannot take the whole corpus down.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from rag_core.errors import CatalogError
from rag_core.markdown import first_heading
from rag_core.types import DocumentMeta

CATALOG_NAME = "catalog.yaml"
SUPPORTED_SUFFIXES = (".pdf", ".md", ".markdown")
DEFAULT_INCLUDE = ("**/*.pdf", "**/*.md", "**/*.markdown")

_DOC_FIELDS = {
    "file",
    "document_id",
    "policy_id",
    "title",
    "jurisdiction",
    "effective_date",
    "version",
    "source_uri",
    "acl_groups",
    "language",
    "overrides",
}
_DEFAULTABLE = _DOC_FIELDS - {"file", "document_id", "title", "overrides"}
_TOP_FIELDS = {"defaults", "documents", "include"}
# Always in effect unless the catalog says otherwise: folders without a catalog have no dates.
_BUILTIN_DEFAULTS: dict[str, Any] = {
    "jurisdiction": "US-ALL",
    "acl_groups": ["employees"],
    "language": "en",
    "version": "1",
    "effective_date": date(1970, 1, 1),
}


class _CatalogLoader(yaml.SafeLoader):
    """YAML without implicit timestamps: dates stay strings and ``_check`` parses them per document,
    so ``2026-02-30`` or ``2026-01-01 10:30`` fails that one entry instead of the whole catalog."""


_CatalogLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

# Ids as HR systems write them ("BEN-2026-HLTH-01", "PERKS-CA", "handbook"): letters of either case,
# digits, "." "_" "-". Case-sensitive: "PERKS-CA" and "perks-ca" are two documents, and a point id
# (UUIDv5 of the chunk id) never changes for a given spelling.
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_JURISDICTION_RE = re.compile(r"^US-(ALL|[A-Z]{2})$")
_LANGUAGE_RE = re.compile(r"^[a-z]{2}$")
_GROUP_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")


@dataclass
class Catalog:
    root: Path
    documents: list[DocumentMeta] = field(default_factory=list)
    errors: list[CatalogError] = field(default_factory=list)

    def path_of(self, meta: DocumentMeta) -> Path:
        return self.root / meta.file


def derive_document_id(relative_path: str) -> str:
    stem = Path(relative_path).with_suffix("").as_posix()
    slug = re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")
    return slug or "document"


def _title_from(root: Path, relative_path: str) -> str:
    """A markdown file's first heading (its title as written), else words from the file name."""
    if Path(relative_path).suffix.lower() in (".md", ".markdown"):
        heading = first_heading(root / relative_path)
        if heading:
            return heading
    return re.sub(r"[_-]+", " ", Path(relative_path).stem).strip()


def _check(file: str, name: str, value: Any) -> Any:
    """Validate and normalise one field; raise CatalogError naming the file and field."""
    if name in {"document_id", "policy_id"}:
        if not isinstance(value, str) or not _ID_RE.match(value):
            raise CatalogError(file, name, f"{value!r} is not a valid id (letters, digits, . _ -; at most 128)")
        return value
    if name == "title":
        if not isinstance(value, str) or not value.strip():
            raise CatalogError(file, name, "must be a non-empty string")
        return value.strip()
    if name == "jurisdiction":
        if not isinstance(value, str) or not _JURISDICTION_RE.match(value):
            raise CatalogError(file, name, f"{value!r} is not US-ALL or US-<state code>")
        return value
    if name == "effective_date":
        if isinstance(value, date):
            return value
        try:
            return date.fromisoformat(str(value))
        except ValueError:
            raise CatalogError(file, name, f"{value!r} is not a date (YYYY-MM-DD)") from None
    if name == "version":
        if isinstance(value, float):  # `version: 2.10` would silently become "2.1"
            raise CatalogError(file, name, f"{value!r} reads as a number; quote the version as written")
        if isinstance(value, bool) or not isinstance(value, (str, int, float)) or str(value).strip() == "":
            raise CatalogError(file, name, f"{value!r} is not a version string")
        return str(value)
    if name == "source_uri":
        if not isinstance(value, str) or not re.match(r"^(https?|file)://\S+$", value):
            raise CatalogError(file, name, f"{value!r} is not an http(s) or file URI")
        return value
    if name == "acl_groups":
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(g, str) and _GROUP_RE.match(g) for g in value)
        ):
            raise CatalogError(file, name, "must be a non-empty list of group names")
        return tuple(value)
    if name == "language":
        if not isinstance(value, str) or not _LANGUAGE_RE.match(value):
            raise CatalogError(file, name, f"{value!r} is not a two-letter language code")
        return value
    if name == "overrides":
        if not isinstance(value, list) or not all(isinstance(v, str) and _ID_RE.match(v) for v in value):
            raise CatalogError(file, name, "must be a list of document ids")
        return tuple(value)
    raise CatalogError(file, name, "unknown field")


def _build(file: str, entry: dict[str, Any], defaults: dict[str, Any], root: Path) -> DocumentMeta:
    unknown = sorted(set(entry) - _DOC_FIELDS)
    if unknown:
        raise CatalogError(file, unknown[0], "unknown field")
    merged: dict[str, Any] = {**defaults, **entry}
    merged.setdefault("document_id", derive_document_id(file))
    merged.setdefault("policy_id", merged["document_id"])
    if "title" not in merged:
        merged["title"] = _title_from(root, file)
    merged.setdefault("source_uri", (root / file).resolve().as_uri())
    values = {name: _check(file, name, merged[name]) for name in sorted(_DOC_FIELDS - {"file"}) if name in merged}
    if not (root / file).is_file():
        raise CatalogError(file, "file", "no such file")
    return DocumentMeta(file=file, **values)


def discover_files(root: Path, include: tuple[str, ...] = DEFAULT_INCLUDE) -> list[str]:
    found: set[str] = set()
    for pattern in include:
        for path in root.glob(pattern):
            if path.is_file() and path.suffix.lower() in SUPPORTED_SUFFIXES and path.name.lower() != "readme.md":
                found.add(path.relative_to(root).as_posix())
    return sorted(found)


def load_catalog(root: Path) -> Catalog:
    """Read ``root/catalog.yaml`` (if any) and match it with the files under ``root``."""
    root = root.resolve()
    catalog = Catalog(root=root)
    raw: dict[str, Any] = {}
    catalog_path = root / CATALOG_NAME
    if catalog_path.exists():
        try:
            loaded = yaml.load(catalog_path.read_text(encoding="utf-8"), Loader=_CatalogLoader) or {}
        except yaml.YAMLError as exc:
            raise CatalogError(CATALOG_NAME, "-", f"not valid YAML: {exc}") from exc
        if not isinstance(loaded, dict):
            raise CatalogError(CATALOG_NAME, "-", "must be a mapping with defaults: and documents:")
        unknown = sorted(set(loaded) - _TOP_FIELDS)
        if unknown:
            raise CatalogError(CATALOG_NAME, unknown[0], "unknown top-level field")
        raw = loaded

    defaults = dict(_BUILTIN_DEFAULTS)
    user_defaults = raw.get("defaults") or {}
    if not isinstance(user_defaults, dict):
        raise CatalogError(CATALOG_NAME, "defaults", "must be a mapping")
    for name, value in user_defaults.items():
        if name not in _DEFAULTABLE:
            raise CatalogError(CATALOG_NAME, f"defaults.{name}", "unknown or not defaultable field")
        defaults[name] = _check(CATALOG_NAME, name, value)
        if isinstance(defaults[name], tuple):
            defaults[name] = list(defaults[name])

    include = raw.get("include") or list(DEFAULT_INCLUDE)
    if not isinstance(include, list) or not all(isinstance(p, str) for p in include):
        raise CatalogError(CATALOG_NAME, "include", "must be a list of glob patterns")

    entries = raw.get("documents") or []
    if not isinstance(entries, list):
        raise CatalogError(CATALOG_NAME, "documents", "must be a list")

    seen_ids: dict[str, str] = {}
    described: set[str] = set()
    candidates: list[tuple[str, dict[str, Any]]] = []
    for position, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            catalog.errors.append(CatalogError(CATALOG_NAME, f"documents[{position}].file", "missing"))
            continue
        if entry["file"] in described:
            catalog.errors.append(CatalogError(entry["file"], f"documents[{position}].file", "listed twice"))
            continue
        described.add(entry["file"])
        candidates.append((entry["file"], {k: v for k, v in entry.items() if k != "file"}))
    for file in discover_files(root, tuple(include)):
        if file not in described:
            candidates.append((file, {}))

    for file, entry in candidates:
        try:
            meta = _build(file, entry, defaults, root)
        except CatalogError as error:
            catalog.errors.append(error)
            continue
        if meta.document_id in seen_ids:
            catalog.errors.append(
                CatalogError(
                    file,
                    "document_id",
                    f"duplicate id {meta.document_id!r} (also used by {seen_ids[meta.document_id]})",
                )
            )
            continue
        seen_ids[meta.document_id] = file
        catalog.documents.append(meta)

    known = set(seen_ids)
    valid: list[DocumentMeta] = []
    for meta in catalog.documents:
        missing = [o for o in meta.overrides if o not in known]
        if missing:
            catalog.errors.append(CatalogError(meta.file, "overrides", f"unknown document id {missing[0]!r}"))
            continue
        valid.append(meta)
    catalog.documents = valid
    return catalog
