"""How a reply is cut for streaming, and which refusals are remembered."""

from __future__ import annotations

import pytest

from bot.slack.delivery import PIECE_CHARS, Capabilities, pieces

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "body",
    [
        "The deductible is $50. [1] Fillings are covered at 80%. [2]",
        "One sentence without a citation",
        "Ends with markers. [1] [2]",
        "First! Second? Third. [3] Fourth",
        "word " * 300,
    ],
)
def test_pieces_join_back_to_the_body(body: str) -> None:
    cut = pieces(body)
    assert "".join(cut) == body
    assert all(0 < len(p) <= PIECE_CHARS for p in cut)


def test_a_citation_marker_stays_with_its_sentence() -> None:
    assert pieces("A is 1. [1] B is 2. [2]") == ["A is 1. [1] ", "B is 2. [2]"]
    assert pieces("A is 1. [1]") == ["A is 1. [1]"]


def test_the_first_sentence_goes_alone_then_sentences_are_grouped() -> None:
    assert pieces("One. Two. Three. Four.") == ["One. ", "Two. Three. Four."]
    assert pieces("One. Two. Three.", size=8) == ["One. ", "Two. ", "Three."]


def test_only_refusals_are_remembered() -> None:
    caps = Capabilities()
    caps.refused("streaming", "ratelimited")
    caps.refused("streaming", "internal_error")
    assert caps.streaming
    caps.refused("streaming", "unknown_method")
    caps.refused("status", "missing_scope")
    assert not caps.streaming and not caps.status
