"""The US states a question names: in full, by code in capitals, or after "in" as chat writes it."""

from __future__ import annotations

import pytest

from rag_core.jurisdictions import named_states

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("question", "states"),
    [
        ("How many weeks of paid parental leave do I get in California?", {"CA"}),
        ("in ca, baby due in aug. can i split my leave?", {"CA"}),
        ("im in NY now, what changes?", {"NY"}),
        ("flying to New York or San Francisco for work", {"NY"}),
        # codes that are words or other abbreviations count in full only
        ("I work in OR sometimes", set()),
        ("is it OK to take leave IN june?", set()),
        ("my MD says so", set()),
        ("what is the ca policy?", set()),
        ("how many weeks do i get?", set()),
    ],
)
def test_named_states(question: str, states: set[str]) -> None:
    assert named_states(question) == states
