"""Citation validation: the last gate between generated text and an employee.

- A citation of a chunk that was not in the prompt rejects the whole answer (the model is
  inventing provenance; nothing it said can be trusted).
- Sentences without a citation are dropped; if nothing is left, the bot abstains.
- Images are removed and links survive only to the documents' own hosts and the HR contact's,
  in whatever form they come (:mod:`rag_core.links`), so a poisoned document cannot make the bot
  emit a tracking pixel or a phishing link.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from rag_core.links import LinkPolicy
from rag_core.types import AbstainReason

CITATION = re.compile(r"\[\^([^\]\s]+)\]")
# A sentence ends at its citations, or at . ! ? followed by what starts a sentence (the rule of
# text.split_sentences), so "6 a.m. to 9 p.m." or "U.S. employees" is not cut in two.
_SENTENCE = re.compile(r".+?(?:(?:\s*\[\^[^\]\s]+\])+[.!?]?|[.!?](?=\s+[A-Z0-9\"“(¿¡$]|\s*$)|$)(?=\s|$)", re.DOTALL)
_TRAILING_CITATIONS = re.compile(r"(?:\s*\[\^[^\]\s]+\])+\s*[.!?]?\s*$")
INSUFFICIENT = "INSUFFICIENT_CONTEXT"


@dataclass
class Validation:
    text: str = ""
    cited: list[str] = field(default_factory=list)
    rejected: AbstainReason | None = None
    dropped_sentences: int = 0
    removed_links: int = 0


def strip_unsafe_links(text: str, allowed: Iterable[str]) -> tuple[str, int]:
    """Images and every link not to an allowed host (URLs, hosts or e-mail domains) removed: the
    one policy of :mod:`rag_core.links`."""
    return LinkPolicy.of(allowed).strip(text)


# "…is $1,250. the plan also covers…": a lowercase sentence glued after a full stop is a sentence of
# its own (with its own citation or none), unless the full stop ends an abbreviation.
_GLUED = re.compile(r"(?<=[.!?])\s+(?=[a-z])")
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|approx|incl|no|dept|a\.m|p\.m|u\.s|st|mr|mrs|ms|dr|jr|sr)"
    r"|\b[A-Za-z])\.$",
    re.IGNORECASE,
)
# Anything that looks like a citation marker; one that is not exactly [^chunk_id] is malformed.
_MARKERISH = re.compile(r"\[\s*\^[^\]]*\]|\[\^[^\]]*$")


def _split_glued(sentence: str) -> list[str]:
    parts: list[str] = []
    start = 0
    for match in _GLUED.finditer(sentence):
        head = sentence[start : match.start()]
        if _ABBREVIATION.search(head):
            continue
        parts.append(head)
        start = match.end()
    parts.append(sentence[start:])
    return [p.strip() for p in parts if p.strip()]


def malformed_markers(sentence: str) -> list[str]:
    return [m.group(0) for m in _MARKERISH.finditer(sentence) if not CITATION.fullmatch(m.group(0))]


def sentences(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip().lstrip("-*• ").strip()
        if line:
            for match in _SENTENCE.finditer(line):
                out.extend(_split_glued(match.group(0).strip()))
    return out


def validate(
    text: str, allowed_chunk_ids: Iterable[str], allowed_source_uris: Iterable[str], *, link_hosts: Iterable[str] = ()
) -> Validation:
    """``allowed_source_uris`` (the prompt's documents) and ``link_hosts`` (the HR contact) make
    the link allow-list."""
    allowed = set(allowed_chunk_ids)
    result = Validation()
    if not text.strip() or text.strip().upper().startswith(INSUFFICIENT):
        result.rejected = AbstainReason.NO_SUPPORTED_CLAIMS
        return result
    unknown = [c for c in CITATION.findall(text) if c not in allowed]
    if unknown:
        result.rejected = AbstainReason.INVALID_CITATION
        return result
    text, result.removed_links = strip_unsafe_links(text, [*allowed_source_uris, *link_hosts])
    kept: list[str] = []
    for sentence in sentences(text):
        if malformed_markers(sentence):  # "[^ c1]": uncited text pretending to be cited
            result.dropped_sentences += 1
            continue
        if _TRAILING_CITATIONS.search(sentence) and CITATION.sub("", sentence).strip(" .!?"):
            kept.append(sentence)
        else:
            result.dropped_sentences += 1
    if not kept:
        result.rejected = AbstainReason.NO_SUPPORTED_CLAIMS
        return result
    result.text = " ".join(kept)
    for chunk_id in CITATION.findall(result.text):
        if chunk_id not in result.cited:
            result.cited.append(chunk_id)
    return result
