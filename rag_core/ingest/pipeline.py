"""``benefitsbot ingest PATH``: incremental, per-document, never half-written.

A document's new chunks are fully extracted and embedded in memory before anything is written;
only then are they upserted and its stale chunks deleted. A file that fails (corrupt PDF, bad
metadata) is reported and its previous chunks keep serving.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from rag_core.catalog import load_catalog
from rag_core.digest import file_sha256
from rag_core.embeddings import EmbeddingProvider, TokenEncoder, build_embedder, build_late_encoder
from rag_core.errors import BenefitsBotError
from rag_core.index.base import IndexPoint, VectorIndex, as_datetime, point_id_for, token_vectors
from rag_core.index.manifest import (
    DocumentRecord,
    Manifest,
    load_manifest,
    meta_hash,
    screen_fingerprint,
)
from rag_core.ingest.chunking import chunk_document
from rag_core.ingest.extract import Extracted, extract
from rag_core.ingest.quarantine import Screen
from rag_core.models.runtime import usable_cores
from rag_core.settings import CoreSettings
from rag_core.sparse import bm25_document
from rag_core.spelling import vocabulary_of
from rag_core.types import Chunk, DocumentMeta

INGESTED, UNCHANGED, EMPTY, FAILED, REMOVED = "ingested", "unchanged", "empty", "failed", "removed"


@dataclass
class FileResult:
    """What happened to one file (``ingest --json`` lists them all)."""

    file: str
    document_id: str
    status: str  # ingested | unchanged | empty | failed | removed
    pages: int = 0
    chunks: int = 0
    unsearchable_pages: list[int] = field(default_factory=list)
    reason: str = ""


@dataclass
class IngestSummary:
    documents: int = 0
    ingested: int = 0
    skipped: int = 0
    removed: int = 0
    empty: int = 0
    pages: int = 0
    chunks: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    pages_without_text: dict[str, list[int]] = field(default_factory=dict)
    # Per document: invisible text dropped; sentences quarantined as instructions or foreign links (page, reason, text).
    invisible_text: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    quarantined: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    seconds: float = 0.0
    index_version: str = ""
    files: list[FileResult] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["files"] = [f.__dict__.copy() for f in self.files]
        return data

    def render(self) -> str:
        lines = [
            f"documents: {self.documents} ({self.ingested} ingested, {self.skipped} unchanged, "
            f"{self.removed} removed, {self.empty} empty, {len(self.failed)} failed)",
            f"pages: {self.pages}   chunks: {self.chunks}   seconds: {self.seconds:.1f}",
        ]
        for result in self.files:
            if result.status == EMPTY:
                lines.append(f"EMPTY {result.file}: {result.reason}")
        for failure in self.failed:
            lines.append(f"FAILED {failure['file']}: {failure['error']}")
        for doc, pages in sorted(self.pages_without_text.items()):
            lines.append(f"not searchable (no text layer): {doc} page(s) {', '.join(map(str, pages))}")
        for label, findings in (
            ("invisible text dropped", self.invisible_text),
            ("quarantined", self.quarantined),  # the reason says which: an instruction, or a foreign link
        ):
            for doc, items in sorted(findings.items()):
                for item in items:
                    lines.append(f"{label}: {doc} page {item['page']} ({item['reason']}): {_excerpt(item['text'])}")
        hosts = Counter(host for items in self.quarantined.values() for item in items for host in item.get("hosts", []))
        if hosts:
            # Named, never offered as a value to paste: a planted phishing link lands in this list too.
            named = ", ".join(
                f"{host} ({count})" for host, count in sorted(hosts.items(), key=lambda kv: (-kv[1], kv[0]))
            )
            lines.append(
                f"links outside the documents' own sites were quarantined, to {len(hosts)} host(s): {named}. "
                "Trust a host only if it is one of your vendors (TRUSTED_LINK_HOSTS), then ingest again."
            )
        return "\n".join(lines)

    def fail(self, file: str, document_id: str, reason: str) -> None:
        self.failed.append({"file": file, "error": reason})
        self.files.append(FileResult(file, document_id, FAILED, reason=reason))

    def note(self, record: DocumentRecord) -> None:
        """Add one document's page and screen findings."""
        document_id = record.meta.document_id
        if record.pages_without_text:
            self.pages_without_text[document_id] = record.pages_without_text
        if record.invisible_text:
            self.invisible_text[document_id] = record.invisible_text
        if record.quarantined:
            self.quarantined[document_id] = record.quarantined


def _excerpt(text: str, limit: int = 100) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def chunk_payload(meta: DocumentMeta, chunk: Chunk, revision_hash: str) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id,
        "document_id": meta.document_id,
        "policy_id": meta.policy_id,
        "title": meta.title,
        "page_number": chunk.page_number,
        "content": chunk.content,
        "jurisdiction": meta.jurisdiction,
        "effective_date": as_datetime(meta.effective_date),
        "version": meta.version,
        "acl_groups": list(meta.acl_groups),
        "language": meta.language,
        "source_uri": meta.source_uri,
        "revision_hash": revision_hash,
        "anchor": chunk.anchor,
        "token_count": chunk.token_count,
    }


