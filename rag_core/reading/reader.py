"""A model reads the context: which sentences answer the question, and how well the best one does.

Two steps, because the cross-encoder costs ~8-20 ms a sentence on this 2-core machine and four
chunks hold ~40 sentences: a free word-overlap pass keeps the ``keep`` most promising sentences
(optionally leaving ``model_spans`` of them to ColBERT MaxSim among the rest: ``SpanReader.pool``),
then ms-marco-MiniLM-L-12-v2 reads each of them under its section heading, once per reader
question (``question.reader_queries``), and the best reading counts. The best logit is also the
answerability signal (``AnswerabilityGate``): no sentence of the context answers the question
well means the documents do not cover it, whatever words they share with it.

Measured (benchmarks/README.md, "Reading models"): on corpus/gold.jsonl the shipped lexical picker
and this reader tie; on the chat-style dev set the reader is ahead; the word-overlap prefilter at
12 loses nothing against reading every sentence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from rag_core.embeddings.base import TokenEncoder
from rag_core.models.colbert import ColbertEncoder
from rag_core.reading.question import (
    points_back,
    reader_queries,
    referent_words,
    situation_words,
    whole_question,
    with_referent,
)
from rag_core.reading.ranges import rows_in_range
from rag_core.reading.spans import Span, row_key, row_tables, spans_of
from rag_core.text import local_idf, terms
from rag_core.types import Candidate


class PassageScorer(Protocol):
    """A cross-encoder: one relevance logit per passage for a question (``rag_core.models.CrossEncoder``)."""

    def logits(self, query: str, passages: Sequence[str]) -> list[float]: ...


@dataclass(frozen=True)
class ReadSpan:
    span: Span
    score: float  # the best cross-encoder logit over the reader questions


# At most this many tied sentences are quoted beyond the answer's usual three (``Reading.answer``).
TIED_EXTRA = 2


@dataclass(frozen=True)
class Reading:
    """The read sentences, best first (only those the prefilter kept); ``situation``: the question
    clauses were read with the situation's words (``read_logits``), so a re-reading reads the same way."""

    spans: list[ReadSpan] = field(default_factory=list)
    situation: bool = False

    @property
    def best(self) -> float:
        return self.spans[0].score if self.spans else float("-inf")

    def answer(self, max_sentences: int = 3, margin: float = 5.0, *, tie: float | None = None) -> list[ReadSpan]:
        """The best sentence and up to ``max_sentences - 1`` more that read nearly as well (a
        table row and the sentence that qualifies it), never one far below the best. With ``tie``,
        up to ``TIED_EXTRA`` sentences more when they read within ``tie`` of the best: the reader
        cannot order sentences that close ("whats the OOP max on Plus?" read "…offers a maximum
        out-of-pocket (OOP) limit" first and "…has an out-of-pocket maximum of $4,000 per year"
        fourth, 0.33 under it; with a glossary definition read too, fifth, 0.39 under it)."""
        if not self.spans:
            return []
        shown = [s for s in self.spans[:max_sentences] if s.score >= self.best - margin]
        if tie is not None:
            tied = self.spans[max_sentences : max_sentences + TIED_EXTRA]
            shown += [s for s in tied if s.score >= self.best - tie]
        return shown


def word_overlap(question: str, spans: Sequence[Span]) -> list[float]:
    """IDF-weighted share of the question's words in the span and its heading: the cheap
    prefilter. IDF is local to these spans, so a word every sentence shares counts little."""
    asked = set(terms(question))
    bags = [set(terms(f"{s.heading} {s.text}")) for s in spans]
    if not asked or not bags:
        return [0.0] * len(spans)
    idf = local_idf(asked, bags)
    # fsum: exact whatever the set's (hash-seeded) order, so tied spans rank the same in every process.
    total = math.fsum(idf.values()) or 1.0
    return [math.fsum(idf[t] for t in asked & bag) / total for bag in bags]


class SpanPrefilter(Protocol):
    """Scores context spans for a question, cheaply: the reader reads only the best (``SpanReader.pool``)."""

    def scores(self, question: str, spans: Sequence[Span]) -> list[float]: ...


