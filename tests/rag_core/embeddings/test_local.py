"""The embedded all-MiniLM-L6-v2: loads offline, 384-d unit vectors, long chunks read in full.

One model load for the whole module (about a second once torch is imported).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from rag_core.embeddings.local import MODEL_NAME, LocalEmbedder
from tests.fakes.network import network_disabled

pytestmark = pytest.mark.integration

SENTENCES = [
    "Employees may enroll in the medical plan within thirty days of their hire date.",
    "The preferred provider organization plan has a deductible of one thousand two hundred fifty dollars.",
    "Preventive care visits are covered in full when you use an in-network provider.",
    "Prescription drugs are grouped into generic, preferred brand and non-preferred brand tiers.",
    "A qualifying life event such as marriage or the birth of a child opens a special enrollment window.",
    "Dependents remain eligible for coverage until the end of the month in which they turn twenty six.",
    "The health savings account is available only to employees enrolled in the high deductible plan.",
    "Claims must be submitted within one hundred eighty days from the date the service was provided.",
]


def long_text(pieces_at_least: int, embedder: LocalEmbedder) -> str:
    parts: list[str] = []
    i = 0
    while (
        len(embedder._tokenizer(" ".join(parts), add_special_tokens=False, verbose=False)["input_ids"])
        < pieces_at_least
    ):
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
    assert embedder.model_name == MODEL_NAME and embedder.dimension == 384
    vectors = embedder.embed_documents_sync(
        ["What is the dental deductible?", "Parental leave in California"]
    )
    matrix = np.asarray(vectors)
    assert matrix.shape == (2, 384)
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    assert attempts == []


async def test_async_api(offline_embedder: tuple[LocalEmbedder, list[object]]) -> None:
    embedder, _ = offline_embedder
    query = await embedder.embed_query("dental deductible")
    documents = await embedder.embed_documents(["dental deductible"])
    assert len(query) == 384 and np.allclose(query, documents[0], atol=1e-6)


def test_windows_cover_every_word_piece(offline_embedder: tuple[LocalEmbedder, list[object]]) -> None:
    embedder, _ = offline_embedder
    text = long_text(450, embedder)
    ids = embedder._tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"]
    assert len(ids) > embedder.window_pieces  # longer than the model reads at once
    windows = embedder.windows(text)
    assert len(windows) >= 2
    step = embedder.window_pieces - embedder.window_overlap
    covered: set[int] = set()
    for number, window in enumerate(windows):
        window_ids = embedder._tokenizer(window, add_special_tokens=False, verbose=False)["input_ids"]
        start = number * step
        assert window_ids == ids[start : start + embedder.window_pieces]
        assert len(window_ids) <= embedder.window_pieces
        covered.update(range(start, start + len(window_ids)))
    assert covered == set(range(len(ids)))
    assert embedder.windows("short text") == ["short text"]


def test_last_sentence_of_a_long_chunk_counts(offline_embedder: tuple[LocalEmbedder, list[object]]) -> None:
    embedder, _ = offline_embedder
    base = long_text(430, embedder)
    first = base + " Orthodontic treatment for adults is excluded from the dental plan."
    second = base + " Employees in New York receive twelve weeks of paid family leave."
    assert len(embedder._tokenizer(first, add_special_tokens=False, verbose=False)["input_ids"]) > 400

    # What a 256-piece truncation would see: the same prefix, hence the same vector.
    truncated = embedder._model.encode([first, second], normalize_embeddings=True, show_progress_bar=False)
    assert np.allclose(truncated[0], truncated[1], atol=1e-6)

    a, b = (np.asarray(v) for v in embedder.embed_documents_sync([first, second]))
    assert not np.allclose(a, b, atol=1e-3)
    assert float(a @ b) < 0.999
    # And the changed sentence pulls the vector towards its own topic.
    topic = np.asarray(embedder.embed_query_sync("orthodontic treatment dental plan exclusions"))
    assert float(a @ topic) > float(b @ topic)


# -- micro-batching of concurrent questions ------------------------------------------------------------------


@pytest.mark.integration
async def test_concurrent_questions_share_a_batch_and_get_their_own_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    import numpy as np

    from rag_core.embeddings.local import LocalEmbedder

    embedder = LocalEmbedder.shared()
    questions = [f"How many weeks of leave do I get in state number {i}?" for i in range(12)]
    alone = [embedder.embed_query_sync(q) for q in questions]
    batch_sizes: list[int] = []
    real = embedder.embed_documents_sync

    def recording(texts: list[str]) -> list[list[float]]:
        batch_sizes.append(len(texts))
        return real(texts)

    monkeypatch.setattr(embedder, "embed_documents_sync", recording)
    together = await asyncio.gather(*(embedder.embed_query(q) for q in questions))
    assert sum(batch_sizes) == len(questions) and max(batch_sizes) > 1  # fewer forward passes than questions
    for mine, reference in zip(together, alone, strict=True):
        assert np.allclose(mine, reference, atol=1e-5)  # each question gets its own vector back


@pytest.mark.integration
async def test_a_failing_batch_fails_every_waiting_question(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from rag_core.embeddings.local import LocalEmbedder

    embedder = LocalEmbedder.shared()

    def broken(texts: list[str]) -> list[list[float]]:
        raise RuntimeError("model crashed")

    monkeypatch.setattr(embedder, "embed_documents_sync", broken)
    results = await asyncio.gather(*(embedder.embed_query(f"q{i}") for i in range(5)), return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in results)
