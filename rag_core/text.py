"""Small text utilities shared by the extractive generator, the reranker and conflict checks."""

from __future__ import annotations

import re

STOPWORDS = frozenset("""
a an the of and or to in on at for with by from as is are was were be been being do does did
what which who whom whose how when where why can could should would may might will shall i me my
we our you your he she it its they them their this that these those there here about into over
under if then than so not no yes any all each per vs get gets got have has had much many
""".split())

_WORD = re.compile(r"[a-z0-9][a-z0-9$%,.'()-]*[a-z0-9%)]|[a-z0-9]", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(¿¡$])")
MONEY = re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:per|/)\s?\w+)?")
NUMBER = re.compile(r"\b\d[\d,]*(?:\.\d+)?\s?(?:%|percent|weeks?|days?|months?|years?|hours?)?")


def stem(word: str) -> str:
    """A light suffix stripper: enough to match 'deductibles' with 'deductible'."""
    word = word.lower().strip(".,;:()'\"")
    for suffix in ("ies", "es", "s"):
        if len(word) > 4 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def terms(text: str) -> list[str]:
    return [stem(w) for w in re.findall(r"[a-záéíóúñü0-9]+(?:[-'][a-z0-9]+)*", text.lower())
            if w not in STOPWORDS and len(w) > 1]


def split_sentences(text: str) -> list[str]:
    """Sentences of a chunk body; table rows are already one line each."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        out.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return out
