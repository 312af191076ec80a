"""Read: a cross-encoder reads the context sentences (``rag_core.reading``), and the answerability
gate abstains when no sentence answers the question well enough."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from rag_core.index.base import VectorIndex
from rag_core.pipeline.base import StageBase
from rag_core.pipeline.corpus import CorpusView
from rag_core.pipeline.state import QueryState
from rag_core.reading.answer_type import (
    asks_another_maximum,
    lacks_asked_contact,
    lacks_asked_kind,
    lacks_asked_pay,
    lacks_asked_quantity,
    names_another_purpose,
    names_another_year,
    names_member_cost,
    states_count_limit,
)
from rag_core.reading.question import asked_terms, reader_queries, whole_question
from rag_core.reading.ranges import rows_out_of_range
from rag_core.reading.reader import (
    InChunkPrefilter,
    LateInteractionPrefilter,
    PassageScorer,
    Reading,
    ReadSpan,
    SpanReader,
    read_logits,
)
from rag_core.reading.sections import sibling_sections
from rag_core.reading.spans import Span, row_key, row_label, row_tables, spans_of
from rag_core.reading.topic import ablation_rise, key_words
from rag_core.siblings import company_words
from rag_core.text import stem, terms, topic_terms
from rag_core.types import AbstainReason

# ms-marco-MiniLM-L-12-v2 reads English; other languages keep the word-overlap picker and the
# dense gate (measured on the Spanish gold rows, benchmarks/README.md "Reading models").
READ_LANGUAGES = frozenset({"en"})
# Words a document title uses for its kind, naming no one document.
_GENERIC_TITLE_WORDS = frozenset(
    terms("plan plans summary guide policy policies benefit benefits details program overview")
)


class ReadStage(StageBase):
    """Reads ``state.context`` into ``state.reading`` (English questions only).

    With ``index`` and a reader whose model prefilter is ColBERT (``READER_MODEL_SPANS``), that
    prefilter scores spans inside the context chunks' token vectors the index stores, fetched under
    the asker's access filter (``InChunkPrefilter``), instead of encoding each span."""

    name = "read"

    def __init__(
        self,
        reader: SpanReader,
        *,
        index: VectorIndex | None = None,
        titles: CorpusView | None = None,
        title_rows_only: bool = False,
    ) -> None:
        """``titles``: read a span under its document's title when the question names a word of that
        title the span lacks (READER_TITLE_WORDS; ``Span.title_words``); with ``title_rows_only`` only a
        table row is (a row's cells never repeat what the table is about; a sentence that lacks the
        title's word is more often about something else: benchmarks/README.md "Session 21")."""
        self.reader = reader
        self.index = index
        self.titles = titles
        self.title_rows_only = title_rows_only

    async def run(self, state: QueryState) -> None:
        if state.language not in READ_LANGUAGES:
            return
        spans = spans_of(state.context)
        if self.titles is not None:
            named = await self._named_title_words(state)
            spans = [
                replace(s, title_words=named.get(s.chunk.document_id, frozenset()))
                if not self.title_rows_only or row_label(s.text) is not None
                else s
                for s in spans
            ]
        model = None
        colbert = self.reader.model if isinstance(self.reader.model, LateInteractionPrefilter) else None
        if self.index is not None and colbert is not None and self.reader.needs_model(spans):
            chunk_ids = sorted({candidate.chunk_id for candidate in state.context})
            stored = await self.index.token_vectors_of(chunk_ids, state.require_access())
            model = InChunkPrefilter(colbert.encoder, stored)
        # The model call blocks for tens of milliseconds: off the event loop.
        state.reading = await asyncio.to_thread(
            partial(self.reader.read_spans, corrected=state.spelling_fixed, model=model), state.question, spans
        )

    async def warm_up(self) -> None:
        await asyncio.to_thread(self.reader.scorer.logits, "warm up", ["warm up"])

    async def _named_title_words(self, state: QueryState) -> dict[str, frozenset[str]]:
        """Per visible document, the question's words its title holds: not the company's name (a word
        most titles share, ``siblings.company_words``) nor a word any document title has for its kind
        ("plan", "summary", "guide")."""
        assert self.titles is not None
        manifest = await self.titles.manifest()
        titles = {
            document_id: set(terms(manifest.documents[document_id].meta.title)) - _GENERIC_TITLE_WORDS
            for document_id in self.titles.searchable(state.require_access())
        }
        company = company_words(list(titles.values()))
        asked = set(topic_terms(state.question))
        return {d: frozenset(named) for d, title in titles.items() if (named := (title & asked) - company)}


