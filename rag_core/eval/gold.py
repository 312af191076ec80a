"""Gold rows and how a retrieved chunk is matched to a listed source page."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rag_core.errors import InvalidInput
from rag_core.types import split_chunk_id


class GoldUser(BaseModel):
    model_config = ConfigDict(extra="forbid")

    groups: list[str] = Field(default_factory=lambda: ["employees"])
    state: str | None = None
    language: str | None = None


class GoldRow(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    question: str
    expect: Literal["answer", "abstain", "conflict"]
    sources: list[str] = Field(default_factory=list)
    must_include: list[str] = Field(default_factory=list)
    must_not_include: list[str] = Field(default_factory=list)  # e.g. a superseded amount, a canary
    user: GoldUser = Field(default_factory=GoldUser)
    as_of: date | None = None
    category: str | None = None


def load_gold(path: Path) -> list[GoldRow]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(GoldRow.model_validate(json.loads(line)))
            except (ValueError, json.JSONDecodeError) as exc:
                raise InvalidInput(f"{path}:{number}: invalid gold row: {exc}") from exc
    return rows


class AnswerLabel(BaseModel):
    """Answer strings for a gold row kept in a separate file: a third-party question set (Contoso)
    stays outside the repository, its answer labels do not."""

    model_config = ConfigDict(extra="forbid")

    id: str
    must_include: list[str]


def apply_labels(rows: list[GoldRow], path: Path) -> list[GoldRow]:
    """Rows with ``must_include`` replaced by the labels in ``path`` (JSONL of ``AnswerLabel``),
    matched by id. A label for an id the gold set lacks is an error: a typo must not silently
    shrink the measured set."""
    labels: dict[str, AnswerLabel] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                label = AnswerLabel.model_validate(json.loads(line))
            except (ValueError, json.JSONDecodeError) as exc:
                raise InvalidInput(f"{path}:{number}: invalid answer label: {exc}") from exc
            labels[label.id] = label
    unknown = sorted(set(labels) - {row.id for row in rows})
    if unknown:
        raise InvalidInput(f"{path}: labels for ids not in the gold set: {', '.join(unknown)}")
    return [
        row.model_copy(update={"must_include": labels[row.id].must_include}) if row.id in labels else row
        for row in rows
    ]


def parse_source(source: str) -> tuple[str, int]:
    file, _, fragment = source.partition("#page=")
    return file, int(fragment or 1)


def chunk_location(chunk_id: str, files: dict[str, str]) -> tuple[str, int] | None:
    """(file, page) of a chunk id, through the manifest's document_id -> file map."""
    parsed = split_chunk_id(chunk_id)
    if not parsed or parsed[0] not in files:
        return None
    return files[parsed[0]], parsed[1]


def matches(location: tuple[str, int] | None, sources: list[str], tolerance: int = 1) -> bool:
    """Same file (by path or base name) and a page within ``tolerance`` of a listed page."""
    if location is None:
        return False
    file, page = location
    for source in sources:
        wanted_file, wanted_page = parse_source(source)
        same_file = file == wanted_file or Path(file).name == Path(wanted_file).name
        if same_file and abs(page - wanted_page) <= tolerance:
            return True
    return False
