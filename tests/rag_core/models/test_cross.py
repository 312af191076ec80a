"""ms-marco cross-encoder on ONNX: probabilities, the answer wins, max_length bounds the read."""

from __future__ import annotations

import pytest

from rag_core.models import CrossEncoder
from tests.rag_core.models.texts import ANSWER, QUESTION, SENTENCES, UNRELATED, long_text

pytestmark = pytest.mark.integration


def test_scores_are_probabilities_and_the_answer_wins(cross: CrossEncoder) -> None:
    passages = [UNRELATED, *SENTENCES, ANSWER]
    scores = cross.score(QUESTION, passages)
    assert len(scores) == len(passages) and all(0.0 <= s <= 1.0 for s in scores)
    assert max(range(len(scores)), key=scores.__getitem__) == len(passages) - 1
    assert scores[-1] > 0.5 > scores[0]
    assert cross.score(QUESTION, []) == []


def test_order_and_neighbours_do_not_change_a_score(cross: CrossEncoder) -> None:
    one = cross.score(QUESTION, [ANSWER])[0]
    assert cross.score(QUESTION, [UNRELATED, ANSWER, long_text(100)])[1] == one


def test_max_length_bounds_the_passage(cross: CrossEncoder) -> None:
    short = CrossEncoder(max_length=64)
    text = ANSWER + " " + long_text(300)
    assert short.truncated(QUESTION, text) and not cross.truncated(QUESTION, ANSWER)
    # The answer is at the start, so the cut tail does not change the verdict.
    assert short.score(QUESTION, [text])[0] > 0.5
    with pytest.raises(ValueError):
        CrossEncoder(max_length=4)