class NotAskedStage(StageBase):
    """Drops from the reading the sentences about something the question did not ask, however well
    they read, so the gates and the answer see the rest (nothing left reads as no answer):

    - ``sibling_sections``: sentences under the section of the sibling of what the question names
      ("Long-Term Disability (LTD)" for a short-term disability question; ``reading.sections``);
    - ``other_maximum``: what the member pays (the out-of-pocket maximum, a deductible, a copay…), for
      a question about a maximum the plan pays or allows ("the annual benefit maximum for dental
      services"; ``answer_type.asks_another_maximum``), unless the text also states a limit as a count
      (``answer_type.states_count_limit``: a row with a visit limit beside its copay);
    - ``range_rows``: table rows keyed by a range that does not hold the number the asker states
      ("been here 4 yrs" rules out the "Less than 3 years" and "6 or more years" rows; ``reading.ranges``),
      the asker's row then reading as well as the best row of its table;
    - ``lone_items``: list items that read well only through their lead-in (``_read_on_its_lead_in``).
    """

    name = "not_asked"

    def __init__(
        self,
        *,
        sibling_sections: bool = True,
        other_maximum: bool = True,
        range_rows: bool = True,
        lone_items: bool = True,
    ) -> None:
        self.sibling_sections = sibling_sections
        self.other_maximum = other_maximum
        self.range_rows = range_rows
        self.lone_items = lone_items

    async def run(self, state: QueryState) -> None:
        if state.reading is None or not state.reading.spans:
            return
        spans, question = state.reading.spans, whole_question(state.question)
        if self.sibling_sections:
            other = sibling_sections(question, _sections_read(spans))
            spans = [r for r in spans if (r.span.chunk.document_id, r.span.heading) not in other]
        if self.other_maximum and asks_another_maximum(question):
            spans = [r for r in spans if not names_member_cost(r.span.text) or states_count_limit(r.span.text)]
        if self.range_rows:
            outside = rows_out_of_range(question, row_tables(row_key(r.span) for r in spans))
            spans = _asker_rows_read_as_their_table(spans, outside)
        if self.lone_items:
            asked = set(topic_terms(question))
            spans = [r for r in spans if not _read_on_its_lead_in(r.span, asked)]
        if len(spans) < len(state.reading.spans):
            state.reading = Reading(spans, situation=state.reading.situation)


def _asker_rows_read_as_their_table(spans: Sequence[ReadSpan], outside: set[tuple[str, str, str]]) -> list[ReadSpan]:
    """``spans`` without the rows of other askers' ranges (``outside``), each remaining row of those tables
    read as well as its table's best row. The reader cannot compare numbers, so it reads a range-keyed
    table's rows about alike and orders them by chance: "hit my 3 year work anniversary… how much PTO do i
    get in a year now?" read the "Less than 2 years" row 2.32 and the asker's "2 years to less than 5
    years" row 1.89. What the rows' readings say is that the table answers the question; which row is the
    asker's is the range's to say (benchmarks/README.md "Session 30")."""
    best_outside: dict[tuple[str, str], float] = {}
    for read in spans:
        key = row_key(read.span)
        if key is not None and key in outside:
            best_outside[key[:2]] = max(best_outside.get(key[:2], -math.inf), read.score)
    kept: list[ReadSpan] = []
    for read in spans:
        key = row_key(read.span)
        if key is not None and key in outside:
            continue
        if key is not None and key[:2] in best_outside and best_outside[key[:2]] > read.score:
            read = ReadSpan(read.span, best_outside[key[:2]])
        kept.append(read)
    return sorted(kept, key=lambda read: -read.score)


def _read_on_its_lead_in(span: Span, asked: set[str]) -> bool:
    """A list item is read with its lead-in (``reading.spans``), so an item can read well on the lead-in's
    words alone: "How much does Fabrikam reimburse employees for adoption expenses such as agency and legal
    fees?" read "Fabrikam provides remote employees with: … a one-time home office setup reimbursement of up
    to $500…" through "Fabrikam", "employees" and "reimbursement". When none of the question's topic words
    that the lead-in lacks ("adoption", "agency", "legal", "fee") is among the item's own words, the item
    says nothing about what was asked. Other items of the same list still count: one that does share a
    word keeps the list, and the answer quotes it whole."""
    if not span.lead:
        return False
    lead = set(terms(span.lead))
    beyond = {t for t in asked if t not in lead}
    if not beyond:
        return False
    own = set(terms(span.item))
    return not (beyond & own)


