"""rag_core.text.stem: a word and its plural share one stem, and words that only end in "s" keep it."""

import pytest

from rag_core.text import stem


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("services", "service"),
        ("colleges", "college"),
        ("rates", "rate"),
        ("employees", "employee"),
        ("fees", "fee"),
        ("deductibles", "deductible"),
        ("copies", "copy"),
        ("taxes", "tax"),
        ("classes", "class"),
        ("matches", "match"),
        ("wishes", "wish"),
        ("lenses", "lens"),
        ("bonuses", "bonus"),
        ("spouses", "spouse"),
        ("days", "day"),
    ],
)
def test_a_word_and_its_plural_share_a_stem(plural: str, singular: str) -> None:
    assert stem(plural) == stem(singular)


@pytest.mark.parametrize("word", ["class", "bonus", "various", "basis", "plus", "lens", "hrs"])
def test_a_word_that_only_ends_in_s_is_not_cut(word: str) -> None:
    assert stem(word) == word


def test_stemming_ignores_case_and_edge_punctuation() -> None:
    assert stem("Services,") == "service"
