"""Reader ablation of an undocumented word: is the word part of what is asked, or situation told
around the question?

The topic gate's word list (``QueryCorrector.unknown_topics``) says which question words no visible
document contains. Such a word is either the topic the documents fail to cover ("Does Fabrikam
offer *pet* insurance?") or context the employee adds ("...worst case for my *knee* surgery",
"my *boss* said..."). The cross-encoder that already read the context tells them apart: read the
best sentences again with the word taken out. If the documents answer the ablated question much
better, the word is what they fail to match; if the score barely moves, the word did not matter to
the answer and the reader's own gate decides.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from rag_core.reading.reader import PassageScorer, Reading, read_logits
from rag_core.text import STOPWORDS, stem, topic_terms

_WORD = re.compile(r"[\w'’-]+")


def without_words(question: str, unknown: Collection[str]) -> str:
    """``question`` with every word whose stem is in ``unknown`` taken out (the topic gate's terms
    are lowercase stems of the question's words)."""
    stems = {stem(u) for u in unknown}
    kept = _WORD.sub(lambda m: "" if stem(m.group(0)) in stems else m.group(0), question)
    return " ".join(kept.split())


def ablation_rise(
    scorer: PassageScorer, question: str, unknown: Collection[str], reading: Reading, top: int
) -> float | None:
    """How much higher the best of the ``top`` read sentences scores when the unknown words are
    taken out of the question (logits); None when no word could be taken out or nothing was read."""
    ablated = without_words(question, unknown)
    spans = reading.spans[:top]
    if not spans or not ablated or ablated == " ".join(question.split()):
        return None
    best_ablated = max(read_logits(scorer, ablated, [s.span for s in spans], situation=reading.situation))
    return best_ablated - reading.best


# "how often", "how long": the word after "how" names the kind of answer asked (``key_words``).
_ASKED_KIND = re.compile(r"\bhow\s+([a-z]+)", re.IGNORECASE)


def key_words(
    question: str,
    counts: Mapping[str, int],
    exclude: Collection[str] = (),
    k: int = 2,
    *,
    asked: Collection[str] | None = None,
) -> list[str]:
    """The ``k`` most specific documented topic words of ``question``: those with the lowest counts in
    the visible documents (``counts`` by stem), the words the answer must be about ("adoption",
    "reimburse" in "How much does Fabrikam reimburse for adoption expenses?"). With ``asked`` (the
    terms of the clauses read as questions, ``question.asked_terms``), only words asked: "…the agency
    fees are insane 😩 how much does fabrikam reimburse for adoption expenses?" is about adoption, not
    the fees the situation tells. A stop word written without its apostrophe ("whats") is none, and
    neither is the word after "how" ("how often", "how long"): it names the kind of answer asked,
    which an answering sentence gives without repeating it ("…conducted annually")."""
    kind = {stem(word) for word in _ASKED_KIND.findall(question)}
    words = [
        t
        for t in dict.fromkeys(topic_terms(question))
        if t in counts and t not in exclude and t not in STOPWORDS and t not in kind and (asked is None or t in asked)
    ]
    return sorted(words, key=lambda w: counts[w])[:k]