def _sections_read(spans: Sequence[ReadSpan]) -> dict[str, tuple[str, dict[str, str]]]:
    """Each document's title, and the text read under each of its headings."""
    sections: dict[str, tuple[str, dict[str, str]]] = {}
    for read in spans:
        if read.span.heading:
            chunk = read.span.chunk
            texts = sections.setdefault(chunk.document_id, (chunk.title, {}))[1]
            texts[read.span.heading] = f"{texts.get(read.span.heading, '')} {read.span.text}"
    return sections


class AnswerabilityGate(StageBase):
    """Abstain ``low_similarity`` when the best-read sentence scores under ``min_score`` (a
    cross-encoder logit, calibrated with ``benefitsbot eval --calibrate``): the documents share
    words with the question but no sentence of them answers it."""

    name = "answerable"

    def __init__(self, min_score: float, rescue_min_score: float = math.inf) -> None:
        """``rescue_min_score``: the bar for a question the similarity gate let through from just under
        its cutoff (``QueryState.rescue_floor``); such a question is never answered unread."""
        self.min_score = min_score
        self.rescue_min_score = rescue_min_score

    async def run(self, state: QueryState) -> None:
        bar = self.min_score if state.rescue_floor is None else max(self.min_score, self.rescue_min_score)
        if state.rescue_floor is not None and state.reading is None:
            state.abstain(AbstainReason.LOW_SIMILARITY, self.name)
        elif state.reading is not None and state.reading.best < bar:
            state.abstain(AbstainReason.LOW_SIMILARITY, self.name)


def _names_any(words: Sequence[str], terms: frozenset[str]) -> bool:
    """Does any of ``words`` (the topic gate's undocumented words) occur in ``terms`` (topic terms, stems)?"""
    return any(word in terms or stem(word) in terms for word in words)


