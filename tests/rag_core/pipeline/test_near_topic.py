"""The near-miss suggestion on hand-made states: a covered topic to rephrase towards, only within the
margin under the cutoff, never for a question naming something no visible document contains."""

from __future__ import annotations

import pytest

from rag_core.pipeline.explain import AbstentionExplainer, section_of
from rag_core.pipeline.state import QueryState
from rag_core.types import Candidate

pytestmark = pytest.mark.unit


def _candidate(score: float, content: str, title: str = "Fabrikam Dental Plan Summary 2026") -> Candidate:
    return Candidate(
        chunk_id="dental-plan-2026_p1_c00",
        document_id="dental-plan-2026",
        policy_id="dental-plan",
        title=title,
        page_number=1,
        content=content,
        jurisdiction="US-ALL",
        effective_date="2026-01-01",
        version="2026.1",
        language="en",
        source_uri="https://hr.fabrikam.example/policies/dental-plan-2026.md",
        acl_groups=["employees"],
        dense_score=score,
    )


DENTAL = "Fabrikam Dental Plan Summary 2026 — Dental Coverage\nThe plan ..."
QUESTION = "What dental coverage do I have for crowns?"


def _explainer() -> AbstentionExplainer:
    return AbstentionExplainer(None, None, cutoff=0.44, unknown_word_cutoff=0.66, margin=0.08)  # type: ignore[arg-type]


def _state(question: str, candidates: list[Candidate], unknown: list[str] | None = None) -> QueryState:
    state = QueryState(question, "token")
    state.query = question
    state.unknown_words = unknown or []
    state.candidates = candidates
    return state


@pytest.mark.parametrize(
    ("score", "unknown", "expected"),
    [
        (0.40, [], "Dental Coverage"),  # under the cutoff (0.44) by less than the margin
        (0.50, [], "Dental Coverage"),  # over it, but the answer could not be supported
        (0.30, [], None),  # too far
        (0.40, ["crown"], None),  # names something no visible document contains
    ],
)
def test_near_topic(score: float, unknown: list[str], expected: str | None) -> None:
    near = _explainer().near_topic(_state(QUESTION, [_candidate(score, DENTAL)], unknown))
    assert (near.section if near else None) == expected


def test_the_closest_section_that_names_the_topic_wins() -> None:
    unrelated = _candidate(0.43, "Fabrikam Dental Plan Summary 2026 — Eligible dependents\nSpouses ...")
    related = _candidate(0.41, DENTAL)
    near = _explainer().near_topic(_state(QUESTION, [unrelated, related]))
    assert near is not None and near.section == "Dental Coverage"
    assert _explainer().near_topic(_state("Is there a legal services plan?", [unrelated])) is None


def test_a_chunk_without_a_heading_has_no_section() -> None:
    assert section_of(_candidate(0.5, "Fabrikam Dental Plan Summary 2026\nThe plan ...")) == ""
    assert section_of(_candidate(0.5, "Fabrikam Dental Plan Summary 2026 — Fabrikam Dental Plan Summary 2026\nx")) == ""
    assert section_of(_candidate(0.5, "Another title — Heading\nbody")) == ""
