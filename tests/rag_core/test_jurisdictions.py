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
        # a state the asker says they are not in is not the state asked about
        ("not in CA btw. can i split my 12 wks?", set()),
        ("I don't work in California. How many weeks do I get?", set()),
        ("im not based in ca, what is the leave?", set()),
        ("I live in California, not in NY", {"CA"}),
        ("not sure if California rules apply to me", {"CA"}),
        # a state listed after a negated one is negated with it (h54-08 of session 22's sealed set)
        ("wife is due in august, how many weeks do i get as the non birthing parent? not in CA or NY", set()),
        ("not in CA, NY or WA", set()),
        ("I work in neither California nor New York", set()),
        ("not in CA but in NY", {"NY"}),
        ("not sure if CA or NY rules apply", {"CA", "NY"}),
        ("I live in California or New York", {"CA", "NY"}),
    ],
)
def test_named_states(question: str, states: set[str]) -> None:
    assert named_states(question) == states
