"""The embedded bge-small on ONNX: loads offline, 384-d unit vectors, long chunks read in full."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import numpy as np
import pytest

from rag_core.embeddings import EmbeddingProvider, build_embedder
from rag_core.embeddings.local import LocalEmbedder
from rag_core.settings import CoreSettings
from tests.fakes.network import network_disabled
from tests.rag_core.models.texts import SENTENCES

pytestmark = pytest.mark.integration


def long_text(pieces_at_least: int, embedder: LocalEmbedder) -> str:
    parts: list[str] = []
    i = 0
    while embedder.encoder.count_pieces(" ".join(parts)) < pieces_at_least:
        parts.append(SENTENCES[i % len(SENTENCES)])
        i += 1
    return " ".join(parts)


@pytest.fixture(scope="module")
def offline_embedder() -> Iterator[tuple[LocalEmbedder, list[object]]]:
    with network_disabled() as attempts:
        embedder = LocalEmbedder()
        yield embedder, attempts


def test_loads_offline_and_returns_unit_vectors(offline_embedder: tuple[LocalEmbedder, list[object]]) -> None:
    embedder, attempts = offline_embedder
    assert attempts == []
    assert isinstance(embedder, EmbeddingProvider)
    assert embedder.model_name == "bge-small-en-v1.5" and embedder.dimension == 384
    matrix = np.asarray(embedder.embed_documents_sync(["What is the dental deductible?", "Parental leave"]))
    assert matrix.shape == (2, 384)
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    assert embedder.embed_documents_sync([]) == []
    assert attempts == []


def test_the_default_provider_is_the_local_model_without_a_key() -> None:
    settings = CoreSettings(_env_file=None, OPENAI_API_KEY=None, EMBEDDING_PROVIDER="auto")  # type: ignore[call-arg]
    assert build_embedder(settings).model_name == "bge-small-en-v1.5"


async def test_async_api_and_query_instruction(offline_embedder: tuple[LocalEmbedder, list[object]]) -> None:
    embedder, _ = offline_embedder
    query = await embedder.embed_query("dental deductible")
    documents = await embedder.embed_documents(["dental deductible"])
    assert len(query) == 384
    assert np.allclose(query, embedder.embed_query_sync("dental deductible"))
    # A question is embedded with bge's retrieval instruction, a document without it.
    assert 0.5 < float(np.dot(query, documents[0])) < 0.999


async def test_concurrent_questions_get_their_own_vectors(offline_embedder: tuple[LocalEmbedder, list[object]]) -> None:
    embedder, _ = offline_embedder
    questions = [f"How many weeks of leave do I get in state number {i}?" for i in range(6)]
    alone = [embedder.embed_query_sync(q) for q in questions]
    together = await asyncio.gather(*(embedder.embed_query(q) for q in questions))
    for mine, reference in zip(together, alone, strict=True):
        assert np.array_equal(mine, reference)


def test_windows_cover_every_word_piece(offline_embedder: tuple[LocalEmbedder, list[object]]) -> None:
    embedder, _ = offline_embedder
    text = long_text(1100, embedder)
    assert embedder.encoder.count_pieces(text) > embedder.window_pieces  # longer than the model reads
    windows = embedder.windows(text)
    assert len(windows) >= 3
    assert all(embedder.encoder.count_pieces(w) <= embedder.window_pieces for w in windows)
    assert text.startswith(windows[0]) and text.endswith(windows[-1])
    for before, after in zip(windows, windows[1:], strict=False):
        assert before[-40:].split()[-1] in after  # consecutive windows overlap
    assert embedder.windows("short text") == ["short text"]


def test_last_sentence_of_a_long_chunk_counts(offline_embedder: tuple[LocalEmbedder, list[object]]) -> None:
    embedder, _ = offline_embedder
    base = long_text(520, embedder)
    first = base + " Orthodontic treatment for adults is excluded from the dental plan."
    second = base + " Employees in New York receive twelve weeks of paid family leave."
    assert embedder.encoder.count_pieces(first) > embedder.window_pieces
    a, b = (np.asarray(v) for v in embedder.embed_documents_sync([first, second]))
    assert float(a @ b) < 0.999  # a 510-piece truncation would make them identical
    topic = np.asarray(embedder.embed_query_sync("orthodontic treatment dental plan exclusions"))
    assert float(a @ topic) > float(b @ topic)


def test_a_long_question_is_read_in_full(offline_embedder: tuple[LocalEmbedder, list[object]]) -> None:
    embedder, _ = offline_embedder
    question = long_text(520, embedder)
    vector = np.asarray(embedder.embed_query_sync(question + " what about orthodontics?"))
    assert vector.shape == (384,) and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
