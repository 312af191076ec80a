"""Contradictory amounts: two chunks of one policy giving different money values for the same term.

Real plan documents contradict themselves (the Contoso Standard plan states two different
out-of-pocket maximums). The bot must never pick one silently: it shows each value with its
own citation and says that they disagree, or abstains.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.text import MONEY, split_sentences, terms
from rag_core.types import Candidate

# Words that name the plan or the document rather than the term being asked about.
_GENERIC = frozenset({"plan", "benefit", "coverage", "cover", "covered", "northwind", "contoso", "health",
                      "standard", "plus", "employee", "company", "cost", "amount", "pay"})


@dataclass(frozen=True)
class AmountClaim:
    chunk: Candidate
    sentence: str
    amounts: frozenset[str]
    key_terms: frozenset[str]


@dataclass(frozen=True)
class AmountConflict:
    first: AmountClaim
    second: AmountClaim

    @property
    def values(self) -> list[str]:
        return sorted(self.first.amounts | self.second.amounts)


def _normalise_amount(raw: str) -> str:
    return raw.replace(" ", "").split("per")[0].split("/")[0].rstrip(".,")


def amount_claims(question: str, context: Sequence[Candidate]) -> list[AmountClaim]:
    asked = set(terms(question)) - _GENERIC
    claims: list[AmountClaim] = []
    for chunk in context:
        for sentence in split_sentences(chunk.content)[1:]:  # line 0 is the title/heading prefix
            amounts = frozenset(_normalise_amount(m) for m in MONEY.findall(sentence))
            if not amounts:
                continue
            shared = asked & set(terms(sentence))
            # The sentence must name (nearly) everything asked about: "urgent care visit" is not
            # answered by the specialist-visit row just because both say "visit".
            if shared and len(shared) >= max(min(2, len(asked)), round(0.75 * len(asked))):
                claims.append(AmountClaim(chunk, sentence, amounts, frozenset(shared)))
    return claims


def find_amount_conflicts(question: str, context: Sequence[Candidate]) -> list[AmountConflict]:
    """Pairs of sentences from different chunks of the same policy that name the same asked-about
    term with no amount in common. Individual vs family or in- vs out-of-network amounts usually
    share a sentence (or a table row), so they are not flagged."""
    claims = amount_claims(question, context)
    conflicts: list[AmountConflict] = []
    for i, first in enumerate(claims):
        for second in claims[i + 1:]:
            if first.chunk.chunk_id == second.chunk.chunk_id or first.chunk.policy_id != second.chunk.policy_id:
                continue
            if first.key_terms != second.key_terms or first.amounts & second.amounts:
                continue
            if first.sentence == second.sentence:
                continue
            conflicts.append(AmountConflict(first, second))
    return conflicts
