"""Rewrite (follow-ups, spelling, the question's undocumented words) and query embedding."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Sequence
from typing import Any

import numpy as np

from rag_core.embeddings import EmbeddingProvider, TokenEncoder
from rag_core.pipeline.base import StageBase
from rag_core.pipeline.corpus import CorpusView
from rag_core.pipeline.state import QueryState
from rag_core.reading.question import asking_clauses, expand_abbreviations
from rag_core.retrieval import encode_query_tokens
from rag_core.spelling import normalise_query, preload_dictionaries

_FOLLOW_UP = re.compile(r"^\s*(and|what about|how about|what if|also|y|¿y|and for|same for)\b", re.IGNORECASE)


def retrieval_query(question: str, history: Sequence[str]) -> str:
    """A short follow-up ("what about dental?") borrows the previous question's context."""
    if history and (_FOLLOW_UP.match(question) or len(question.split()) <= 4):
        return f"{history[-1]} {question}"
    return question


class RewriteStage(StageBase):
    """The query retrieval sees (follow-up context, file names as words, spelling fixed against
    the scope's vocabulary) and the question's topic words no searchable document contains
    ("pet insurance", "ESPP"): the topic gate decides on those once similarity is known."""

    name = "rewrite"

    def __init__(self, corpus: CorpusView) -> None:
        self.corpus = corpus

    async def run(self, state: QueryState) -> None:
        corrector = self.corpus.corrector_for(state.require_access())
        # Chat abbreviations written out first ("OOP max", "4 yrs"): otherwise "yrs" reads as a
        # topic no document covers, and BM25 cannot match "OOP" to "out-of-pocket".
        typed = normalise_query(retrieval_query(expand_abbreviations(state.question), state.history))
        state.query = corrector.correct(typed, state.language)
        # The reader reads the employee's own words; when the corrector changed one, it also reads
        # the fixed question (a follow-up's query carries the previous question: not a fix).
        fixed = not state.history and " ".join(state.query.split()).lower() != " ".join(typed.split()).lower()
        state.spelling_fixed = state.query if fixed else None
        state.unknown_words = corrector.unknown_topics(state.query) if state.language == "en" else []

    async def warm_up(self) -> None:
        await asyncio.to_thread(preload_dictionaries)


class EmbedStage(StageBase):
    """The question's dense vector and, with late interaction on, its token vectors: once per question,
    the two side by side (independent model runs, each off the event loop).

    ``asking_clauses``: an English question that tells a situation around what it asks ("rough week,
    i think i want to talk to someone. whats the EAP phone number?") also gets a vector per asking
    clause (``reader_queries``), so the similarity cutoff can see a chunk that matches what is asked
    although the situation's words pull the whole question's vector away from it."""

    name = "embed"

    def __init__(
        self, embedder: EmbeddingProvider, late: TokenEncoder | None = None, *, asking_clauses: bool = False
    ) -> None:
        self.embedder = embedder
        self.late = late
        self.asking_clauses = asking_clauses

    async def run(self, state: QueryState) -> None:
        clauses = self._asking_clauses(state)
        runs: list[Awaitable[Any]] = [self.embedder.embed_query(state.query)]
        runs += [self.embedder.embed_query(clause) for clause in clauses]
        if self.late is not None:
            runs.append(encode_query_tokens(self.late, state.query))
        done = await asyncio.gather(*runs)
        if self.late is not None:
            state.query_tokens = done.pop()
        state.query_vector = np.asarray(done[0], dtype=np.float32)
        state.clause_vectors = [np.asarray(vector, dtype=np.float32) for vector in done[1:]]

    def _asking_clauses(self, state: QueryState) -> list[str]:
        if not self.asking_clauses or state.language != "en":
            return []
        return asking_clauses(state.query)
