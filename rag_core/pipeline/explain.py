"""Abstentions that help: what the asker may be told about why the documents did not answer.

The runner calls this once, after a run ends in an abstention (it is not a stage: stages stop at
the first abstention). Everything it names is found under the asker's access filter, so a user
never learns that a document they may not see exists:

- a conflict names the documents that disagree, all inside the asker's (and audience's) scope;
- a not-found question covered by a document not yet in effect names that document and its date,
  found by a query with the *same* filter except the date;
- otherwise a not-found question that came close to a covered topic (its best candidate, retrieved
  under the filter, within ``margin`` of the similarity cutoff) gets that topic to rephrase towards.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Protocol

from rag_core.conflicts import find_amount_conflicts
from rag_core.index.base import AccessFilter
from rag_core.jurisdictions import STATE_NAMES
from rag_core.pipeline.corpus import CorpusView
from rag_core.pipeline.gates import other_state_policy
from rag_core.pipeline.state import QueryState
from rag_core.registry import visible
from rag_core.retrieval import HybridRetriever
from rag_core.spelling import QueryCorrector
from rag_core.text import topic_terms
from rag_core.types import (
    AbstainDetail,
    AbstainReason,
    Candidate,
    DocumentMeta,
    DocumentRef,
    NearTopic,
    OtherJurisdiction,
)

NOT_FOUND = frozenset({AbstainReason.LOW_SIMILARITY, AbstainReason.NO_SUPPORTED_CLAIMS})
HORIZON = date(9999, 12, 31)  # "any time from now on": the future query differs from the asker's only here
_HEADING_SEPARATOR = " — "  # chunks start "<title> — <section heading>" (rag_core/ingest/chunking.py)
# Heading words that name no topic ("Plan Overview", "Frequently Asked Questions").
_GENERIC_HEADING_WORDS = frozenset(
    {
        "plan",
        "overview",
        "summary",
        "policy",
        "guide",
        "general",
        "information",
        "frequently",
        "asked",
        "question",
        "faq",
        "introduction",
        "contact",
    }
)


class Explainer(Protocol):
    """What the runner calls when a run ends in an abstention."""

    async def explain(self, state: QueryState) -> AbstainDetail | None: ...


def _ref(doc: DocumentMeta) -> DocumentRef:
    return DocumentRef(document_id=doc.document_id, title=doc.title, effective_date=doc.effective_date)


def in_scope(doc: DocumentMeta, access: AccessFilter) -> bool:
    """What the index filter lets through: visible and not excluded (superseded, overridden...)."""
    return doc.document_id not in access.exclude_document_ids and visible(doc, access)


def future_filter(access: AccessFilter, current: Iterable[str]) -> AccessFilter:
    """The asker's filter with the date lifted, minus every document already in effect: the same
    groups (asker and audience), jurisdictions, language and exclusions."""
    return AccessFilter(
        access.group_sets,
        access.jurisdiction_sets,
        HORIZON,
        access.exclude_document_ids | frozenset(current),
        access.language,
    )


def section_of(candidate: Candidate) -> str:
    """The chunk's section heading ("" when it has none, or its heading is the document title)."""
    first_line = candidate.content.split("\n", 1)[0]
    title, sep, heading = first_line.partition(_HEADING_SEPARATOR)
    heading = heading.strip()
    if not sep or title.strip() != candidate.title.strip() or heading == candidate.title.strip():
        return ""
    return heading


def shares_topic(question: str, heading: str, title: str) -> bool:
    """The heading names something the question asks about ("transit benefit" / "Commuter Benefit"),
    beyond the words of its document's title ("Fabrikam" in "Fabrikam Contributions")."""
    shared = set(topic_terms(question)) & set(topic_terms(heading))
    return bool(shared - set(topic_terms(title)) - _GENERIC_HEADING_WORDS)


