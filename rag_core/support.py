"""Claim support: a cited sentence may say only what the chunks it cites say.

The citation validator proves a sentence *cites* a chunk of the prompt; this proves the chunk
*supports* it. Lexical, explainable checks (the reranker-grade cross-encoder is not available
offline yet; see the report):

1. every number, amount, percentage and date in the sentence appears in a cited chunk
   ("covers 100% of implants" citing a chunk that says 50% fails);
2. every plan or proper name (an all-caps acronym such as HDHP, a capitalised name inside the
   sentence such as "Northwind Standard" or "California", a month) appears in a cited chunk
   (a swapped plan or state fails), and a plan's figure must be stated for that plan (one sentence
   or table row holds both);
3. the sentence's content words are covered by the cited chunks above a floor
   (:data:`SUPPORT_FLOOR`), so invented coverage ("Fabrikam covers LASIK surgery in full") and
   citations of an unrelated chunk fail.

Not caught: a negation flipped without changing any word the chunk lacks ("implants are not
covered" against "implants are covered"). The extractive default quotes chunk sentences verbatim,
so it always passes; the check matters for generated text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rag_core.citations import CITATION
from rag_core.links import REMOVED_LINK
from rag_core.spelling import _dictionary
from rag_core.text import FILLERS, STOPWORDS, split_sentences, terms

# Share of a sentence's content words that its cited chunks must contain.
SUPPORT_FLOOR = 0.6
# A sentence may add at most this many content words its chunks lack, and only everyday ones
# (English frequency >= COMMON_WORD in pyspellchecker's list: "free", "full", "get"), never a
# specific one ("acupuncture", "orthodontia"): that is how invented coverage reads.
MAX_NEW_WORDS = 1
COMMON_WORD = 100_000

_NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "fifteen": "15",
    "twenty": "20",
    "thirty": "30",
    "sixty": "60",
    "ninety": "90",
    "hundred": "100",
    "once": "1",
    "twice": "2",
    "half": "50%",
}
_NUMBER = re.compile(r"(?<![\w.])\$?\d[\d,]*(?:\.\d+)?(?:\s?%|\s?percent\b)?")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9&]{1,7}s?\b")
_CAPITALISED = re.compile(r"\b[A-Z][a-z][\w'-]*")
# Capitalised words that are not names: sentence furniture an answer may add.
_NOT_NAMES = frozenset(
    """
I You Your Yes No The This That These Those It Its If For In On At To Of And Or But With Under After Before
Once Each Every All Any Some Most Employees Employee Members Member Plan Plans Coverage Covered Benefits
Benefit Note Please Only Also However Both Either Neither
""".split()
)


def _numbers(text: str) -> set[str]:
    found = set()
    for match in _NUMBER.finditer(text):
        value = match.group(0).replace("$", "").replace(",", "").replace(" ", "")
        value = value.replace("percent", "%")
        value = re.sub(r"\.0+(?=%|$)", "", value)
        found.add(value)
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _NUMBER_WORDS:
            found.add(_NUMBER_WORDS[word])
    return found


def _names(text: str) -> set[str]:
    """Acronyms, capitalised names inside the sentence, and months: what a swap would change."""
    body = CITATION.sub("", text)
    names = {
        m.group(0).rstrip("s") if m.group(0).endswith("s") and m.group(0)[:-1].isupper() else m.group(0)
        for m in _ACRONYM.finditer(body)
    }
    first = re.search(r"[A-Za-z]", body)
    for match in _CAPITALISED.finditer(body):
        if first and match.start() == first.start():
            continue  # the sentence's first word is capitalised anyway
        if match.group(0) not in _NOT_NAMES:
            names.add(match.group(0))
    names.update(w for w in re.findall(r"[a-z]+", body.lower()) if w in _MONTHS)
    return {n for n in names if len(n) > 1}


def _contains_name(name: str, haystack: str, lowered: str) -> bool:
    if name.lower() in _MONTHS:
        return name.lower()[:3] in lowered
    return name.lower() in lowered


@dataclass(frozen=True)
class Support:
    supported: bool
    reason: str  # "" when supported
    score: float  # share of the sentence's content words the cited chunks contain


def coverage(sentence: str, evidence: str) -> float:
    words = [t for t in terms(CITATION.sub("", sentence)) if t not in STOPWORDS and not t.isdigit()]
    if not words:
        return 1.0
    have = set(terms(evidence))
    return sum(w in have for w in words) / len(words)


def check(sentence: str, cited_texts: Iterable[str], *, floor: float = SUPPORT_FLOOR) -> Support:
    """Whether ``sentence`` says only what ``cited_texts`` (the chunks it cites) say."""
    evidence = "\n".join(cited_texts)
    # A link's target is not a claim (the link policy has vetted it already); its label is. Nor is
    # the mark the link policy leaves where it removed one.
    claim = _URL.sub(" ", _LINK_TARGET.sub("]", CITATION.sub("", sentence))).replace(REMOVED_LINK, " ")
    score = coverage(claim, evidence)
    missing_numbers = _numbers(claim) - _numbers(evidence)
    if missing_numbers:
        return Support(False, f"figure not in the cited text: {', '.join(sorted(missing_numbers))}", score)
    lowered = evidence.lower()
    missing_names = sorted(n for n in _names(claim) if not _contains_name(n, evidence, lowered))
    if missing_names:
        return Support(False, f"name not in the cited text: {', '.join(missing_names)}", score)
    unpaired = _unpaired(claim, evidence)
    if unpaired:
        return Support(False, f"figure not stated for {unpaired} in the cited text", score)
    new = _new_words(claim, evidence)
    if len(new) > MAX_NEW_WORDS or any(not _common(w) for w in new):
        return Support(False, f"words not in the cited text: {', '.join(new)}", score)
    if score < floor:
        return Support(False, f"cited text covers {score:.2f} of the sentence (< {floor})", score)
    return Support(True, "", score)


def _unpaired(claim: str, evidence: str) -> str:
    """A plan's figure must be stated *for that plan*: "The HDHP deductible is $1,250" is not supported
    by a table whose PPO row says $1,250 and whose HDHP row says $3,000. Each figure of the claim (years
    aside) must share one sentence or table row of the evidence with every plan acronym of the claim."""
    plans = {a for a in _ACRONYM.findall(CITATION.sub("", claim)) if not a.isdigit()}
    figures = {n for n in _numbers(claim) if not re.fullmatch(r"(19|20)\d\d", n)}
    if not plans or not figures:
        return ""
    units = [(_numbers(u), u) for u in split_sentences(evidence)]
    for figure in sorted(figures):
        if not any(figure in numbers and all(p in unit for p in plans) for numbers, unit in units):
            return "/".join(sorted(plans))
    return ""


def _new_words(claim: str, evidence: str) -> list[str]:
    have = set(terms(evidence))
    return sorted(
        {
            w
            for w in terms(claim)
            if len(w) > 2 and not w.isdigit() and w not in FILLERS and w not in STOPWORDS and w not in have
        }
    )


def _common(word: str) -> bool:
    dictionary = _dictionary("en")
    if dictionary is None:
        return False
    return max(dictionary.word_frequency[word], dictionary.word_frequency[word + "s"]) >= COMMON_WORD
