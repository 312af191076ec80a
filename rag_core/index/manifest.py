"""The index's own record of what it holds: which model built it and which file revisions.

Stored with the index (a JSON file beside the Edge shard, a side collection on a server), so the
index and its manifest cannot drift apart across machines.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from rag_core.errors import IndexModelMismatch
from rag_core.index.base import VectorIndex
from rag_core.types import DocumentMeta

SCHEMA = 1
# Bumped whenever extraction or the ingest screen changes what a document's chunks hold: a record
# made by an older version is re-extracted (and the index version changes, dropping cached answers).
# 2: invisible text dropped, instruction-like sentences quarantined; 3: markdown emphasis, links and
# images as plain text (rag_core/markdown.py).
EXTRACTION_VERSION = "3"


def screen_fingerprint(link_hosts: list[str] | tuple[str, ...]) -> str:
    """Identifies the ingest screen a document went through: same fingerprint, same chunks."""
    material = json.dumps({"extraction": EXTRACTION_VERSION, "hosts": sorted(set(link_hosts))})
    return hashlib.sha256(material.encode()).hexdigest()[:12]


def meta_hash(meta: DocumentMeta) -> str:
    return hashlib.sha256(meta.model_dump_json().encode()).hexdigest()[:16]


@dataclass
class DocumentRecord:
    meta: DocumentMeta
    root: str
    sha256: str
    meta_hash: str
    chunk_ids: list[str]
    pages: int
    pages_without_text: list[int] = field(default_factory=list)
    vocabulary: dict[str, int] = field(default_factory=dict)  # for query spelling correction
    # What the ingest screen removed (reported again when the document is unchanged), and the
    # screen it went through: extraction version and link allow-list ("" for older records).
    invisible_text: list[dict[str, Any]] = field(default_factory=list)
    quarantined: list[dict[str, Any]] = field(default_factory=list)
    screen: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "meta": self.meta.model_dump(mode="json"),
            "root": self.root,
            "sha256": self.sha256,
            "meta_hash": self.meta_hash,
            "chunk_ids": self.chunk_ids,
            "pages": self.pages,
            "pages_without_text": self.pages_without_text,
            "vocabulary": self.vocabulary,
            "invisible_text": self.invisible_text,
            "quarantined": self.quarantined,
            "screen": self.screen,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DocumentRecord:
        return cls(
            meta=DocumentMeta.model_validate(data["meta"]),
            root=data["root"],
            sha256=data["sha256"],
            meta_hash=data["meta_hash"],
            chunk_ids=list(data["chunk_ids"]),
            pages=int(data["pages"]),
            pages_without_text=list(data.get("pages_without_text", [])),
            vocabulary=dict(data.get("vocabulary", {})),
            invisible_text=list(data.get("invisible_text", [])),
            quarantined=list(data.get("quarantined", [])),
            screen=str(data.get("screen", "")),
        )


@dataclass
class Manifest:
    embedding_model: str
    dimension: int
    documents: dict[str, DocumentRecord] = field(default_factory=dict)
    # The token-vector model of the late-interaction rerank ("answerai-colbert-small-v1"), or None:
    # every point carries its vectors, or none does (an index from before them records None).
    late_model: str | None = None
    late_dimension: int = 0

    @property
    def index_version(self) -> str:
        """Changes whenever any document's content or metadata does; keys answer caches."""
        parts = sorted(f"{d}:{r.sha256}:{r.meta_hash}:{r.screen}" for d, r in self.documents.items())
        models = self.embedding_model + (f"+{self.late_model}" if self.late_model else "")
        return hashlib.sha256(f"{models}|{'|'.join(parts)}".encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "embedding_model": self.embedding_model,
            "dimension": self.dimension,
            "late_model": self.late_model,
            "late_dimension": self.late_dimension,
            "index_version": self.index_version,
            "documents": {k: v.to_json() for k, v in sorted(self.documents.items())},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        docs = data.get("documents", {})
        if isinstance(docs, str):  # some stores hand nested JSON back as text
            docs = json.loads(docs)
        return cls(
            embedding_model=data["embedding_model"],
            dimension=int(data["dimension"]),
            documents={k: DocumentRecord.from_json(v) for k, v in docs.items()},
            late_model=data.get("late_model"),
            late_dimension=int(data.get("late_dimension") or 0),
        )

    def require_model(self, model_name: str, dimension: int) -> None:
        if self.embedding_model != model_name or self.dimension != dimension:
            raise IndexModelMismatch(
                f"the index was built with {self.embedding_model} ({self.dimension}-d) but the configured "
                f"embedding model is {model_name} ({dimension}-d); re-ingest into a fresh data dir "
                f"(or collection) with this model, or configure {self.embedding_model} again"
            )

    def require_late_model(self, model_name: str | None, dimension: int, *, writing: bool) -> None:
        """Token vectors are all-or-nothing. Writing (ingest) needs the index's own late model, or
        none on both sides: a point without vectors would silently drop out of the MaxSim stage.
        Reading with a late model needs an index that stores its vectors; reading without one
        just leaves them unused."""
        if model_name is None and not writing:
            return
        if self.late_model == model_name and (model_name is None or self.late_dimension == dimension):
            return
        built = f"{self.late_model} ({self.late_dimension}-d) token vectors" if self.late_model else "no token vectors"
        wanted = f"{model_name} ({dimension}-d)" if model_name else "none (LATE_INTERACTION=none)"
        raise IndexModelMismatch(
            f"the index was built with {built} for the late-interaction rerank but the configured late-interaction "
            f"model is {wanted}; re-ingest into a fresh data dir (or collection) with this setting, "
            f"or set LATE_INTERACTION={'colbert' if self.late_model else 'none'}"
        )


async def load_manifest(index: VectorIndex) -> Manifest | None:
    """The manifest stored with ``index``, or None for an index nobody has ingested into yet."""
    raw = await index.read_meta()
    return Manifest.from_json(raw) if raw else None
