"""The answer-type check: a question that asks for a quantity needs a shown sentence that states one."""

from __future__ import annotations

import pytest

from rag_core.reading.answer_type import asks_quantity, lacks_asked_quantity

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "question",
    [
        "How many days of bereavement leave do I get?",
        "What is the monthly account fee Woodgrove charges after I leave?",
        "whats the OOP max on the PPO",
        "What are the typical copayments for specialist visits?",
        "Within how many days must an investigation be completed?",
        "how often can i get new glasses",
        "at what age does my kid come off my plan",
        "what's the $ amount",
    ],
)
def test_questions_that_ask_for_a_quantity(question: str) -> None:
    assert asks_quantity(question)


@pytest.mark.parametrize(
    "question",
    [
        "What is the process for ensuring cost-effective care under the Northwind Standard plan?",
        "Who is the new pharmacy benefit manager?",
        "Does the plan cover hearing aids?",
        "What is the name of the EAP provider?",
    ],
)
def test_questions_that_ask_for_something_else(question: str) -> None:
    assert not asks_quantity(question)


def test_an_asked_quantity_must_be_stated() -> None:
    question = "What is the daily copayment for a skilled nursing facility?"
    assert lacks_asked_quantity(question, ["Copays vary depending on the type of service you receive."])
    assert not lacks_asked_quantity(question, ["Copays vary.", "Skilled nursing: $150 per day."])
    # counted in words, or free
    assert not lacks_asked_quantity("How many sessions do I get?", ["You get eight sessions per issue."])
    assert not lacks_asked_quantity("How much does counseling cost?", ["EAP sessions are free to you."])


def test_a_frequency_word_answers_how_often_only() -> None:
    assert not lacks_asked_quantity("How often are performance reviews held?", ["Reviews are held annually."])
    # "monthly" only echoes the question: it states no fee
    assert lacks_asked_quantity(
        "What is the monthly account fee after I leave?", ["A monthly account fee may apply after you leave."]
    )


def test_a_question_that_asks_no_quantity_is_never_stopped() -> None:
    assert not lacks_asked_quantity("Who is the new pharmacy benefit manager?", ["Proseware Pharmacy Services."])
