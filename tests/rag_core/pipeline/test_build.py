"""How ``build_pipeline`` wires the reader's prefilter from the settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_core.index.edge import EdgeIndex
from rag_core.pipeline import build_pipeline
from rag_core.pipeline.read import ReadStage
from rag_core.reading.reader import LateInteractionPrefilter, SpanReader
from rag_core.settings import CoreSettings
from tests.fakes.embedder import HashEmbedder
from tests.rag_core.conftest import core_settings

pytestmark = pytest.mark.integration


def _reader(tmp_path: Path, **overrides: object) -> SpanReader:
    pipeline = build_pipeline(
        core_settings(tmp_path, **overrides), index=EdgeIndex(tmp_path / "index"), embedder=HashEmbedder()
    )
    stage = pipeline.stage("read")
    assert isinstance(stage, ReadStage)
    return stage.reader


@pytest.mark.parametrize(
    ("overrides", "model_spans"),
    [
        ({"READER_MODEL_SPANS": 4}, 4),
        ({"READER_MODEL_SPANS": 0}, 0),
        ({"READER_MODEL_SPANS": 40}, 12),  # never more than are read
        # Without token vectors there is no late-interaction encoder: word overlap alone, not an error.
        ({"LATE_INTERACTION": "none"}, 0),
    ],
)
def test_the_spans_the_model_picks_follow_the_settings(
    tmp_path: Path, overrides: dict[str, object], model_spans: int
) -> None:
    reader = _reader(tmp_path, **overrides)
    assert reader.keep == 12 and reader.model_spans == model_spans
    assert isinstance(reader.model, LateInteractionPrefilter) == (overrides.get("LATE_INTERACTION") != "none")


def test_the_model_picks_four_spans_from_the_stored_vectors_by_default() -> None:
    assert CoreSettings.model_fields["reader_model_spans"].default == 4
    assert CoreSettings.model_fields["reader_span_vectors"].default == "stored"


@pytest.mark.parametrize(("vectors", "stored"), [("stored", True), ("alone", False)])
def test_the_model_scores_spans_in_the_stored_vectors_unless_told_otherwise(
    tmp_path: Path, vectors: str, stored: bool
) -> None:
    index = EdgeIndex(tmp_path / "index")
    pipeline = build_pipeline(
        core_settings(tmp_path, READER_MODEL_SPANS=4, READER_SPAN_VECTORS=vectors), index=index, embedder=HashEmbedder()
    )
    stage = pipeline.stage("read")
    assert isinstance(stage, ReadStage)
    assert (stage.index is index) == stored
