"""Topic words: a question's most specific words that the documents or the benefits term list know."""

from __future__ import annotations

import pytest

from bot.report.topics import TopicVocabulary, content_words

pytestmark = pytest.mark.unit

DOCUMENTS = [
    {"dental": 3, "deductible": 5, "plan": 40, "insurance": 2, "life": 4, "covered": 12},
    {"medical": 6, "deductible": 2, "plan": 30, "covered": 8, "fabrikam": 9},
    {"vision": 2, "plan": 10, "insurance": 1},
]


@pytest.fixture
def vocabulary() -> TopicVocabulary:
    return TopicVocabulary.of_documents(DOCUMENTS)


def test_the_rarest_known_words_name_the_topic(vocabulary: TopicVocabulary) -> None:
    assert vocabulary.topic("How much is the dental deductible under my plan?") == ("deductible", "dental")
    assert vocabulary.topic("Is the medical deductible covered?") == ("deductible", "medical")


def test_an_undocumented_benefit_term_comes_first(vocabulary: TopicVocabulary) -> None:
    """The word the documents lack is why the bot abstained: it leads the topic."""
    assert vocabulary.topic("Is pet insurance covered by the plan?") == ("insurance", "pet")
    assert vocabulary.topic("Do you offer pets insurance?") == ("insurance", "pet")  # one group, plural or not
    assert vocabulary.topic("Do you cover pet insurance for cats?") == ("insurance", "pet")  # "cover" asks, not names


def test_names_ids_and_numbers_never_become_topic_words(vocabulary: TopicVocabulary) -> None:
    topic = vocabulary.topic("Can Maria Lopez (employee E12345, 42 Elm Street) add her dental plan?")
    assert topic == ("dental", "plan")
    assert vocabulary.topic("Hello there Jennifer") == ()


def test_content_words_drop_question_words_and_fillers() -> None:
    assert content_words("What's the 401(k) match? I'd like to know please") == ["401k", "match", "like"]
