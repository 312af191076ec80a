"""Citation validation: the last gate between generated text and an employee.

- A citation of a chunk that was not in the prompt rejects the whole answer (the model is
  inventing provenance; nothing it said can be trusted).
- Sentences without a citation are dropped; if nothing is left, the bot abstains.
- Images are removed and links survive only to the documents' own hosts, so a poisoned
  document cannot make the bot emit a tracking pixel or a phishing link.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlparse

from rag_core.types import AbstainReason

CITATION = re.compile(r"\[\^([^\]\s]+)\]")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)[^)]*\)")
# A URL ends before a citation marker or closing punctuation: "see https://x.example/a.[^c1]"
# keeps its citation and full stop.
_BARE_URL = re.compile(r"(?<!\w)(?:https?://|www\.)[^\s<>()\[\]]*[^\s<>()\[\].,;:!?'\"]", re.IGNORECASE)
# A sentence ends at its citations, or at . ! ? followed by what starts a sentence (the rule of
# text.split_sentences), so "6 a.m. to 9 p.m." or "U.S. employees" is not cut in two.
_SENTENCE = re.compile(r".+?(?:(?:\s*\[\^[^\]\s]+\])+[.!?]?|[.!?](?=\s+[A-Z0-9\"“(¿¡$]|\s*$)|$)(?=\s|$)",
                       re.DOTALL)
_TRAILING_CITATIONS = re.compile(r"(?:\s*\[\^[^\]\s]+\])+\s*[.!?]?\s*$")
INSUFFICIENT = "INSUFFICIENT_CONTEXT"


@dataclass
class Validation:
    text: str = ""
    cited: list[str] = field(default_factory=list)
    rejected: AbstainReason | None = None
    dropped_sentences: int = 0
    removed_links: int = 0


def _host(url: str) -> str:
    parsed = urlparse(url if "://" in url else f"https://{url}")
    return (parsed.hostname or "").lower()


def strip_unsafe_links(text: str, allowed_hosts: set[str]) -> tuple[str, int]:
    removed = 0

    def image(_: re.Match[str]) -> str:
        nonlocal removed
        removed += 1
        return ""

    def link(match: re.Match[str]) -> str:
        nonlocal removed
        if _host(match.group(2)) in allowed_hosts:
            return match.group(0)
        removed += 1
        return match.group(1)

    def bare(match: re.Match[str]) -> str:
        nonlocal removed
        if _host(match.group(0)) in allowed_hosts:
            return match.group(0)
        removed += 1
        return ""

    text = _IMAGE.sub(image, text)
    text = _LINK.sub(link, text)
    # Bare URLs outside markdown links (a link's own URL was already vetted above).
    pieces = re.split(r"(\[[^\]]*\]\([^)]*\))", text)
    text = "".join(p if p.startswith("[") and "](" in p else _BARE_URL.sub(bare, p) for p in pieces)
    return text, removed


def sentences(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip().lstrip("-*• ").strip()
        if line:
            out.extend(m.group(0).strip() for m in _SENTENCE.finditer(line) if m.group(0).strip())
    return out


def validate(text: str, allowed_chunk_ids: Iterable[str], allowed_source_uris: Iterable[str]) -> Validation:
    allowed = set(allowed_chunk_ids)
    result = Validation()
    if not text.strip() or text.strip().upper().startswith(INSUFFICIENT):
        result.rejected = AbstainReason.NO_SUPPORTED_CLAIMS
        return result
    unknown = [c for c in CITATION.findall(text) if c not in allowed]
    if unknown:
        result.rejected = AbstainReason.INVALID_CITATION
        return result
    hosts = {_host(uri) for uri in allowed_source_uris if _host(uri)}
    text, result.removed_links = strip_unsafe_links(text, hosts)
    kept: list[str] = []
    for sentence in sentences(text):
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
