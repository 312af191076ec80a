"""bge-small on ONNX: 384-d unit vectors, queries find their passage, long texts are refused not cut."""

from __future__ import annotations

import numpy as np
import pytest

from rag_core.models import DenseOnnxEncoder
from tests.rag_core.models.texts import ANSWER, QUESTION, SENTENCES, UNRELATED, long_text

pytestmark = pytest.mark.integration


def test_unit_vectors_of_the_right_shape(dense: DenseOnnxEncoder) -> None:
    assert dense.model_name == "bge-small-en-v1.5" and dense.dimension == 384
    matrix = dense.encode_documents(SENTENCES[:3])
    assert matrix.shape == (3, 384) and matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    assert dense.encode_documents([]).shape == (0, 384)


def test_the_answer_outscores_an_unrelated_passage(dense: DenseOnnxEncoder) -> None:
    query = dense.encode_query(QUESTION)
    answer, unrelated = dense.encode_documents([ANSWER, UNRELATED])
    assert float(query @ answer) > float(query @ unrelated) + 0.1


def test_query_instruction_changes_the_vector_but_not_the_documents(dense: DenseOnnxEncoder) -> None:
    as_query = dense.encode_query(QUESTION)
    as_document = dense.encode_documents([QUESTION])[0]
    assert float(as_query @ as_document) < 0.999
    assert dense.max_query_pieces < dense.max_pieces


def test_a_text_embeds_the_same_alone_or_with_others(dense: DenseOnnxEncoder) -> None:
    alone = dense.encode_documents([SENTENCES[0]])[0]
    together = dense.encode_documents([SENTENCES[1], SENTENCES[0], long_text(200)])[1]
    assert np.array_equal(alone, together)


def test_over_long_text_is_refused_and_windows_cover_it(dense: DenseOnnxEncoder) -> None:
    text = long_text(600)
    assert dense.count_pieces(text) > dense.max_pieces
    with pytest.raises(ValueError, match="windows"):
        dense.encode_documents([text])
    windows = dense.windows(text, overlap=32)
    assert len(windows) >= 2 and all(dense.count_pieces(w) <= dense.max_pieces for w in windows)
    assert text.startswith(windows[0]) and text.endswith(windows[-1])
    assert all(window in text for window in windows)  # slices of the original, case kept
    assert dense.windows("short text") == ["short text"]
    assert dense.encode_documents(windows).shape == (len(windows), 384)
