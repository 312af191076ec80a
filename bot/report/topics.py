"""Topic words: what a question was about, without keeping the question.

Only words that the documents contain, or that a fixed list of benefits terms names, can become
topic words. A person's name, an employee id or a street is in neither, so it is never stored;
"pet" in "Is pet insurance covered?" is on the list, so HR still sees the gap the bot abstained
on. The rarest words across the documents say most about a question ("deductible" over "plan"),
and a listed term the documents lack says most of all: that is usually why the bot abstained.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from rag_core.text import ABBREVIATIONS, FILLERS, SPANISH_STOPWORDS, STOPWORDS, stem

TOPIC_WORDS = 2  # enough to tell "dental deductible" from "medical deductible", few enough to group

# Benefits terms an employee may ask about whether or not the documents cover them. Generic
# English words only: nothing here can name or locate a person.
BENEFIT_TERMS = frozenset(
    """
accident acupuncture adoption allowance ambulance annuity autism bereavement bonus braces broker
cafeteria cancer caregiver chiropractic chiropractor childcare cobra commuter concierge contraception
counseling credit daycare dental dependent dermatology diabetes disability discount
domestic donation egg eldercare equity espp eyeglasses fertility fitness flexible fsa funeral
gym hearing hospital hsa identity immigration insurance ivf jury lasik legal life loan lodging
marriage maternity meal medicare mental military mileage mortgage moving nursing nutrition
obesity orthodontia orthodontics overtime parental parking paternity pension pet pharmacy
physiotherapy prescription rehab relocation remote rsu sabbatical severance sick smoking
spouse stipend stock student surgery surrogacy therapy tobacco transgender transit travel
tuition vacation vaccine vasectomy vision volunteer volunteering weight wellness wfh
""".split()
)

# Words that say what a question asks about a topic, not what the topic is ("Is pet insurance
# covered?", "Do you offer an ESPP?"): never topic words, however rare in the documents.
QUESTION_VERBS = frozenset(
    """
cover covers covered covering offer offers offered provide provides provided include includes included
available eligible allowed allow allows qualify qualifies entitled receive receives apply applies
""".split()
)

_WORD = re.compile(r"[a-záéíóúñü0-9]+(?:[-'][a-záéíóúñü0-9]+)*")


def content_words(question: str) -> list[str]:
    """Lower-cased words of the question that could name a topic (no stop words, fillers or numbers)."""
    text = re.sub(r"['’](s|m|re|ve|ll|d|t)\b", "", question.lower().replace("401(k)", "401k"))
    words = [ABBREVIATIONS.get(w, w) for w in _WORD.findall(text)]
    return [
        w
        for w in words
        if len(w) > 2
        and w not in STOPWORDS
        and w not in SPANISH_STOPWORDS
        and w not in FILLERS
        and w not in QUESTION_VERBS
        and not w.isdigit()
    ]


class TopicVocabulary:
    """The words topic words may be drawn from: each document word with the number of documents
    containing it, plus :data:`BENEFIT_TERMS`."""

    def __init__(self, document_frequency: Mapping[str, int], terms: Iterable[str] = BENEFIT_TERMS) -> None:
        self.document_frequency = dict(document_frequency)
        self.terms = frozenset(terms)
        self._by_stem: dict[str, str] = {}
        for word in sorted(self.terms | set(self.document_frequency), key=lambda w: (-self.frequency(w), w)):
            self._by_stem.setdefault(stem(word), word)

    @classmethod
    def of_documents(cls, vocabularies: Iterable[Mapping[str, int]]) -> TopicVocabulary:
        frequency: dict[str, int] = {}
        for vocabulary in vocabularies:
            for word in vocabulary:
                frequency[word] = frequency.get(word, 0) + 1
        return cls(frequency)

    def frequency(self, word: str) -> int:
        return self.document_frequency.get(word, 0)

    def known(self, word: str) -> str | None:
        """The one form of ``word`` that topics use ("pets" -> "pet"; the documents' most frequent
        form when they have several), or None when it is not known."""
        found = self._by_stem.get(stem(word))
        if found is None and len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            found = self._by_stem.get(stem(word[:-1]))  # "pets": too short for the shared stemmer
        return found

    def topic(self, question: str, limit: int = TOPIC_WORDS) -> tuple[str, ...]:
        """The question's ``limit`` most specific known words, alphabetically (a stable group key)."""
        seen: dict[str, int] = {}
        for position, word in enumerate(content_words(question)):
            form = self.known(word)
            if form is not None and form not in seen:
                seen[form] = position
        ranked = sorted(seen, key=lambda w: (self.frequency(w) > 0, self.frequency(w), seen[w]))
        return tuple(sorted(ranked[:limit]))
