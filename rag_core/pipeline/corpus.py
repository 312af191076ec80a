"""The index's current contents as the answer path needs them: manifest, document registry and
per-scope spelling vocabularies, reloaded when a re-ingest changes the index version."""

from __future__ import annotations

import asyncio
import time

from rag_core.errors import IndexUnavailable
from rag_core.index.base import AccessFilter, VectorIndex
from rag_core.index.manifest import Manifest, load_manifest
from rag_core.registry import Registry, visible
from rag_core.spelling import QueryCorrector


class CorpusView:
    manifest_ttl_s = 5.0

    def __init__(
        self,
        index: VectorIndex,
        model_name: str,
        dimension: int,
        *,
        late_model: str | None = None,
        late_dimension: int = 0,
        verb_forms: bool = False,
    ) -> None:
        self.index = index
        self.verb_forms = verb_forms  # the spelling vocabulary's word forms (``QueryCorrector``)
        self.model_name = model_name
        self.dimension = dimension
        self.late_model = late_model  # the token encoder's, when late interaction is on
        self.late_dimension = late_dimension
        self.registry = Registry.of(())
        self._manifest: Manifest | None = None
        self._loaded_at = 0.0
        self._lock = asyncio.Lock()
        self._correctors: dict[frozenset[str], QueryCorrector] = {}

    async def manifest(self) -> Manifest:
        """The manifest, re-read at most every ``manifest_ttl_s`` so a re-ingest is picked up."""
        if self._manifest is not None and time.monotonic() - self._loaded_at < self.manifest_ttl_s:
            return self._manifest
        async with self._lock:
            if self._manifest is None or time.monotonic() - self._loaded_at >= self.manifest_ttl_s:
                manifest = await load_manifest(self.index)
                if manifest is None:
                    raise IndexUnavailable("the index is empty; run `benefitsbot ingest PATH` first")
                manifest.require_model(self.model_name, self.dimension)
                manifest.require_late_model(self.late_model, self.late_dimension, writing=False)
                if self._manifest is None or manifest.index_version != self._manifest.index_version:
                    # A re-ingest happened: new documents, new precedence, new vocabulary.
                    self._manifest = manifest
                    self.registry = Registry.of(r.meta for r in manifest.documents.values())
                    self._correctors = {}
                self._loaded_at = time.monotonic()
        assert self._manifest is not None
        return self._manifest

    async def index_version(self) -> str:
        return (await self.manifest()).index_version

    def searchable(self, access: AccessFilter) -> frozenset[str]:
        """Ids of the documents this scope may search: visible and not excluded (superseded, overridden,
        translated away). What the vocabulary-based steps (spelling, named documents) may read."""
        return frozenset(
            d.document_id
            for d in self.registry.documents
            if d.document_id not in access.exclude_document_ids and visible(d, access)
        )

    def corrector_for(self, access: AccessFilter) -> QueryCorrector:
        """Spelling correction from the vocabulary of the documents this scope may search only."""
        if self._manifest is None:
            raise RuntimeError("corrector_for() before the manifest was loaded")
        searchable = self.searchable(access)
        corrector = self._correctors.get(searchable)
        if corrector is None:
            vocabulary: dict[str, int] = {}
            for document_id in sorted(searchable):  # a frozenset's order changes from process to process
                for word, count in self._manifest.documents[document_id].vocabulary.items():
                    vocabulary[word] = vocabulary.get(word, 0) + count
            corrector = QueryCorrector(vocabulary, verb_forms=self.verb_forms)
            if len(self._correctors) > 64:
                self._correctors.clear()
            self._correctors[searchable] = corrector
        return corrector
