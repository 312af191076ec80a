"""Contradictory amounts: two chunks of one policy giving different money values for the same term.

Real plan documents contradict themselves (the Contoso Standard plan states two different
out-of-pocket maximums). The bot must never pick one silently: it shows each value with its
own citation and says that they disagree, or abstains.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.text import MONEY, split_sentences, terms
from rag_core.types import Candidate

# Words that name the plan or the document rather than the term being asked about.
_GENERIC = frozenset(
    {
        "plan",
        "benefit",
        "coverage",
        "cover",
        "covered",
        "northwind",
        "contoso",
        "health",
        "standard",
        "plus",
        "employee",
        "company",
        "cost",
        "amount",
        "pay",
    }
)


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


_ROW = re.compile(r"^(?P<label>[^:;]{1,80}:[^;]+);(?P<cells>.+)$")
_WINDOW_BEFORE, _WINDOW_AFTER = 8, 4


def _amounts_with_subjects(sentence: str) -> list[tuple[str, frozenset[str]]]:
    """Each money amount with the words that say what it is the amount *of*.

    A table row ("Benefit: Copay - specialist visit; PPO Plan: $50; HDHP with HSA: 20% after
    deductible.") is about its label and each cell's column, not every word of the row; in prose an
    amount is about the words near it, not a clause at the other end of the sentence.
    """
    row = _ROW.match(sentence)
    if row:
        out = []
        for cell in row.group("cells").split(";"):
            header, _, value = cell.partition(":")
            amounts = frozenset(_normalise_amount(m) for m in MONEY.findall(value))
            if amounts:
                out.append((f"{row.group('label')} {header}", amounts))
        return out
    words = sentence.split()
    out = []
    for i, word in enumerate(words):
        found = MONEY.findall(" ".join(words[i : i + 3])) if word.lstrip("(").startswith("$") else []
        if found:
            near = " ".join(words[max(0, i - _WINDOW_BEFORE) : i + 1 + _WINDOW_AFTER])
            out.append((near, frozenset({_normalise_amount(found[0])})))
    return out


def amount_claims(question: str, context: Sequence[Candidate]) -> list[AmountClaim]:
    asked = set(terms(question)) - _GENERIC
    claims: list[AmountClaim] = []
    need = max(min(2, len(asked)), round(0.75 * len(asked)))
    for chunk in context:
        for sentence in split_sentences(chunk.content)[1:]:  # line 0 is the title/heading prefix
            # Only the amounts that are about (nearly) everything asked: "urgent care visit" is not
            # answered by the specialist-visit row just because both say "visit", nor the deductible
            # by a copay row whose other cell says "20% after deductible".
            amounts: set[str] = set()
            shared: set[str] = set()
            for subject, found in _amounts_with_subjects(sentence):
                about = asked & set(terms(subject))
                if about and len(about) >= need:
                    amounts |= found
                    shared |= about
            if amounts:
                claims.append(AmountClaim(chunk, sentence, frozenset(amounts), frozenset(shared)))
    return claims


def _subject(claim: AmountClaim, question: str) -> frozenset[str]:
    """What a claim is about: its asked-about terms plus those its document's title implies
    ("The out-of-pocket maximum is $6,350" in the HMO summary is about the HMO)."""
    return claim.key_terms | (frozenset(terms(question)) & frozenset(terms(claim.chunk.title)) - _GENERIC)


def find_amount_conflicts(question: str, context: Sequence[Candidate]) -> list[AmountConflict]:
    """Pairs of sentences from different chunks of the same policy that name the same asked-about
    term with no amount in common. Individual vs family or in- vs out-of-network amounts usually
    share a sentence (or a table row), so they are not flagged."""
    claims = amount_claims(question, context)
    conflicts: list[AmountConflict] = []
    for i, first in enumerate(claims):
        for second in claims[i + 1 :]:
            if first.chunk.chunk_id == second.chunk.chunk_id or first.chunk.policy_id != second.chunk.policy_id:
                continue
            if _subject(first, question) != _subject(second, question) or first.amounts & second.amounts:
                continue
            if first.sentence == second.sentence:
                continue
            conflicts.append(AmountConflict(first, second))
    return conflicts