class AbstentionExplainer:
    """Computes the optional :class:`AbstainDetail` of an abstention (None when nothing may be said)."""

    name = "explain"

    def __init__(
        self,
        corpus: CorpusView,
        retriever: HybridRetriever,
        *,
        cutoff: float,
        unknown_word_cutoff: float | None,
        margin: float,
    ) -> None:
        self.corpus = corpus
        self.retriever = retriever
        self.cutoff = cutoff  # the similarity gate's, so "would have answered" means the same here
        self.unknown_word_cutoff = unknown_word_cutoff
        self.margin = margin

    async def explain(self, state: QueryState) -> AbstainDetail | None:
        reason = state.abstain_reason
        if reason is None or state.access is None:  # no_access from scope: nothing may be said
            return None
        if reason == AbstainReason.OTHER_JURISDICTION:
            found = other_state_policy(self.corpus.registry, state)
            if found is None:
                return None
            code, doc = found
            return AbstainDetail(other_jurisdiction=OtherJurisdiction(state=STATE_NAMES[code], document=_ref(doc)))
        if reason == AbstainReason.CONFLICT:
            docs = self.conflicting(state, state.access)
            return AbstainDetail(conflicting=tuple(_ref(d) for d in docs)) if docs else None
        if reason not in NOT_FOUND:
            return None
        future = await self.not_yet_effective(state, state.access)
        if future is not None:
            return AbstainDetail(not_yet_effective=_ref(future))
        near = self.near_topic(state)
        return AbstainDetail(near_topic=near) if near is not None else None

    # -- conflict ------------------------------------------------------------------------------
    def conflicting(self, state: QueryState, access: AccessFilter) -> list[DocumentMeta]:
        """The documents of policy variants with no declared precedence (precedence gate) and of
        chunks stating contradictory amounts (amount check), as far as the scope lets through."""
        registry = self.corpus.registry
        policies = registry.unresolved_variants((c.policy_id for c in state.context), access)
        ids = {d.document_id for d in registry.documents if d.policy_id in policies}
        for conflict in find_amount_conflicts(state.query, state.context):
            ids.update((conflict.first.chunk.document_id, conflict.second.chunk.document_id))
        docs = [d for d in registry.documents if d.document_id in ids and in_scope(d, access)]
        return sorted(docs, key=lambda d: (d.title, d.document_id))

    # -- not yet in effect ---------------------------------------------------------------------
    async def not_yet_effective(self, state: QueryState, access: AccessFilter) -> DocumentMeta | None:
        """A document that takes effect later and would pass the gates today's documents failed:
        its best chunk clears the similarity cutoff and beats what is in effect, and the question's
        undocumented words ("401(k)" before the 401(k) plan starts) are in it, or the match is as
        strong as the topic gate asks for such words."""
        if state.query_vector is None:
            return None
        registry = self.corpus.registry
        current = [d.document_id for d in registry.documents if d.effective_date <= access.as_of]
        scope = future_filter(access, current)
        if not any(in_scope(d, scope) for d in registry.documents):
            return None  # nothing future-dated the asker may see: no query
        candidates = await self.retriever.retrieve(
            state.query, scope, query_vector=state.query_vector, query_tokens=state.query_tokens
        )
        best = max(candidates, key=lambda c: c.dense_score, default=None)
        if best is None or best.dense_score < max(self.cutoff, state.best_similarity):
            return None
        doc = next((d for d in registry.documents if d.document_id == best.document_id), None)
        if doc is None or not in_scope(doc, scope) or not await self._covers_topic(doc, state, best.dense_score):
            return None
        return doc

    async def _covers_topic(self, doc: DocumentMeta, state: QueryState, similarity: float) -> bool:
        if not state.unknown_words:
            return True
        if self.unknown_word_cutoff is not None and similarity >= self.unknown_word_cutoff:
            # The topic gate's default rule (TOPIC_DENSE_PASS_MARGIN unset): a strong match reads the words as phrasing.
            return True
        manifest = await self.corpus.manifest()
        record = manifest.documents.get(doc.document_id)
        if record is None:
            return False
        missing = QueryCorrector(record.vocabulary, verb_forms=self.corpus.verb_forms).unknown_topics(state.query)
        return not set(missing) & set(state.unknown_words)

    # -- a topic to rephrase towards -------------------------------------------------------------
    def near_topic(self, state: QueryState) -> NearTopic | None:
        """The closest section (candidates within ``margin`` of the cutoff, best first) whose
        heading names something the question asks about. Never when the question names something
        no visible document contains ("pet insurance"): pointing at another topic would suggest the
        documents cover what they do not; and never a section that merely scored well ("Eligible
        dependents" for a legal-services question) because a suggestion must be about the question."""
        if state.unknown_words:
            return None
        close = sorted(
            (c for c in state.candidates if c.dense_score >= self.cutoff - self.margin), key=lambda c: -c.dense_score
        )
        for candidate in close:
            section = section_of(candidate)
            if section and shares_topic(state.query, section, candidate.title):
                return NearTopic(document_id=candidate.document_id, title=candidate.title, section=section)
        return None