class WordOverlapPrefilter:
    """IDF-weighted word overlap with the question as the reader asks it (``word_overlap``): free."""

    def scores(self, question: str, spans: Sequence[Span]) -> list[float]:
        return word_overlap(reader_queries(question)[0], spans)


class LateInteractionPrefilter:
    """ColBERT MaxSim of the question (as the reader asks it) against each span encoded on its own,
    as the reader frames it. Words the documents put differently ("sessions" / "visits", "my
    knee surgery" / "out-of-pocket maximum") still find their span, which word overlap cannot.
    Each span costs one small ColBERT run; measured in session 12 (benchmarks/README.md "Reading,
    session 12")."""

    def __init__(self, encoder: TokenEncoder) -> None:
        self.encoder = encoder

    def scores(self, question: str, spans: Sequence[Span]) -> list[float]:
        query = self.encoder.encode_query(reader_queries(question)[0])
        documents = self.encoder.encode_documents([span.for_reader() for span in spans])
        return [ColbertEncoder.max_sim(query, document) for document in documents]


class InChunkPrefilter:
    """ColBERT MaxSim of the question against each span's own tokens inside its chunk's token
    vectors: the vectors the index stores for late interaction (``stored``, by chunk id), so no
    model runs on the spans, only the tokenizer to find which of a chunk's vectors fall inside a
    span. The tokens carry their chunk's context, as the late-interaction rerank scores them. A
    chunk without stored vectors (or whose vectors do not line up with its text) has its spans
    encoded on their own (``LateInteractionPrefilter``). The issue's "free" signal: session 12
    measured it end to end with the chunks re-encoded (benchmarks/README.md "Reading, session 12";
    "Reading, session 15" with the stored vectors)."""

    def __init__(self, encoder: TokenEncoder, stored: Mapping[str, np.ndarray]) -> None:
        self.encoder = encoder
        self.stored = stored

    def scores(self, question: str, spans: Sequence[Span]) -> list[float]:
        query = self.encoder.encode_query(reader_queries(question)[0])
        chunks = {span.chunk.chunk_id: span.chunk for span in spans}
        tokens = {chunk_id: self._tokens(chunk) for chunk_id, chunk in chunks.items()}
        scores: list[float | None] = []
        for span in spans:
            found = tokens[span.chunk.chunk_id]
            if found is None:
                scores.append(None)
                continue
            vectors, offsets = found
            inside = (offsets[:, 0] >= span.start) & (offsets[:, 1] <= span.end) & (offsets[:, 0] >= 0)
            scores.append(ColbertEncoder.max_sim(query, vectors[inside]))
        alone = [i for i, score in enumerate(scores) if score is None]
        if alone:
            for i, score in zip(
                alone, LateInteractionPrefilter(self.encoder).scores(question, [spans[i] for i in alone]), strict=True
            ):
                scores[i] = score
        return [float(score or 0.0) for score in scores]

    def _tokens(self, chunk: Candidate) -> tuple[np.ndarray, np.ndarray] | None:
        """The chunk's stored vectors with each one's character span, or None (none stored, or they
        do not line up with the chunk's text)."""
        vectors = self.stored.get(chunk.chunk_id)
        if vectors is None:
            return None
        offsets = self.encoder.document_offsets(chunk.content)
        if len(offsets) != len(vectors):  # written by another tokenizer or windowing: not this text's tokens
            return None
        return vectors, offsets


