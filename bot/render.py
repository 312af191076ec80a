"""Platform-neutral rendering helpers: footnote numbering and source links.

The core marks each supported sentence with ``[^chunk_id]``; people read numbered references
(``[1]``) that match a numbered "Sources" list, so both renderers share this one numbering.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_core.types import Answer, Citation

MARKER_RE = re.compile(r"\s?\[\^([^\]\s]+)\]")


@dataclass(frozen=True)
class Source:
    number: int
    title: str
    page: int
    link: str | None


def citation_link(citation: Citation) -> str | None:
    """A link to the cited page, or None when the source is not a web address people can open."""
    uri = citation.source_uri or ""
    if not uri.startswith(("https://", "http://")):
        return None
    if "#" in uri:
        return uri
    return f"{uri}#page={citation.page}" if citation.page else uri


def number_citations(answer: Answer) -> tuple[str, list[Source]]:
    """Replace ``[^chunk_id]`` markers with ``[n]`` and return the numbered sources.

    Numbers follow first appearance in the text; chunks of the same page share a number;
    markers naming a chunk the core did not cite are dropped (never invented as a source).
    """
    by_chunk = {c.chunk_id: c for c in answer.citations}
    numbers: dict[tuple[str, int], int] = {}
    sources: list[Source] = []

    def number_for(citation: Citation) -> int:
        key = (citation.document_id, citation.page)
        if key not in numbers:
            numbers[key] = len(numbers) + 1
            sources.append(Source(numbers[key], citation.title, citation.page, citation_link(citation)))
        return numbers[key]

    def replace(match: re.Match[str]) -> str:
        citation = by_chunk.get(match.group(1))
        if citation is None:
            return ""
        return f" [{number_for(citation)}]"

    text = MARKER_RE.sub(replace, answer.answer)
    text = re.sub(r"(\[\d+\])(?: \1)+", r"\1", text)  # "[1] [1]" -> "[1]"
    for citation in answer.citations:  # cited but never marked: still listed
        number_for(citation)
    return text.strip(), sources


def hr_markdown(hr_contact: str) -> str:
    """The HR contact line in Markdown (Teams cards and messages)."""
    return f"Questions about your situation? [Contact HR]({hr_contact})"


def plain_text(answer_text: str, limit: int = 280) -> str:
    """Marker-free text for notifications and fallbacks."""
    text = MARKER_RE.sub("", answer_text)
    text = re.sub(r"[*_`#>]", "", text)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
