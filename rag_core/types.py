"""The data that travels through the core: documents, chunks, candidates and the one Answer type
that every renderer (Slack, Teams, CLI) and the eval harness consume."""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class AbstainReason(StrEnum):
    LOW_SIMILARITY = "low_similarity"
    NO_ACCESS = "no_access"
    CONFLICT = "conflict"
    INVALID_CITATION = "invalid_citation"
    NO_SUPPORTED_CLAIMS = "no_supported_claims"
    GENERATION_ERROR = "generation_error"
    OTHER_JURISDICTION = "other_jurisdiction"


class DocumentMeta(BaseModel):
    """Catalog metadata of one source document (the retrieval contract's fields plus language)."""

    model_config = ConfigDict(frozen=True)

    file: str
    document_id: str
    policy_id: str
    title: str
    jurisdiction: str
    effective_date: date
    version: str
    source_uri: str
    acl_groups: tuple[str, ...]
    language: str = "en"
    overrides: tuple[str, ...] = ()


class Chunk(BaseModel):
    """One indexed unit of text with the provenance needed to cite it."""

    model_config = ConfigDict(frozen=True)

    chunk_id: str
    document_id: str
    page_number: int
    content: str
    token_count: int
    anchor: str | None = None  # markdown section anchor, used in the citation link


class Candidate(BaseModel):
    """A retrieved chunk with the scores each stage gave it."""

    chunk_id: str
    document_id: str
    policy_id: str
    title: str
    page_number: int
    content: str
    jurisdiction: str
    effective_date: str
    version: str
    language: str
    source_uri: str
    acl_groups: list[str]
    fused_score: float = 0.0
    dense_score: float = 0.0  # cosine similarity to the question; what the gate looks at
    # The best cosine to the question's asking clauses when it has a situation around them
    # ("rough week, i want to talk to someone. whats the EAP phone number?"); None: no such clause.
    asked_score: float | None = None
    late_score: float | None = None  # ColBERT MaxSim per question token (late interaction on), in [-1, 1]
    rerank_score: float | None = None
    anchor: str | None = None
    token_count: int | None = None  # cl100k tokens, counted at ingest

    @property
    def gate_similarity(self) -> float:
        """What the similarity cutoff compares: the question's cosine, or its asking clause's when
        that matches better (the situation's words dilute the whole question's vector)."""
        return self.dense_score if self.asked_score is None else max(self.dense_score, self.asked_score)

    def link(self) -> str:
        """A link to the cited page (PDF) or section (markdown)."""
        if self.anchor:
            return f"{self.source_uri}#{self.anchor}"
        return f"{self.source_uri}#page={self.page_number}"


class Citation(BaseModel):
    chunk_id: str
    document_id: str
    title: str
    page: int
    source_uri: str
    score: float


class DocumentRef(BaseModel):
    """A document named to the asker in an abstention (only ever one they may see)."""

    model_config = ConfigDict(frozen=True)

    document_id: str
    title: str
    effective_date: date


class OtherJurisdiction(BaseModel):
    """The state's own policy a question asked about, which the asker's work location on file excludes."""

    model_config = ConfigDict(frozen=True)

    state: str  # the state's name, as a person writes it ("California")
    document: DocumentRef


class NearTopic(BaseModel):
    """A covered topic (document and section) that a not-found question came close to."""

    model_config = ConfigDict(frozen=True)

    document_id: str
    title: str
    section: str


class AbstainDetail(BaseModel):
    """Facts that make an abstention useful, every one found under the asker's access filter.

    At most one is set: a document not yet in effect that covers the question, the documents
    that disagree, the covered topic a not-found question came close to, or the named state's own
    policy that the asker's work location on file excludes.
    """

    model_config = ConfigDict(frozen=True)

    not_yet_effective: DocumentRef | None = None
    conflicting: tuple[DocumentRef, ...] = ()
    near_topic: NearTopic | None = None
    other_jurisdiction: OtherJurisdiction | None = None


class Answer(BaseModel):
    """What the core returns for every question: an answer with citations, or a clean abstention."""

    query_id: str = ""  # the same id as the per-question log line, shown to users as a reference
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    abstained: bool
    abstain_reason: AbstainReason | None = None
    abstain_detail: AbstainDetail | None = None  # why, in terms the asker may see (abstentions only)
    hr_contact: str
    model: str
    retrieved: list[str] = Field(default_factory=list)  # chunk ids of the candidates before the cut
    latency_ms: dict[str, float] = Field(default_factory=dict)
    usage: dict[str, int] = Field(default_factory=dict)
    notices: list[str] = Field(default_factory=list)  # e.g. "the documents disagree on this amount"
    index_version: str = ""

    def to_public_dict(self) -> dict[str, Any]:
        """The Answer contract as JSON (`benefitsbot ask --json`)."""
        return self.model_dump(mode="json")


_CHUNK_ID = re.compile(r"^(?P<document>.+)_p(?P<page>\d+)_c(?P<ordinal>\d+)$")


def split_chunk_id(chunk_id: str) -> tuple[str, int] | None:
    """(document id, page) of a chunk id; the *last* ``_p<n>_c<n>`` is the page part, so ids that
    themselves contain ``_p`` ("plan_p2", "BEN-2026-HLTH-01") parse correctly. None if malformed."""
    match = _CHUNK_ID.match(chunk_id)
    return (match["document"], int(match["page"])) if match else None