class SpanReader:
    """Prefilter, then read with the cross-encoder. The ``keep`` spans read are the best by word
    overlap, of which the last ``model_spans`` are given to a model prefilter (``model``) instead:
    the spans it ranks best among those word overlap left out."""

    def __init__(
        self,
        scorer: PassageScorer,
        *,
        keep: int = 12,
        situation: bool = False,
        model: SpanPrefilter | None = None,
        model_spans: int = 0,
        range_rows: bool = False,
    ) -> None:
        """``range_rows``: also read the row of a range-keyed table that holds the number the question
        states ("2 years" of a vesting schedule; ``ranges.rows_in_range``) when neither prefilter chose it."""
        if not 0 <= model_spans <= keep:
            raise ValueError(f"model_spans must be between 0 and keep ({keep})")
        self.scorer = scorer
        self.keep = keep
        self.situation = situation
        self.lexical = WordOverlapPrefilter()
        self.model = model
        self.model_spans = model_spans if model is not None else 0
        self.range_rows = range_rows

    def read(
        self,
        question: str,
        context: Sequence[Candidate],
        *,
        corrected: str | None = None,
        model: SpanPrefilter | None = None,
    ) -> Reading:
        """``corrected``: the question with its misspelt words fixed against the documents'
        vocabulary, read as one more question (never instead of the employee's words: the
        corrector turned "uber" into "user"); a typo in the key word ("dentl deductable") otherwise
        drags every reading down. ``model``: this question's model prefilter instead of the
        reader's own (``InChunkPrefilter`` over the context's stored token vectors)."""
        return self.read_spans(question, spans_of(context), corrected=corrected, model=model)

    def read_spans(
        self,
        question: str,
        spans: Sequence[Span],
        *,
        corrected: str | None = None,
        model: SpanPrefilter | None = None,
    ) -> Reading:
        """``read`` over a context already split into spans (``spans_of``)."""
        if not spans:
            return Reading()
        pool = self.pool(question, spans, model=model)
        scores = read_logits(self.scorer, question, pool, corrected=corrected, situation=self.situation)
        ranked = sorted(zip(pool, scores, strict=True), key=lambda pair: -pair[1])
        return Reading([ReadSpan(span, score) for span, score in ranked], situation=self.situation)

    def needs_model(self, spans: Sequence[Span]) -> bool:
        """Whether reading ``spans`` asks the model prefilter (more spans than are read)."""
        return bool(self.model_spans) and len(spans) > self.keep

    def pool(self, question: str, spans: Sequence[Span], *, model: SpanPrefilter | None = None) -> list[Span]:
        """The spans to read: all of them when they fit, else word overlap's best and the model's."""
        if len(spans) <= self.keep:
            return list(spans)
        chosen = _best_first(self.lexical.scores(question, spans))[: self.keep - self.model_spans]
        model = model or self.model
        if model is not None and self.model_spans:
            taken = set(chosen)
            rest = [i for i in range(len(spans)) if i not in taken]
            by_model = _best_first(model.scores(question, [spans[i] for i in rest]))
            chosen += [rest[j] for j in by_model[: self.model_spans]]
        if self.range_rows:
            chosen += [i for i in _asked_range_rows(question, spans) if i not in chosen]
        return [spans[i] for i in chosen]


def _asked_range_rows(question: str, spans: Sequence[Span]) -> list[int]:
    """Indexes of the table rows whose range holds the number the question states (``rows_in_range``):
    word overlap cannot choose "Years of vesting service: 2; …" for "been here 2 yrs", and the rows the
    prefilters chose instead are then ruled out as other askers' rows (``NotAskedStage``)."""
    keys = [row_key(span) for span in spans]
    held = rows_in_range(whole_question(question), row_tables(keys))
    return [i for i, key in enumerate(keys) if key is not None and key in held]


