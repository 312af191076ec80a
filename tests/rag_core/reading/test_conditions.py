"""Age rules: a question that tells someone's age gets the age rules of the section it is answered from."""

from __future__ import annotations

import pytest

from rag_core.reading.conditions import age_rules, tells_an_age
from rag_core.reading.spans import split_spans
from tests.rag_core.candidates import candidate

pytestmark = pytest.mark.unit

HEARING = candidate(
    "plus_p30_c01",
    "Hearing Care\nNorthwind Health Plus covers up to $1,500 every 3 years for hearing aid services.\n"
    "Hearing care coverage is limited to individuals 18 years of age or older.\n"
    "Eligible dependents\nChildren are covered up to age 26.",
)


@pytest.mark.parametrize(
    "question",
    [
        "my 10 yr old failed her hearing test, can i use the hearing aid coverage for her?",
        "my 15yo needs hearing aids",
        "my son (he's 22) is starting habilitation therapy",
        "she is 16 and needs glasses",
        "I'm 57, can I make a catch-up contribution?",
        "What happens to my life insurance at age 70?",
        "coverage for a 42-year-old employee",
    ],
)
def test_a_question_that_tells_an_age(question: str) -> None:
    assert tells_an_age(question)


@pytest.mark.parametrize(
    "question",
    [
        "he's 5 weeks early, is the NICU covered?",
        "i'm 30 days into the job, am I eligible?",
        "im 40 minutes from the nearest in-network clinic",
        "How many visits per year are covered?",
        "my 2nd pair of glasses",
    ],
)
def test_durations_and_counts_are_no_age(question: str) -> None:
    assert not tells_an_age(question)


def test_the_age_rule_of_the_answers_section_is_added_and_not_another_sections() -> None:
    covers, limited, children = split_spans(HEARING)
    question = "my 10 yr old failed her hearing test, can i use the hearing aid coverage for her?"
    assert age_rules(question, [covers], [HEARING]) == [limited]  # "up to age 26" is another section's rule
    assert age_rules(question, [limited, covers], [HEARING]) == []  # already quoted
    assert age_rules("can i use the hearing aid coverage for my kid?", [covers], [HEARING]) == []  # no age told
    assert age_rules(question, [children], [HEARING]) == []  # the dependents section states only its own rule
