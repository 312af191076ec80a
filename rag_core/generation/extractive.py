"""The embedded default generator: no model writes anything. It picks the sentences of the
selected chunks that best answer the question and cites each one, so every word shown is a
word of an official document."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from rag_core.conflicts import find_amount_conflicts
from rag_core.generation.base import GenerationResult
from rag_core.reading.conditions import age_rules
from rag_core.reading.reader import Reading
from rag_core.reading.spans import Span, whole_list
from rag_core.text import MONEY, NUMBER, local_idf, split_sentences, terms
from rag_core.types import Candidate

_QUANTITY = re.compile(
    r"\b(how (much|many|long)|cost|amount|percent|limit|maximum|minimum|deductible|copay|"
    r"cuánt[oa]s?|weeks?|days?|match|allowance|stipend|contribution)\b",
    re.IGNORECASE,
)


# A table row as extraction renders it: "Benefit: Deductible (individual / family); PPO Plan: $1,250 ...".
_ROW_LABEL = re.compile(r"^[^:;]{1,60}:\s*([^;]+);")


# Questions whose answer is a number: a sentence without one cannot answer them, however many
# words it shares with the question ("How much is reimbursed for adoption?" is not answered by
# "placement of a child for adoption").
_ASKS_AMOUNT = re.compile(r"\b(how (much|many|long)|what percent(age)?|cuánt[oa]s?|qué porcentaje)\b", re.IGNORECASE)

# Questions whose answer is money (or a share of it): a sentence that only counts days or hours
# cannot answer "How much does Fabrikam reimburse for adoption expenses?", however closely its
# other words match ("placement of a child for adoption ... 90 days").
_ASKS_MONEY = re.compile(
    r"\b(how much|cuánto|cuánta)\b.*\b(reimburs\w*|cost\w*|pay|pays|paid|charge[sd]?|price\w*|premiums?|"
    r"contribut\w*|fees?|spend|allowance|stipend|dollars?|budget|put into|cover|reembols\w*|cuesta|paga|cubre)\b",
    re.IGNORECASE,
)
_PERCENT = re.compile(r"\d\s?(%|percent\b|por ciento\b)", re.IGNORECASE)


class ExtractiveGenerator:
    model_name = "extractive"

    def __init__(self, max_sentences: int = 3, relative_floor: float = 0.6, tie: float | None = None) -> None:
        """``tie``: quote one sentence more when it reads within ``tie`` logits of the best
        (``Reading.answer``; ``ANSWER_TIE_MARGIN``). The gates still judge the first ``max_sentences``:
        a tied sentence adds to an answer, never makes one."""
        self.max_sentences = max_sentences
        self.relative_floor = relative_floor
        self.tie = tie

    async def generate(
        self,
        question: str,
        context: Sequence[Candidate],
        *,
        history: Sequence[str] = (),
        reading: Reading | None = None,
    ) -> GenerationResult:
        if reading is not None:
            return GenerationResult(text=self.quote(question, context, reading), model=self.model_name)
        return GenerationResult(text=self.compose(question, context), model=self.model_name)

    async def aclose(self) -> None:
        return None

    def quote(self, question: str, context: Sequence[Candidate], reading: Reading) -> str:
        """The reader's best sentences: a model picked them, no word-overlap rule is involved; for a
        question that tells someone's age, the age rules of the best sentence's section right after it."""
        read = [r.span for r in reading.answer(self.max_sentences, tie=self.tie)]
        chosen = _whole_lists([*read[:1], *age_rules(question, read, context), *read[1:]])
        if not chosen:
            return "INSUFFICIENT_CONTEXT"
        return self._with_conflicts(question, context, chosen)

    def compose(self, question: str, context: Sequence[Candidate]) -> str:
        """Word-overlap picking: the fallback for questions the reader does not read (Spanish)."""
        scored = self.score_sentences(question, context)
        if not scored or scored[0][0] <= 0:
            return "INSUFFICIENT_CONTEXT"
        best = scored[0][0]
        chosen: list[tuple[str, Candidate]] = []
        seen: set[str] = set()
        for score, sentence, chunk in scored:
            if len(chosen) == self.max_sentences or score < best * self.relative_floor:
                break
            if sentence in seen:
                continue
            seen.add(sentence)
            chosen.append((sentence, chunk))
        return self._with_conflicts(question, context, chosen)

    @staticmethod
    def _with_conflicts(question: str, context: Sequence[Candidate], chosen: list[tuple[str, Candidate]]) -> str:
        seen = {sentence for sentence, _ in chosen}
        # Disagreeing amounts: show every side, each with its own citation (never one silently).
        for conflict in find_amount_conflicts(question, context):
            for claim in (conflict.first, conflict.second):
                if claim.sentence not in seen:
                    seen.add(claim.sentence)
                    chosen.append((claim.sentence, claim.chunk))
        # A read unit may hold several sentences (an FAQ question with its answer): each is cited,
        # since the validator keeps only cited sentences.
        return " ".join(
            _cite(sentence, chunk.chunk_id) for unit, chunk in chosen for sentence in split_sentences(unit) or [unit]
        )

    def score_sentences(self, question: str, context: Sequence[Candidate]) -> list[tuple[float, str, Candidate]]:
        asked = set(terms(question))
        if not asked:
            return []
        rows: list[tuple[str, Candidate, set[str]]] = []
        for chunk in context:
            lines = split_sentences(chunk.content)
            for sentence in lines[1:]:  # line 0 is the "title — heading" prefix, not a statement
                if len(sentence.split()) >= 3:
                    rows.append((sentence, chunk, set(terms(sentence))))
        if not rows:
            return []
        idf = local_idf(asked, [bag for _, _, bag in rows])
        total = math.fsum(idf.values()) or 1.0  # fsum: order-free, so ties break the same in every process
        wants_quantity = bool(_QUANTITY.search(question))
        needs_number = bool(_ASKS_AMOUNT.search(question))
        needs_money = bool(_ASKS_MONEY.search(question))
        rank_of = {c.chunk_id: i for i, c in enumerate(context)}
        scored = []
        for sentence, chunk, bag in rows:
            matched = asked & bag
            coverage = math.fsum(idf[t] for t in matched) / total
            # One shared word that only names the document (the company, in every title) is not an answer.
            if not matched or (len(matched) == 1 and matched <= set(terms(chunk.title))):
                continue
            if needs_number and not (MONEY.search(sentence) or NUMBER.search(sentence)):
                continue
            if needs_money and not (MONEY.search(sentence) or _PERCENT.search(sentence)):
                continue
            score = coverage + 0.05 / (1 + rank_of[chunk.chunk_id])
            if wants_quantity and (MONEY.search(sentence) or NUMBER.search(sentence)):
                score += 0.15
            label = _ROW_LABEL.match(sentence)
            if label:  # a row *about* what was asked beats a row that merely mentions it in a cell
                score += 0.2 * math.fsum(idf[t] for t in asked & set(terms(label.group(1)))) / total
            if len(sentence.split()) > 80:
                score -= 0.1
            scored.append((score, sentence, chunk))
        scored.sort(key=lambda row: -row[0])
        return scored


# How a list item ends when its list runs on: a comma, semicolon or colon, maybe "and" / "or".
_RUN_ON_END = re.compile(r"\s*[,;:]\s*(?:and|or)?$|\s+(?:and|or)$", re.IGNORECASE)


def _whole_lists(spans: Sequence[Span]) -> list[tuple[str, Candidate]]:
    """The units to quote; an item of a list is quoted as its whole list, lead-in and every item in
    the document's order, once however many of its items were read best: one condition of an "all of
    the following are true:" list shown alone reads as if it were enough."""
    units: list[tuple[str, Candidate]] = []
    quoted: set[tuple[str, int]] = set()  # (chunk id, where the list's lead-in starts)
    for span in spans:
        if not span.lead:
            units.append((span.text, span.chunk))
            continue
        key = (span.chunk.chunk_id, span.start)
        if key in quoted:
            continue
        quoted.add(key)
        units.append((whole_list(span), span.chunk))
    return units


def _cite(sentence: str, chunk_id: str) -> str:
    # A list item quoted alone ("…submitted within 90 days of starting a remote position; and") is
    # shown as a sentence of its own, not ending "; and.".
    sentence = _RUN_ON_END.sub("", sentence.rstrip())
    if not sentence.endswith((".", "!", "?")):
        sentence += "."
    return f"{sentence}[^{chunk_id}]"