class TopicGate(StageBase):
    """The topic gate after reading: a question word no visible document contains blocks the
    question only when it is part of what is asked. The best ``top`` read sentences are read again
    with the word(s) taken out; a rise of more than ``margin`` logits means the documents match
    the question without the word much better ("pet insurance" -> "insurance": abstain), a smaller
    one that the word is situation told around the question ("my knee surgery": the reader's gate
    already decided). Runs only for questions with such words; without a reading (Spanish) the
    word blocks, as the exact-word gate did. Under a dense match of at least ``unknown_word_cutoff``
    the word may rise the reading by up to ``dense_pass_margin`` (``math.inf``, the default: every
    such match passes, unread; an unread question always does; benchmarks/README.md "Session 24"),
    and words told only as situation around a question read in parts pass
    (``_asked_about``; benchmarks/README.md "Reading, session 6"). A sentence that already reads as
    a strong answer to the question as asked (a logit of at least ``strong_reading``) passes
    without the ablation: the word is then how the employee put it ("…filing a joint tax return?",
    8.4), not a topic the documents lack (benchmarks/README.md "Reading, session 7"). Below that, a
    reading above ``rise_allowance_from`` may rise by its excess: a sentence that reads 6.4 for "coming
    back from parental leave… without a pay cut?" and 7.2 without "coming" and "cut" answers the
    question either way, while a word that is the topic moves a middling reading by more than it
    stands above that line ("Does Northwind Health Plus cover lasik…": 5.6, +1.1) (benchmarks/README.md
    "Reading, session 11"). A question read in clauses only whose first clause names the word and a
    later clause does not is judged on that first clause's reading (``judge_naming_clause``,
    TOPIC_NAMING_CLAUSE; benchmarks/README.md "Session 26")."""

    name = "topic"

    def __init__(
        self,
        scorer: PassageScorer,
        margin: float,
        unknown_word_cutoff: float | None,
        top: int = 4,
        *,
        strong_reading: float = math.inf,
        rise_allowance_from: float = math.inf,
        dense_pass_margin: float = math.inf,
        judge_naming_clause: bool = False,
    ) -> None:
        self.scorer = scorer
        self.margin = margin
        self.judge_naming_clause = judge_naming_clause
        self.unknown_word_cutoff = unknown_word_cutoff
        self.top = top
        self.strong_reading = strong_reading
        self.rise_allowance_from = rise_allowance_from
        self.dense_pass_margin = dense_pass_margin

    async def run(self, state: QueryState) -> None:
        if not state.unknown_words or not self._asked_about(state):
            return
        strong_match = self.unknown_word_cutoff is not None and state.best_similarity >= self.unknown_word_cutoff
        reading = state.reading
        if reading is None:  # not read (Spanish): the word blocks unless the match is strong, as before
            if not strong_match:
                state.abstain(AbstainReason.LOW_SIMILARITY, self.name)
            return
        question = state.question
        naming = self._naming_clause(state) if self.judge_naming_clause else None
        if naming is not None:
            question = naming
            reading = await asyncio.to_thread(self._read_for, naming, reading)
        allowed = self._allowed_rise(reading.best, strong_match=strong_match)
        if reading.best >= self.strong_reading or allowed == math.inf:
            return
        rise = await asyncio.to_thread(ablation_rise, self.scorer, question, state.unknown_words, reading, self.top)
        # No word to take out (None) says nothing about the word under a strong match, which then passes.
        if (rise is None and not strong_match) or (rise is not None and rise > allowed):
            state.abstain(AbstainReason.LOW_SIMILARITY, self.name)

    @staticmethod
    def _naming_clause(state: QueryState) -> str | None:
        """For a question read in clauses only: its first clause, when that clause names an undocumented
        word and a later one does not. "Does the Keystone plan cover acupuncture, and what is the copay
        per visit?" reads the chiropractic row strongly for its second clause, which asks about what the
        first one named. The first clause sets the topic the later ones ask about, so
        what the answer would show must answer it. A word first named in a later clause is a question
        added to an answerable one ("how much PTO do i get, and is there a cap on how much i can
        bank?"), which the reader's gate decides as before (benchmarks/README.md "Session 26")."""
        queries = reader_queries(state.question)
        if len(queries) < 2 or whole_question(state.question) in queries:
            return None
        names = [_names_any(state.unknown_words, frozenset(topic_terms(query))) for query in queries]
        return queries[0] if names[0] and not all(names) else None

    def _read_for(self, clause: str, reading: Reading) -> Reading:
        """The ``top`` sentences the answer would draw on, read again for ``clause`` alone, best first."""
        spans = [read.span for read in reading.spans[: self.top]]
        scores = read_logits(self.scorer, clause, spans, situation=reading.situation)
        ranked = sorted(zip(spans, scores, strict=True), key=lambda pair: -pair[1])
        return Reading([ReadSpan(span, score) for span, score in ranked], situation=reading.situation)

    def _allowed_rise(self, best: float, *, strong_match: bool = False) -> float:
        """The margin, or the best reading's excess over ``rise_allowance_from`` when that is larger;
        under a strong dense match at least ``dense_pass_margin``."""
        allowed = max(self.margin, best - self.rise_allowance_from)
        return max(allowed, self.dense_pass_margin) if strong_match else allowed

    @staticmethod
    def _asked_about(state: QueryState) -> bool:
        """Does an undocumented word sit in a part of the question that is read as a question? When the
        question has such parts and every undocumented word is outside them, the words were told as
        situation ("…batteries + ear molds cost a fortune 😩 is there a limit on accessories?"): the
        reader already read the asking part alone, and its gate decides. Only English questions are
        read in parts; others keep the word check."""
        if state.reading is None:
            return True
        asked = asked_terms(state.question)
        if asked is None:
            return True
        return _names_any(state.unknown_words, asked)


