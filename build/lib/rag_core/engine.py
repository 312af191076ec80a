"""The answer path: token -> pre-filter -> hybrid retrieval -> gate -> rerank -> context budget
-> precedence and amount conflicts -> generation -> citation validation -> Answer."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from rag_core.access import AccessClaims, verify_token
from rag_core.citations import CITATION, sentences, validate
from rag_core.conflicts import AmountConflict, find_amount_conflicts
from rag_core.context import select_context
from rag_core.embeddings import EmbeddingProvider, build_embedder
from rag_core.errors import BenefitsBotError, GenerationFailed, IndexUnavailable
from rag_core.generation import Generator, build_generator
from rag_core.index import AccessFilter, VectorIndex, open_index
from rag_core.ingest.manifest import Manifest
from rag_core.ingest.pipeline import load_manifest
from rag_core.language import detect_language
from rag_core.observability import log_question, query_log, user_hash
from rag_core.registry import Registry, visible
from rag_core.rerank import CohereReranker, FusedOrder, LexicalDenseReranker, Reranker
from rag_core.retrieval import HybridRetriever
from rag_core.settings import CoreSettings, get_settings
from rag_core.spelling import QueryCorrector, normalise_query, preload_dictionaries
from rag_core.tokens import encoding
from rag_core.types import AbstainReason, Answer, Candidate, Citation

AMOUNT_CONFLICT_NOTICE = ("The official documents state different amounts for this. Each is shown with its "
                          "source; please confirm with HR before relying on either.")
_FOLLOW_UP = re.compile(r"^\s*(and|what about|how about|what if|also|y|¿y|and for|same for)\b", re.IGNORECASE)


@dataclass
class Scope:
    claims: AccessClaims
    access: AccessFilter
    language: str


@dataclass
class Trace:
    """What happened to one question, for the Answer, the log line and the eval harness."""

    query_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    timings: dict[str, float] = field(default_factory=dict)
    candidates: list[Candidate] = field(default_factory=list)
    context: list[Candidate] = field(default_factory=list)

    def timed(self, stage: str, started: float) -> None:
        self.timings[stage] = round((time.perf_counter() - started) * 1000, 3)


def build_reranker(settings: CoreSettings) -> Reranker:
    choice = settings.reranker
    if choice == "cohere" or (choice == "auto" and settings.cohere_api_key):
        assert settings.cohere_api_key is not None
        return CohereReranker(settings.cohere_api_key.get_secret_value())
    if choice == "none":
        return FusedOrder()
    # Measured over the fused order (benchmarks/README.md): MRR 0.638 -> 0.686 on Contoso, 0.935 -> 0.945 on corpus/.
    return LexicalDenseReranker()


class Engine:
    manifest_ttl_s = 5.0

    def __init__(self, settings: CoreSettings, index: VectorIndex, embedder: EmbeddingProvider,
                 generator: Generator, reranker: Reranker | None = None) -> None:
        self.settings = settings
        self.index = index
        self.embedder = embedder
        self.generator = generator
        self.reranker = reranker or build_reranker(settings)
        self.retriever = HybridRetriever(index, embedder, candidates=settings.candidates)
        self.cutoff = settings.cutoff_for(embedder.model_name)
        self.unknown_word_cutoff = settings.unknown_word_cutoff_for(embedder.model_name)
        self._manifest: Manifest | None = None
        self._registry = Registry.of(())
        self._loaded_at = 0.0
        self._manifest_lock = asyncio.Lock()
        self._correctors: dict[frozenset[str], QueryCorrector] = {}

    @classmethod
    def from_settings(cls, settings: CoreSettings) -> Engine:
        return cls(settings, open_index(settings), build_embedder(settings), build_generator(settings))

    # -- index state -------------------------------------------------------------------------
    async def manifest(self) -> Manifest:
        if self._manifest is not None and time.monotonic() - self._loaded_at < self.manifest_ttl_s:
            return self._manifest
        async with self._manifest_lock:
            if self._manifest is None or time.monotonic() - self._loaded_at >= self.manifest_ttl_s:
                manifest = await load_manifest(self.index)
                if manifest is None:
                    raise IndexUnavailable("the index is empty; run `benefitsbot ingest PATH` first")
                manifest.require_model(self.embedder.model_name, self.embedder.dimension)
                if self._manifest is None or manifest.index_version != self._manifest.index_version:
                    # A re-ingest happened: new documents, new precedence, new vocabulary.
                    self._manifest = manifest
                    self._registry = Registry.of(r.meta for r in manifest.documents.values())
                    self._correctors = {}
                self._loaded_at = time.monotonic()
        assert self._manifest is not None
        return self._manifest

    async def index_version(self) -> str:
        return (await self.manifest()).index_version

    def corrector_for(self, access: AccessFilter) -> QueryCorrector:
        """Spelling correction from the vocabulary of the documents this scope may search only."""
        assert self._manifest is not None
        searchable = frozenset(d.document_id for d in self._registry.documents
                               if d.document_id not in access.exclude_document_ids and visible(d, access))
        corrector = self._correctors.get(searchable)
        if corrector is None:
            vocabulary: dict[str, int] = {}
            for document_id in searchable:
                for word, count in self._manifest.documents[document_id].vocabulary.items():
                    vocabulary[word] = vocabulary.get(word, 0) + count
            corrector = QueryCorrector(vocabulary)
            if len(self._correctors) > 64:
                self._correctors.clear()
            self._correctors[searchable] = corrector
        return corrector

    def rewrite(self, question: str, scope: Scope, history: Sequence[str] = ()) -> tuple[str, list[str]]:
        """The query retrieval sees (follow-up context, file names as words, spelling fixed against
        the scope's vocabulary) and the question's topic words no searchable document contains:
        any such word ("pet insurance", "ESPP") means the documents do not cover the question,
        however similar its other words look."""
        corrector = self.corrector_for(scope.access)
        query = corrector.correct(normalise_query(self._retrieval_query(question, history)), scope.language)
        unknown = corrector.unknown_topics(query) if scope.language == "en" else []
        return query, unknown

    def topic_gate_blocks(self, unknown: Sequence[str], best_similarity: float) -> bool:
        """A question with words no visible document contains is about something the documents
        do not cover, unless they match it so strongly that the words are phrasing ("pick",
        "versus") rather than an uncovered topic ("funeral", "pet insurance")."""
        if not unknown:
            return False
        return self.unknown_word_cutoff is None or best_similarity < self.unknown_word_cutoff

    # -- access ------------------------------------------------------------------------------
    def _today(self) -> date:
        return self.settings.today or date.today()

    def scope_for(self, question: str, token: str, *, as_of: date | None = None,
                  audience_tokens: Sequence[str] = ()) -> Scope:
        """Verify the token (and audience tokens) and build the mandatory pre-filter."""
        claims, audience = self._verify(token, audience_tokens)
        return self._scope_of(question, claims, audience, as_of)

    def _verify(self, token: str, audience_tokens: Sequence[str]) -> tuple[AccessClaims, list[AccessClaims]]:
        key = self.settings.rbac_signing_key.get_secret_value()
        return verify_token(key, token), [verify_token(key, t) for t in audience_tokens]

    def _scope_of(self, question: str, claims: AccessClaims, audience: Sequence[AccessClaims],
                  as_of: date | None) -> Scope:
        day = as_of or self._today()
        members = [claims, *audience]
        if any(not member.acl_groups for member in members):
            raise _NoScope(claims)
        base = AccessFilter(
            group_sets=tuple(frozenset(m.acl_groups) for m in members),
            jurisdiction_sets=tuple(frozenset(m.jurisdictions) for m in members),
            as_of=day,
            language=claims.language,
        )
        language = claims.language or detect_language(question)
        exclusions = self._registry.exclusions(base, language)
        access = AccessFilter(base.group_sets, base.jurisdiction_sets, day, exclusions, claims.language)
        return Scope(claims, access, language)

    # -- the answer path ---------------------------------------------------------------------
    async def answer(self, question: str, token: str, *, as_of: date | None = None,
                     audience_tokens: Sequence[str] = (), history: Sequence[str] = ()) -> Answer:
        claims, audience = self._verify(token, audience_tokens)  # AccessDenied before the index is touched
        trace = Trace()
        try:
            return await self._answer(trace, question, claims, audience, as_of=as_of, history=history)
        except BenefitsBotError as exc:
            # The edge shows this reference in its apology; the log line below carries the same one.
            exc.query_id = trace.query_id  # type: ignore[attr-defined]
            query_log.error(json.dumps({"query_id": trace.query_id, "error": type(exc).__name__,
                                        "detail": str(exc), "latency_ms": trace.timings}))
            raise

    async def _answer(self, trace: Trace, question: str, claims: AccessClaims, audience: Sequence[AccessClaims],
                      *, as_of: date | None, history: Sequence[str]) -> Answer:
        started = time.perf_counter()
        stage = time.perf_counter()
        manifest = await self.manifest()
        try:
            scope = self._scope_of(question, claims, audience, as_of)
        except _NoScope as no_scope:
            trace.timed("access", stage)
            return self._finish(trace, started, question, no_scope.claims, manifest,
                                abstain=AbstainReason.NO_ACCESS)
        trace.timed("access", stage)

        stage = time.perf_counter()
        query, unknown = self.rewrite(question, scope, history)
        trace.timed("rewrite", stage)
        stage = time.perf_counter()
        vector = await self.retriever.embed(query)
        trace.timed("embed", stage)
        stage = time.perf_counter()
        trace.candidates = await self.retriever.retrieve(query, scope.access, query_vector=vector)
        trace.timed("retrieve", stage)

        best = max((c.dense_score for c in trace.candidates), default=0.0)
        if best < self.cutoff or self.topic_gate_blocks(unknown, best):
            return self._finish(trace, started, question, scope.claims, manifest,
                                abstain=AbstainReason.LOW_SIMILARITY)

        stage = time.perf_counter()
        ranked = await self.reranker.rerank(query, trace.candidates)
        trace.candidates = ranked
        trace.timed("rerank", stage)
        trace.context = select_context(ranked, cutoff=self.cutoff, max_chunks=self.settings.max_context_chunks,
                                       max_tokens=self.settings.max_context_tokens)
        if not trace.context:
            return self._finish(trace, started, question, scope.claims, manifest,
                                abstain=AbstainReason.LOW_SIMILARITY)
        if self._registry.unresolved_variants((c.policy_id for c in trace.context), scope.access):
            return self._finish(trace, started, question, scope.claims, manifest, abstain=AbstainReason.CONFLICT)

        stage = time.perf_counter()
        try:
            generated = await self.generator.generate(query, trace.context,
                                                      history=history)
        except GenerationFailed:
            trace.timed("generate", stage)
            return self._finish(trace, started, question, scope.claims, manifest,
                                abstain=AbstainReason.GENERATION_ERROR)
        trace.timed("generate", stage)

        stage = time.perf_counter()
        checked = validate(generated.text, [c.chunk_id for c in trace.context], [c.source_uri for c in trace.context])
        notices: list[str] = []
        abstain = checked.rejected
        if abstain is None:
            conflicts = find_amount_conflicts(query, trace.context)
            if conflicts:
                shown_all = _each_value_cited(checked.text, conflicts, trace.context)
                if shown_all:
                    notices.append(AMOUNT_CONFLICT_NOTICE)
                else:
                    abstain = AbstainReason.CONFLICT
        trace.timed("validate", stage)
        return self._finish(trace, started, question, scope.claims, manifest, abstain=abstain,
                            text=checked.text, cited=checked.cited, model=generated.model,
                            usage=generated.usage, notices=notices)

    @staticmethod
    def _retrieval_query(question: str, history: Sequence[str]) -> str:
        """A short follow-up ("what about dental?") borrows the previous question's context."""
        if history and (_FOLLOW_UP.match(question) or len(question.split()) <= 4):
            return f"{history[-1]} {question}"
        return question

    def _finish(self, trace: Trace, started: float, question: str, claims: AccessClaims, manifest: Manifest, *,
                abstain: AbstainReason | None, text: str = "", cited: Sequence[str] = (),
                model: str | None = None, usage: dict[str, int] | None = None,
                notices: list[str] | None = None) -> Answer:
        trace.timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        by_id = {c.chunk_id: c for c in trace.context}
        citations = [] if abstain else [
            Citation(chunk_id=c, document_id=by_id[c].document_id, title=by_id[c].title, page=by_id[c].page_number,
                     source_uri=by_id[c].link(), score=round(by_id[c].dense_score, 4))
            for c in cited
        ]
        answer = Answer(
            query_id=trace.query_id,
            answer=self.settings.abstain_texts.get(abstain.value, "") if abstain else text,
            citations=citations,
            abstained=abstain is not None,
            abstain_reason=abstain,
            hr_contact=self.settings.hr_contact_url,
            model=f"{model or self.generator.model_name}+{self.embedder.model_name}",
            retrieved=[c.chunk_id for c in trace.candidates[: self.settings.top_k]],
            latency_ms=dict(trace.timings),
            usage=usage or {},
            notices=[] if abstain else (notices or []),
            index_version=manifest.index_version,
        )
        log_question({
            "query_id": trace.query_id,
            "user": user_hash(claims.subject),
            "groups": sorted(claims.acl_groups),
            "retrieved": answer.retrieved,
            "context": [c.chunk_id for c in trace.context],
            "rerank_scores": [round(c.rerank_score, 4) for c in trace.candidates[:10] if c.rerank_score is not None],
            "abstained": answer.abstained,
            "reason": abstain.value if abstain else None,
            "latency_ms": answer.latency_ms,
            "tokens": answer.usage,
        }, question=question if self.settings.log_queries else None)
        return answer

    async def warm_up(self) -> None:
        """Load what the first question would otherwise pay for (the index manifest, the spelling
        word lists, the tokenizer): a few hundred milliseconds, once, before serving. An index that
        is not there yet is not an error here: readiness and the questions report it."""
        with contextlib.suppress(IndexUnavailable):
            await self.manifest()
        await asyncio.to_thread(preload_dictionaries)
        await asyncio.to_thread(encoding)

    async def close(self) -> None:
        """Release the index and any component holding connections (OpenAI clients, Cohere session)."""
        for component in (self.reranker, self.generator, self.embedder):
            close = getattr(component, "close", None)
            if close is not None:
                await close()
        await self.index.close()


def _each_value_cited(text: str, conflicts: Sequence[AmountConflict], context: Sequence[Candidate]) -> bool:
    """Every disputed amount is shown in a sentence that cites a chunk stating that amount
    (not merely somewhere in the answer, under another chunk's citation)."""
    content = {c.chunk_id: c.content.replace(" ", "") for c in context}
    kept = [(s.replace(" ", ""), CITATION.findall(s)) for s in sentences(text)]
    return all(
        any(value in sentence and any(value in content.get(cid, "") for cid in cited) for sentence, cited in kept)
        for conflict in conflicts for value in conflict.values
    )


class _NoScope(Exception):
    """A token that grants no groups: abstain before any retrieval."""

    def __init__(self, claims: AccessClaims) -> None:
        super().__init__("no access groups")
        self.claims = claims


_engine: Engine | None = None
_engine_lock = asyncio.Lock()


async def get_engine(settings: CoreSettings | None = None) -> Engine:
    """The process-wide engine (models and index opened once)."""
    global _engine
    async with _engine_lock:
        if _engine is None:
            _engine = Engine.from_settings(settings or get_settings())
        return _engine


def set_engine(engine: Engine | None) -> None:
    """Install an engine (tests, the server's startup) or clear it."""
    global _engine
    _engine = engine
