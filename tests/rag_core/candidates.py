"""Hand-built Candidate objects for unit tests of the stages after retrieval."""

from __future__ import annotations

from rag_core.types import Candidate


def candidate(
    chunk_id: str,
    body: str,
    *,
    policy_id: str = "hmo-plan",
    title: str = "Fabrikam HMO Plan Summary 2026",
    heading: str = "Costs",
    dense: float = 0.8,
    page: int = 1,
) -> Candidate:
    """A chunk as the chunker makes it: a "title — heading" line, then the body."""
    document_id = chunk_id.rsplit("_p", 1)[0]
    return Candidate(
        chunk_id=chunk_id,
        document_id=document_id,
        policy_id=policy_id,
        title=title,
        page_number=page,
        content=f"{title} — {heading}\n{body}",
        jurisdiction="US-ALL",
        effective_date="2026-01-01T00:00:00Z",
        version="2026.1",
        language="en",
        source_uri=f"https://hr.fabrikam.example/policies/{document_id}.pdf",
        acl_groups=["employees"],
        dense_score=dense,
    )