def _best_first(scores: Sequence[float]) -> list[int]:
    """Indexes by score, best first; ties keep reading order (earlier chunks rank higher after the reranker)."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def read_logits(
    scorer: PassageScorer,
    question: str,
    spans: Sequence[Span],
    *,
    corrected: str | None = None,
    situation: bool = False,
) -> list[float]:
    """Each span's best logit over the reader questions of ``question`` (``reader_queries``: the
    whole, its question clauses, and ``corrected`` when given). The reader and the gates that read
    a question again without some of its words (``topic.ablation_rise``) read the same way.

    ``situation`` (``READER_SITUATION_WORDS``, off by default): each question clause read alone gets
    back the situation's words the sentence shares (``_read_clause``). Measured in session 5
    (benchmarks/README.md "Reading, session 5"): on 23 tuning sets +19 right answers and +4 near
    misses answered; on the two sealed sets written after it +6 right answers, +1 wrong and +2 near
    misses answered. More reach, less safety: an HR team's choice, not the default.

    A clause that points back at the situation ("…on that plan?", ``question.points_back``) is read with
    what the situation named in place of the pointer, whatever ``situation`` says (``_read_pointing_clause``)."""
    whole = whole_question(question)
    # Each span's texts (``Span.reader_texts``: the span, a row's cells of the columns the question
    # names, the span under its title), side by side; a span reads as its best text.
    owners, framed = [], []
    for index, span in enumerate(spans):
        texts = span.reader_texts(whole)
        owners += [index] * len(texts)
        framed += texts
    read_spans = [spans[owner] for owner in owners]
    words = situation_words(question) if situation else []
    referents = referent_words(question)
    asked = reader_queries(question)
    per_question = [
        scorer.logits(q, framed)
        if q == whole
        else _read_pointing_clause(scorer, q, referents, read_spans, framed)
        if referents and points_back(q)
        else _read_clause(scorer, q, words, read_spans, framed)
        for q in asked
    ]
    if corrected and corrected not in asked:
        per_question.append(scorer.logits(corrected, framed))
    best = [-math.inf] * len(spans)
    for owner, column in zip(owners, zip(*per_question, strict=True), strict=True):
        best[owner] = max(best[owner], *column)
    return best


def _read_pointing_clause(
    scorer: PassageScorer, clause: str, referents: Sequence[str], spans: Sequence[Span], framed: list[str]
) -> list[float]:
    """A question clause that points back at the situation ("…whats the copay to see a specialist on that
    plan?" after "switching to northwind standard next yr."), read against each sentence with the pointing
    phrase put as the situation's words that sentence shares ("…on the northwind standard plan?": -0.5 ->
    7.0 for "For Northwind Standard, the co-payment is … $50 for specialist visits", benefits-v5), as typed
    against a sentence that shares none: the referent is only ever what the sentence itself names. On, not
    off like ``_read_clause``: it adds no word the question lacks, it says which one "that one" is
    (benchmarks/README.md "Session 30")."""
    queries = [with_referent(clause, _shared_words(span, referents)) for span in spans]
    return _read_each_with_its_question(scorer, queries, framed)


def _read_clause(
    scorer: PassageScorer, clause: str, situation: Sequence[str], spans: Sequence[Span], framed: list[str]
) -> list[float]:
    """A question clause read alone, each sentence with the situation's words that sentence shares:
    "on health plus how many in network sessions do i get a year?" lost the acupuncture the
    employee named before it ("doc says try acupuncture."), so the acupuncture sentences read it
    with "acupuncture" back (-2.2 -> 4.1 for "up to 12 visits per year"), the others without."""
    if not situation:
        return scorer.logits(clause, framed)
    asked = frozenset(terms(clause))
    queries = [" ".join([clause, *_shared_words(span, situation, asked)]) for span in spans]
    return _read_each_with_its_question(scorer, queries, framed)


def _shared_words(span: Span, words: Sequence[str], asked: frozenset[str] = frozenset()) -> list[str]:
    """``words`` (in their order) that ``span`` or its heading uses, but not those already ``asked``."""
    has = set(terms(f"{span.heading} {span.text}"))
    return [w for w in words if (t := terms(w)) and t[0] in has and t[0] not in asked]


def _read_each_with_its_question(scorer: PassageScorer, queries: Sequence[str], framed: list[str]) -> list[float]:
    """``framed[i]`` read for ``queries[i]``; sentences with the same question are read in one call (the
    pool runs them side by side)."""
    groups: dict[str, list[int]] = {}
    for index, query in enumerate(queries):
        groups.setdefault(query, []).append(index)
    scores = [0.0] * len(queries)
    for query, indexes in groups.items():
        for index, score in zip(indexes, scorer.logits(query, [framed[i] for i in indexes]), strict=True):
            scores[index] = score
    return scores
