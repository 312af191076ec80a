"""What one question carries through the answer path: one mutable record, filled stage by stage."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from rag_core.access import AccessClaims
from rag_core.generation.base import GenerationResult
from rag_core.index.base import AccessFilter
from rag_core.reading.reader import Reading
from rag_core.types import AbstainDetail, AbstainReason, Candidate


@dataclass
class QueryState:
    """The question and everything the stages learned about it.

    Each stage reads what earlier stages wrote and adds its own part; the first stage that calls
    :meth:`abstain` ends the run. The runner turns the final state into the one ``Answer``.
    """

    question: str
    token: str
    as_of: date | None = None
    audience_tokens: Sequence[str] = ()
    history: Sequence[str] = ()
    query_id: str = field(default_factory=lambda: uuid.uuid4().hex)

    # scope
    claims: AccessClaims | None = None
    audience: list[AccessClaims] = field(default_factory=list)
    access: AccessFilter | None = None
    language: str = "en"
    index_version: str = ""
    # rewrite
    query: str = ""
    spelling_fixed: str | None = None  # ``query`` when the spelling corrector changed a typed word
    unknown_words: list[str] = field(default_factory=list)
    # embed + retrieve
    query_vector: np.ndarray | None = None
    query_tokens: list[list[float]] | None = None  # late-interaction token vectors, when that is on
    clause_vectors: list[np.ndarray] = field(default_factory=list)  # the asking clauses' (EmbedStage)
    candidates: list[Candidate] = field(default_factory=list)
    # gate: the lower floor a match just under the cutoff is let through at (None: the cutoff's own)
    rescue_floor: float | None = None
    # context
    context: list[Candidate] = field(default_factory=list)
    # read (None: not read, e.g. a language the reader does not read)
    reading: Reading | None = None
    # generate + validate
    generated: GenerationResult | None = None
    text: str = ""
    cited: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    # outcome
    abstain_reason: AbstainReason | None = None
    decided_by: str | None = None
    abstain_detail: AbstainDetail | None = None  # filled after the run (pipeline/explain.py)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def best_similarity(self) -> float:
        """The best dense cosine among the (filtered) candidates: what the similarity gate compares."""
        return max((c.dense_score for c in self.candidates), default=0.0)

    @property
    def best_gate_similarity(self) -> float:
        """The best similarity the cutoff compares (``Candidate.gate_similarity``)."""
        return max((c.gate_similarity for c in self.candidates), default=0.0)

    @property
    def finished(self) -> bool:
        return self.abstain_reason is not None

    def abstain(self, reason: AbstainReason, stage: str) -> None:
        self.abstain_reason = reason
        self.decided_by = stage

    def require_access(self) -> AccessFilter:
        """The mandatory filter; a stage that searches before scope has run is a wiring bug."""
        if self.access is None:
            raise RuntimeError("no access filter: the scope stage must run before any search")
        return self.access
