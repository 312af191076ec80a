"""Scope: the signed token (and the audience's) becomes the mandatory pre-filter; a document the
question names narrows the candidates to it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from rag_core.access import verify_token
from rag_core.index.base import AccessFilter
from rag_core.language import detect_language
from rag_core.pipeline.base import StageBase
from rag_core.pipeline.corpus import CorpusView
from rag_core.pipeline.state import QueryState
from rag_core.siblings import DocumentWords, ruled_out
from rag_core.types import AbstainReason


class ScopeStage(StageBase):
    """Verify every token before the index is touched (``AccessDenied`` otherwise), then build the
    filter: groups any-of per member, jurisdictions, the as-of date, and the documents that are
    superseded, overridden or translated away for this scope. A member without groups: abstain."""

    name = "scope"

    def __init__(self, signing_key: str, corpus: CorpusView, today: Callable[[], date]) -> None:
        self._key = signing_key
        self.corpus = corpus
        self.today = today

    async def run(self, state: QueryState) -> None:
        state.claims = verify_token(self._key, state.token)
        state.audience = [verify_token(self._key, t) for t in state.audience_tokens]
        manifest = await self.corpus.manifest()
        state.index_version = manifest.index_version
        members = [state.claims, *state.audience]
        if any(not member.acl_groups for member in members):
            state.abstain(AbstainReason.NO_ACCESS, self.name)
            return
        day = state.as_of or self.today()
        base = AccessFilter(
            group_sets=tuple(frozenset(m.acl_groups) for m in members),
            jurisdiction_sets=tuple(frozenset(m.jurisdictions) for m in members),
            as_of=day,
            language=state.claims.language,
        )
        state.language = state.claims.language or detect_language(state.question)
        exclusions = self.corpus.registry.exclusions(base, state.language)
        state.access = AccessFilter(base.group_sets, base.jurisdiction_sets, day, exclusions, state.claims.language)


class NamedDocumentStage(StageBase):
    """A question that names one of two look-alike documents ("…on northwind standard", "my health
    plus plan") keeps only candidates of documents it does not rule out (``rag_core.siblings``),
    before the context budget picks its chunks, so the reader, the answer and its citations stay on
    the named plan. Only narrows: when every candidate would go, they all stay (the gates decide).
    Reads the documents this scope may see only, so an invisible document's title never matters."""

    name = "named"

    def __init__(self, corpus: CorpusView) -> None:
        self.corpus = corpus

    async def run(self, state: QueryState) -> None:
        manifest = await self.corpus.manifest()
        documents = {
            document_id: DocumentWords(
                manifest.documents[document_id].meta.title, manifest.documents[document_id].vocabulary
            )
            for document_id in self.corpus.searchable(state.require_access())
        }
        out = ruled_out(state.query or state.question, documents)
        kept = [c for c in state.candidates if c.document_id not in out]
        if kept:
            state.candidates = kept
