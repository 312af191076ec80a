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


@pytest.mark.parametrize(
    ("weights", "fine_tune"),
    [
        ("benefits", "benefits-reader-v2"),
        ("benefits-v3", "benefits-reader-v3"),
        ("benefits-v4", "benefits-reader-v4"),
        ("benefits-v5", "benefits-reader-v5"),
    ],
)
def test_the_benefits_reader_runs_its_fine_tune_in_the_bundled_graph(
    cross: CrossEncoder, weights: str, fine_tune: str
) -> None:
    """Each shipped fine-tune loads over the bundled ms-marco graph (rag_core/models/data), reads
    differently from it, and still puts the answering sentence first."""
    from rag_core.models.cross import reader_files

    files = reader_files(weights)
    assert files is not None and files.weights is not None and files.weights.is_file()
    reader = CrossEncoder(files)
    assert fine_tune in reader.model_name and cross.model_name == "ms-marco-MiniLM-L-12-v2"
    passages = [UNRELATED, *SENTENCES, ANSWER]
    logits = reader.logits(QUESTION, passages)
    assert max(range(len(logits)), key=logits.__getitem__) == len(passages) - 1
    assert logits != cross.logits(QUESTION, passages)
    assert CrossEncoder.shared(files=files) is CrossEncoder.shared(files=files) is not CrossEncoder.shared()


def test_reader_weights_are_named() -> None:
    from rag_core.models.cross import reader_files

    assert reader_files("ms-marco") is None
    names = ("benefits", "benefits-v3", "benefits-v4", "benefits-v5")
    fine_tunes = [files for weights in names if (files := reader_files(weights))]
    assert len({files.weights for files in fine_tunes}) == len({files.name for files in fine_tunes}) == 4
    with pytest.raises(ValueError, match="unknown reader weights"):
        reader_files("bert-base")


def test_every_reader_weights_setting_has_a_model_and_bars() -> None:
    """A fine-tune is named in three places (the setting's values, FINE_TUNES, READER_CALIBRATIONS);
    one added to some but not all would fail only when someone picked it."""
    from typing import get_args

    from rag_core.models.cross import FINE_TUNES
    from rag_core.settings import READER_CALIBRATIONS, ReaderWeights

    assert set(get_args(ReaderWeights)) == {*FINE_TUNES, "ms-marco"} == set(READER_CALIBRATIONS)
