"""answerai-colbert-small on ONNX: token vectors, markers and query augmentation, MaxSim ranks the answer."""

from __future__ import annotations

import numpy as np
import pytest

from rag_core.models import ColbertEncoder
from rag_core.models.colbert import QUERY_TOKENS
from tests.rag_core.models.texts import ANSWER, QUESTION, SENTENCES, UNRELATED, long_text

pytestmark = pytest.mark.integration


def test_query_has_one_unit_vector_per_token(colbert: ColbertEncoder) -> None:
    query = colbert.encode_query("dental deductible")
    # [CLS] [Q] dental de ##du ##ct ##ible [SEP]
    assert query.shape == (8, colbert.dimension) and query.dtype == np.float32
    assert np.allclose(np.linalg.norm(query, axis=1), 1.0, atol=1e-5)
    long_question = " ".join(["what is the deductible for the dental plan"] * 6)
    assert colbert.encode_query(long_question).shape[0] > QUERY_TOKENS  # a long question is not cut to 32


def test_query_augmentation_pads_with_masks_when_asked() -> None:
    augmented = ColbertEncoder(query_augmentation=True)
    query = augmented.encode_query("dental deductible")
    assert query.shape == (QUERY_TOKENS, augmented.dimension)
    plain = ColbertEncoder.shared().encode_query("dental deductible")
    # The masks are not attended to, so the real tokens barely move (only the int8 scale differs).
    assert float(np.min(np.sum(query[: len(plain)] * plain, axis=1))) > 0.99


def test_documents_keep_words_and_drop_punctuation(colbert: ColbertEncoder) -> None:
    plain, punctuated = colbert.encode_document_tokens(["the dental plan", "the dental plan, !?"])
    # [CLS] [D] the dental plan [SEP]: the punctuation adds no tokens
    assert plain.vectors.shape == (6, colbert.dimension)
    assert punctuated.vectors.shape == plain.vectors.shape
    assert np.allclose(np.linalg.norm(plain.vectors, axis=1), 1.0, atol=1e-5)
    spans = [tuple(span) for span in plain.offsets]
    assert spans[0] == (-1, -1) and spans[-1] == (-1, -1)
    assert ["the dental plan"[a:b] for a, b in spans[2:-1]] == ["the", "dental", "plan"]


def test_maxsim_ranks_the_answer_first(colbert: ColbertEncoder) -> None:
    query = colbert.encode_query(QUESTION)
    documents = colbert.encode_documents([UNRELATED, *SENTENCES, ANSWER])
    scores = [colbert.max_sim(query, document) for document in documents]
    assert int(np.argmax(scores)) == len(documents) - 1
    assert colbert.max_sim(query, np.zeros((0, colbert.dimension), dtype=np.float32)) == 0.0


def test_long_document_is_read_in_full_once_per_piece(colbert: ColbertEncoder) -> None:
    text = long_text(700) + " Orthodontic treatment for adults is excluded."
    tokens = colbert.encode_document_tokens([text])[0]
    words = [text[a:b] for a, b in tokens.offsets if a >= 0]
    assert words[-1] == "excluded"  # the tail is there (the final period is punctuation, dropped)
    starts = [int(a) for a, _ in tokens.offsets if a >= 0]
    assert starts == sorted(set(starts))  # every kept piece once, in order
    assert len(tokens.vectors) > colbert.positions
    assert len(colbert.encode_documents([text])[0]) == len(tokens.vectors)


@pytest.mark.parametrize("length", [0, 40, 700])
def test_the_tokenizer_alone_gives_the_encoded_tokens_offsets(colbert: ColbertEncoder, length: int) -> None:
    """``document_offsets`` (no model run) lines up row for row with the encoded token vectors, long
    documents' windows included: a caller can score spans inside vectors the index stored."""
    text = (long_text(length) + " " if length else "") + "Orthodontic treatment, for adults, is excluded."
    assert np.array_equal(colbert.document_offsets(text), colbert.encode_document_tokens([text])[0].offsets)