class Ingestor:
    def __init__(
        self,
        index: VectorIndex,
        embedder: EmbeddingProvider,
        *,
        late: TokenEncoder | None = None,
        chunk_tokens: int = 400,
        chunk_overlap: int = 40,
        progress: bool = True,
        link_hosts: Sequence[str] = (),
        parse_workers: int | None = None,
    ) -> None:
        """``link_hosts``: hosts (or URLs) besides a document's own that its text may link to, such as
        the HR contact's; a sentence linking anywhere else is quarantined. ``parse_workers``: processes
        parsing files side by side (default: one per usable core)."""
        self.index = index
        self.embedder = embedder
        self.late = late  # token vectors for the late-interaction rerank, stored with every chunk
        self.link_hosts = tuple(link_hosts)
        self.screen = screen_fingerprint(self.link_hosts)
        self.chunk_tokens = chunk_tokens
        self.chunk_overlap = chunk_overlap
        self.progress = progress
        self.parse_workers = max(1, parse_workers or usable_cores())

    @classmethod
    def from_settings(cls, index: VectorIndex, settings: CoreSettings, *, progress: bool = True) -> Ingestor:
        """The configured models and chunking (the CLI, the eval harness and the benchmarks)."""
        return cls(
            index,
            build_embedder(settings),
            late=build_late_encoder(settings),
            chunk_tokens=settings.chunk_tokens,
            chunk_overlap=settings.chunk_overlap,
            progress=progress,
            link_hosts=settings.link_hosts,
        )

    async def run(self, path: Path) -> IngestSummary:
        started = time.perf_counter()
        summary = IngestSummary()
        root = path.resolve()
        catalog = load_catalog(root)
        manifest = await load_manifest(self.index)
        late_model, late_dimension = (self.late.model_name, self.late.dimension) if self.late else (None, 0)
        if manifest is None:
            manifest = Manifest(
                self.embedder.model_name, self.embedder.dimension, late_model=late_model, late_dimension=late_dimension
            )
        manifest.require_model(self.embedder.model_name, self.embedder.dimension)
        manifest.require_late_model(late_model, late_dimension, writing=True)
        await self.index.prepare(self.embedder.dimension, late_dimension or None)

        for error in catalog.errors:
            summary.fail(error.file, "", str(error))
        summary.documents = len(catalog.documents) + len(catalog.errors)

        removed = self._removed(manifest, catalog.documents, root)
        for document_id in removed:
            record = manifest.documents[document_id]
            await self.index.delete([point_id_for(c) for c in record.chunk_ids])
            del manifest.documents[document_id]
            summary.removed += 1
            summary.files.append(
                FileResult(
                    record.meta.file, document_id, REMOVED, reason="the file is gone (or now carries another id)"
                )
            )
        if removed:
            await self.index.write_meta(manifest.to_json())

        revisions: dict[str, str | OSError] = {}
        for meta in catalog.documents:
            try:
                revisions[meta.document_id] = file_sha256(catalog.path_of(meta))
            except OSError as exc:
                revisions[meta.document_id] = exc
        changed = [
            m
            for m in catalog.documents
            if not self._unchanged(manifest.documents.get(m.document_id), m, revisions[m.document_id])
        ]

        # PDF parsing (pure Python, CPU-bound) runs in worker processes, ahead of the embedding of
        # earlier documents in this one: parsing and the models overlap instead of adding up, and
        # while the first document is parsed the other cores parse the next ones.
        pool: ProcessPoolExecutor | None = None
        if changed:
            context = multiprocessing.get_context("spawn")
            pool = ProcessPoolExecutor(max_workers=min(self.parse_workers, len(changed)), mp_context=context)
        pending = {
            m.document_id: pool.submit(extract, catalog.path_of(m))
            for m in changed
            if pool and not isinstance(revisions[m.document_id], OSError)
        }
        try:
            bar = tqdm(catalog.documents, desc="ingest", unit="doc", disable=not self.progress, leave=False)
            for meta in bar:
                bar.set_postfix_str(meta.document_id[:40])
                await self._ingest_one(
                    meta,
                    catalog.path_of(meta),
                    revisions[meta.document_id],
                    manifest,
                    pending.get(meta.document_id),
                    root,
                    summary,
                )
            bar.close()
        finally:
            if pool:
                pool.shutdown(wait=True, cancel_futures=True)  # reap the workers: no stray processes
        summary.index_version = manifest.index_version
        summary.seconds = time.perf_counter() - started
        return summary

    def _unchanged(self, record: DocumentRecord | None, meta: DocumentMeta, revision: str | OSError) -> bool:
        return (
            record is not None
            and not isinstance(revision, OSError)
            and record.sha256 == revision
            and record.meta_hash == meta_hash(meta)
            and bool(record.vocabulary)
            and record.screen == self.screen
        )

    async def _ingest_one(
        self,
        meta: DocumentMeta,
        source: Path,
        revision: str | OSError,
        manifest: Manifest,
        extraction: Future[Extracted] | None,
        root: Path,
        summary: IngestSummary,
    ) -> None:
        previous = manifest.documents.get(meta.document_id)
        if isinstance(revision, OSError):
            summary.fail(meta.file, meta.document_id, f"cannot read: {revision}")
            return
        if previous is not None and self._unchanged(previous, meta, revision):
            summary.skipped += 1
            summary.pages += previous.pages
            summary.chunks += len(previous.chunk_ids)
            summary.note(previous)
            summary.files.append(
                FileResult(
                    meta.file,
                    meta.document_id,
                    UNCHANGED,
                    previous.pages,
                    len(previous.chunk_ids),
                    list(previous.pages_without_text),
                )
            )
            return
        try:
            try:
                extracted = await asyncio.wrap_future(extraction) if extraction else extract(source)
            except BrokenProcessPool:  # a worker died (e.g. out of memory): parse here instead
                extracted = extract(source)
            if not extracted.blocks:
                await self._empty(meta, extracted, previous, manifest, summary)
                return
            record = await self._ingest_document(meta, extracted, revision, str(root), previous)
        except (BenefitsBotError, OSError) as exc:
            summary.fail(meta.file, meta.document_id, str(exc))
            return
        manifest.documents[meta.document_id] = record
        await self.index.write_meta(manifest.to_json())  # after each document: a crash loses nothing
        summary.ingested += 1
        summary.pages += record.pages
        summary.chunks += len(record.chunk_ids)
        summary.note(record)
        summary.files.append(
            FileResult(
                meta.file,
                meta.document_id,
                INGESTED,
                record.pages,
                len(record.chunk_ids),
                list(record.pages_without_text),
            )
        )

    async def _empty(
        self,
        meta: DocumentMeta,
        extracted: Extracted,
        previous: DocumentRecord | None,
        manifest: Manifest,
        summary: IngestSummary,
    ) -> None:
        """A file with no text at all is reported, never indexed: an empty document would count as a
        document (and, as a newer version of a policy, hide the older one from search). A document
        that became empty stops serving its old text."""
        reason = (
            "no text on any page (scanned or image-only?)"
            if meta.file.lower().endswith(".pdf")
            else "the file has no text"
        )
        if previous is not None:
            await self.index.delete([point_id_for(c) for c in previous.chunk_ids])
            del manifest.documents[meta.document_id]
            await self.index.write_meta(manifest.to_json())
            reason += "; its previous version was removed from the index"
        summary.empty += 1
        summary.files.append(
            FileResult(
                meta.file, meta.document_id, EMPTY, extracted.pages, 0, list(extracted.pages_without_text), reason
            )
        )

    @staticmethod
    def _removed(manifest: Manifest, documents: list[DocumentMeta], root: Path) -> list[str]:
        """Documents of this folder whose file is gone, or whose file now carries another id."""
        claimed = {meta.file: meta.document_id for meta in documents}
        gone = []
        for document_id, record in manifest.documents.items():
            if record.root != str(root):
                continue
            file = record.meta.file
            if not (root / file).exists() or (file in claimed and claimed[file] != document_id):
                gone.append(document_id)
        return gone

    async def _token_vectors(self, texts: list[str]) -> list[list[list[float]] | None]:
        """Each chunk's token vectors (None without late interaction), encoded while the dense model
        embeds the same chunks: both fan their chunks out over the models' shared worker pool."""
        if self.late is None or not texts:
            return [None] * len(texts)
        return [token_vectors(m) for m in await asyncio.to_thread(self.late.encode_documents, texts)]

    async def _ingest_document(
        self, meta: DocumentMeta, extracted: Extracted, revision: str, root: str, previous: DocumentRecord | None
    ) -> DocumentRecord:
        screen = Screen.for_hosts([meta.source_uri, *self.link_hosts])
        policy_text = screen.apply(extracted)
        chunks = chunk_document(meta, policy_text, max_tokens=self.chunk_tokens, overlap=self.chunk_overlap)
        texts = [c.content for c in chunks]
        vectors, late = await asyncio.gather(self.embedder.embed_documents(texts), self._token_vectors(texts))
        points = [
            IndexPoint(
                point_id_for(chunk.chunk_id),
                vector,
                bm25_document(chunk.content),
                chunk_payload(meta, chunk, revision),
                tokens,
            )
            for chunk, vector, tokens in zip(chunks, vectors, late, strict=True)
        ]
        await self.index.upsert(points)
        new_ids = [c.chunk_id for c in chunks]
        if previous:
            stale = sorted(set(previous.chunk_ids) - set(new_ids))
            await self.index.delete([point_id_for(c) for c in stale])
        return DocumentRecord(
            meta=meta,
            root=root,
            sha256=revision,
            meta_hash=meta_hash(meta),
            chunk_ids=new_ids,
            pages=extracted.pages,
            pages_without_text=extracted.pages_without_text,
            vocabulary=vocabulary_of(c.content for c in chunks),
            invisible_text=[h.to_json() for h in extracted.hidden],
            quarantined=[q.to_json() for q in screen.found],
            screen=self.screen,
        )
