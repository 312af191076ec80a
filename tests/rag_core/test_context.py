"""The context budget counts each chunk's tokens as stored at ingest (no tokenizer load per question)."""

from __future__ import annotations

import pytest

from rag_core.context import select_context
from rag_core.tokens import count_tokens
from tests.rag_core.candidates import candidate

pytestmark = pytest.mark.unit


def test_the_stored_token_count_is_the_budget() -> None:
    big = candidate("a_p1_c00", "short text").model_copy(update={"token_count": 1500})
    small = candidate("b_p1_c00", "short text").model_copy(update={"token_count": 200})
    chosen = select_context(
        [big, small, small.model_copy(update={"chunk_id": "c_p1_c00"})], cutoff=0.5, max_tokens=1600
    )
    assert [c.chunk_id for c in chosen] == ["a_p1_c00"]  # 1500 + 200 would overflow 1600


def test_without_a_stored_count_the_text_is_counted() -> None:
    plain = candidate("a_p1_c00", "word " * 50)
    assert plain.token_count is None
    cost = count_tokens(plain.content)
    assert select_context([plain], cutoff=0.5, max_tokens=cost) == [plain]
    assert select_context([plain], cutoff=0.5, max_tokens=cost - 1) == []


def test_chunks_under_the_cutoff_never_count() -> None:
    low = candidate("a_p1_c00", "text", dense=0.2).model_copy(update={"token_count": 10})
    assert select_context([low], cutoff=0.5) == []


def test_a_chunk_its_asking_clause_matches_passes_the_cutoff() -> None:
    """ "rough week, i think i want to talk to someone. whats the EAP phone number?": the situation's
    words pull the whole question's vector away from the page with the number (0.58 against 0.61); the
    asking clause matches it well (``Candidate.asked_score``, ``ASKING_CLAUSE_SIMILARITY``)."""
    page = candidate("eap_p2_c00", "Call Lamna Wellbeing at 1-800-555-0199.", dense=0.58).model_copy(
        update={"token_count": 10, "asked_score": 0.74}
    )
    assert select_context([page], cutoff=0.61) == [page]
    # The mutation: only the whole question's cosine counts.
    assert select_context([page.model_copy(update={"asked_score": None})], cutoff=0.61) == []


def test_a_clause_that_matches_worse_never_lowers_the_similarity() -> None:
    page = candidate("a_p1_c00", "text", dense=0.7).model_copy(update={"asked_score": 0.4})
    assert page.gate_similarity == 0.7
