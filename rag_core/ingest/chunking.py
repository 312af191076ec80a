"""Token-bounded chunks with overlap and stable ids.

Chunks never span pages (a citation names one page) or markdown sections (a citation links one
anchor). Each chunk starts with the document title and section heading, so a chunk read alone
still says what it is about, and both the embedding and BM25 see that context.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby

from rag_core.ingest.extract import Block, Extracted
from rag_core.tokens import encoding
from rag_core.types import Chunk, DocumentMeta


def chunk_id_for(document_id: str, page: int, ordinal: int) -> str:
    return f"{document_id}_p{page}_c{ordinal:02d}"


def _split_long(text: str, limit: int) -> list[str]:
    """Cut a unit longer than the budget on token boundaries (rare: a huge table row)."""
    enc = encoding()
    ids = enc.encode(text, disallowed_special=())
    return [enc.decode(ids[i : i + limit]) for i in range(0, len(ids), limit)]


def _tail(text: str, tokens: int) -> str:
    enc = encoding()
    ids = enc.encode(text, disallowed_special=())
    return enc.decode(ids[-tokens:]) if tokens > 0 else ""


def chunk_blocks(
    meta: DocumentMeta, blocks: Iterable[Block], *, max_tokens: int = 400, overlap: int = 40
) -> list[Chunk]:
    enc = encoding()
    chunks: list[Chunk] = []

    def count(text: str) -> int:
        return len(enc.encode(text, disallowed_special=()))

    # Group by citation target: a page of a PDF, or a section (anchor) of a markdown file.
    for (page, anchor), group_iter in groupby(blocks, key=lambda b: (b.page, b.anchor)):
        group = list(group_iter)
        ordinal = sum(1 for c in chunks if c.page_number == page)

        def header_for(heading: str) -> str:
            return f"{meta.title} — {heading}".rstrip(" —") + "\n"

        body: list[str] = []
        body_tokens = 0
        current_heading = group[0].heading
        chunk_heading = current_heading  # the heading in effect where the chunk's new text starts
        # Room for the longest header of the group, whichever heading a chunk starts under.
        budget = max_tokens - max(count(header_for(b.heading)) for b in group)

        # emit() runs only inside this iteration, so reading the loop's page/anchor/heading is safe.
        def emit() -> None:  # noqa: B023
            nonlocal ordinal, body, body_tokens
            text = header_for(chunk_heading) + "\n".join(body)  # noqa: B023
            chunks.append(
                Chunk(
                    chunk_id=chunk_id_for(meta.document_id, page, ordinal),  # noqa: B023
                    document_id=meta.document_id,
                    page_number=page,  # noqa: B023
                    content=text,
                    token_count=count(text),
                    anchor=anchor,  # noqa: B023
                )
            )
            ordinal += 1
            seed = _tail("\n".join(body), overlap)
            body = [seed] if seed else []
            body_tokens = count(seed) if seed else 0

        units: list[tuple[str, str]] = []
        for block in group:
            text = block.text
            if block.heading != current_heading:
                current_heading = block.heading
                text = f"{block.heading}\n{text}" if block.heading else text
            pieces = _split_long(text, budget - overlap - 1) if count(text) > budget - overlap - 1 else [text]
            units.extend((block.heading, piece) for piece in pieces)
        fresh = 0  # units added since the last emit: a chunk of nothing but overlap is not a chunk
        for heading, unit in units:
            cost = count(unit) + 1
            if body_tokens + cost > budget and fresh:
                emit()
                fresh = 0
            if not fresh:
                chunk_heading = heading
            body.append(unit)
            body_tokens += cost
            fresh += 1
        if fresh:
            emit()
    return chunks


def chunk_document(
    meta: DocumentMeta, extracted: Extracted, *, max_tokens: int = 400, overlap: int = 40
) -> list[Chunk]:
    return chunk_blocks(meta, extracted.blocks, max_tokens=max_tokens, overlap=overlap)