class KeyWordGate(StageBase):
    """The reader's answer must depend on what was asked: the best ``top`` read sentences are read
    again without the question's ``k`` most specific documented words (lowest counts in the visible
    documents). A rise of more than ``margin`` logits means the sentence fits the question better
    without them, so it is about something related, not the asked thing ("reimburse for adoption
    expenses" -> the wellness stipend sentence): abstain ``low_similarity``. Runs only when the
    reader is about to answer. The best 2 sentences, not 4: on the 317 rows of 14 sets that reach
    the gate the highest rises are the same (benchmarks/README.md "Reading, session 5") at half
    the reads; the best sentence alone misses one near miss (h5-28: 3.54 -> 2.54).

    With ``skip_named`` a re-read sentence that itself names one of the words is about the asked
    thing, and the gate stays out: "can i expense scuba diving lessons w perksplus?" reads the
    lessons list ("• Scuba diving lessons") better without "scuba" (+3.63), and "Is there a minimum
    age requirement for hearing care…" its answer "…limited to individuals 18 years of age or
    older" better without "minimum age" (+3.60); a rise there says the sentence states more than was
    asked, not something else. With ``asked_only`` the words come from the clauses read as
    questions, not the situation told around them (``topic.key_words``) (benchmarks/README.md
    "Reading, session 15"). A best sentence reading at least ``strong_reading`` answers the question as
    asked, and the gate stays out, as the topic gate does ("What hours are the on-site fitness centers
    open on Saturdays and Sundays?" read 10.4; benchmarks/README.md "Session 33")."""

    name = "key_word"

    def __init__(
        self,
        scorer: PassageScorer,
        corpus: CorpusView,
        margin: float,
        k: int = 2,
        top: int = 2,
        *,
        strong_reading: float = math.inf,
        skip_named: bool = True,
        asked_only: bool = True,
    ) -> None:
        self.strong_reading = strong_reading
        self.scorer = scorer
        self.corpus = corpus
        self.margin = margin
        self.k = k
        self.top = top
        self.skip_named = skip_named
        self.asked_only = asked_only

    async def run(self, state: QueryState) -> None:
        if state.reading is None or state.reading.best >= self.strong_reading:
            return
        counts = self.corpus.corrector_for(state.require_access()).stem_counts()
        words = key_words(
            state.question,
            counts,
            exclude=state.unknown_words,
            k=self.k,
            asked=asked_terms(state.question) if self.asked_only else None,
        )
        if not words or (self.skip_named and self._named(words, state.reading)):
            return
        rise = await asyncio.to_thread(ablation_rise, self.scorer, state.question, words, state.reading, self.top)
        if rise is not None and rise > self.margin:
            state.abstain(AbstainReason.LOW_SIMILARITY, self.name)

    def _named(self, words: Sequence[str], reading: Reading) -> bool:
        """Whether a sentence the gate would read again (under its heading) names one of ``words``."""
        said = {term for read in reading.spans[: self.top] for term in terms(read.span.for_reader())}
        return any(word in said for word in words)


class AnswerTypeGate(StageBase):
    """A question that asks for a quantity (an amount, a count, a duration, a date) abstains
    ``low_similarity`` unless a sentence the reader would show states one AND itself reads as an
    answer (a logit of at least ``min_score``, the answerability gate's cutoff). On-topic text
    without the asked figure ("Copays vary depending on the type of service") means the documents
    do not say (``rag_core.reading.answer_type``); so does a figure that only a weakly read
    neighbour carries ("...a monthly account fee may apply" read 3.4, the HSA contribution row
    with its dollar amounts 0.9). A question that names the kind of amount (a premium, a deductible, a
    copay, coinsurance) also needs such a sentence, or its heading, to name that kind
    (``lacks_asked_kind``): the coverage row's "$10,000 increments" is not the premium asked for.
    A question that names a year is not answered by sentences about another year, or from another
    plan year's summary (``names_another_year``). With ``same_document`` the asked quantity must come
    from the best-read sentence's document: a figure from another document is about another benefit
    (benchmarks/README.md "Reading, session 12"). A question that asks for a phone or fax number or an
    e-mail address needs such a sentence to give one (``lacks_asked_contact``), and one that asks for a
    salary range a sentence that gives pay in dollars (``lacks_asked_pay``). With ``tie`` it judges
    the sentences the answer will show, tied ones included (``Reading.answer``): a figure in a
    sentence read within ``tie`` of the best is shown, so it answers. Runs only when the reader is
    about to answer."""

    name = "answer_type"

    def __init__(self, min_score: float, *, same_document: bool = False, tie: float | None = None) -> None:
        self.min_score = min_score
        self.same_document = same_document
        self.tie = tie

    async def run(self, state: QueryState) -> None:
        if state.reading is None:
            return
        answering = [read.span for read in state.reading.answer(tie=self.tie) if read.score >= self.min_score]
        question, framed = state.question, [span.in_context() for span in answering]
        texts = [span.text for span in answering]
        if (
            lacks_asked_quantity(question, self._quantity_texts(answering))
            or lacks_asked_contact(question, texts)
            or lacks_asked_kind(question, framed)
            or lacks_asked_pay(question, framed)
            or names_another_purpose(question, framed)
            or names_another_year(
                question, ((text, span.chunk.title) for text, span in zip(framed, answering, strict=True))
            )
        ):
            state.abstain(AbstainReason.LOW_SIMILARITY, self.name)

    def _quantity_texts(self, answering: Sequence[Span]) -> list[str]:
        """The answering sentences (best-read first) that may carry the asked quantity: with
        ``same_document``, only those of the best-read sentence's document (a figure from another
        document is about another benefit: "What amount does Fabrikam donate to charity on behalf of
        the winning teams…" read the step-challenge sentence best, an HSA contribution one beside it)."""
        if not self.same_document or not answering:
            return [span.text for span in answering]
        document = answering[0].chunk.document_id
        return [span.text for span in answering if span.chunk.document_id == document]
