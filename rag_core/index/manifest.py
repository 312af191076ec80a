"""The index's own record of what it holds: which model built it and which file revisions.

Stored with the index (a JSON file beside the Edge shard, a side collection on a server), so the
index and its manifest cannot drift apart across machines.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag_core.errors import IndexModelMismatch
from rag_core.index.base import VectorIndex
from rag_core.types import DocumentMeta

SCHEMA = 1


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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
    extractor: int = 0  # the extraction version that produced the chunks (rag_core.ingest.extract)

    def to_json(self) -> dict[str, Any]:
        return {"meta": self.meta.model_dump(mode="json"), "root": self.root, "sha256": self.sha256,
                "meta_hash": self.meta_hash, "chunk_ids": self.chunk_ids, "pages": self.pages,
                "pages_without_text": self.pages_without_text, "vocabulary": self.vocabulary,
                "extractor": self.extractor}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DocumentRecord:
        return cls(meta=DocumentMeta.model_validate(data["meta"]), root=data["root"], sha256=data["sha256"],
                   meta_hash=data["meta_hash"], chunk_ids=list(data["chunk_ids"]), pages=int(data["pages"]),
                   pages_without_text=list(data.get("pages_without_text", [])),
                   vocabulary=dict(data.get("vocabulary", {})), extractor=int(data.get("extractor", 0)))


@dataclass
class Manifest:
    embedding_model: str
    dimension: int
    documents: dict[str, DocumentRecord] = field(default_factory=dict)

    @property
    def index_version(self) -> str:
        """Changes whenever any document's content or metadata does; keys answer caches."""
        parts = sorted(f"{d}:{r.sha256}:{r.meta_hash}" for d, r in self.documents.items())
        return hashlib.sha256(f"{self.embedding_model}|{'|'.join(parts)}".encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "embedding_model": self.embedding_model, "dimension": self.dimension,
                "index_version": self.index_version,
                "documents": {k: v.to_json() for k, v in sorted(self.documents.items())}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        docs = data.get("documents", {})
        if isinstance(docs, str):  # some stores hand nested JSON back as text
            docs = json.loads(docs)
        return cls(embedding_model=data["embedding_model"], dimension=int(data["dimension"]),
                   documents={k: DocumentRecord.from_json(v) for k, v in docs.items()})

    def require_model(self, model_name: str, dimension: int) -> None:
        if self.embedding_model != model_name or self.dimension != dimension:
            raise IndexModelMismatch(
                f"the index was built with {self.embedding_model} ({self.dimension}-d) but the configured "
                f"embedding model is {model_name} ({dimension}-d); re-ingest into a fresh data dir "
                f"(or collection) with this model, or configure {self.embedding_model} again")


async def load_manifest(index: VectorIndex) -> Manifest | None:
    """The manifest stored with ``index``, or None for an index nobody has ingested into yet."""
    raw = await index.read_meta()
    return Manifest.from_json(raw) if raw else None
