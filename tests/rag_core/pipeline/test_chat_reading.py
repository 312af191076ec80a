"""Questions typed the way employees write in chat, on the REAL pipeline over the project's corpus
(real index, real bundled models): a situation told before an emoji or "lol" is context, the
question after it is read alone and answered; an uncovered benefit asked the same way still
abstains. Rows from the chat tuning sets (corpus/holdout-chat-3.jsonl, -5.jsonl)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from rag_core.embeddings.local import LocalEmbedder
from rag_core.eval.gold import GoldRow, load_gold
from rag_core.eval.harness import token_for
from rag_core.index.edge import EdgeIndex
from rag_core.ingest.pipeline import Ingestor
from rag_core.models import ColbertEncoder
from rag_core.pipeline import build_pipeline
from rag_core.types import AbstainReason, Answer
from tests.rag_core.conftest import core_settings

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

REPO = Path(__file__).resolve().parents[3]
ROWS = {
    row.id: row
    for name in ("holdout-chat-3.jsonl", "holdout-chat-5.jsonl")
    for row in load_gold(REPO / "corpus" / name)
}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def ask(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[object]:
    root = tmp_path_factory.mktemp("chat")
    embedder, late = LocalEmbedder.shared(), ColbertEncoder.shared()
    index = EdgeIndex(root / "index")
    summary = await Ingestor(index, embedder, late=late, progress=False).run(REPO / "corpus")
    assert summary.ingested, summary.render()
    settings = core_settings(root)  # today: 2026-11-30, as in the evals
    pipeline = build_pipeline(settings, index=index, embedder=embedder, late=late)

    async def answer(row: GoldRow) -> Answer:
        return await pipeline.answer(row.question, token_for(settings, row), as_of=row.as_of)

    yield answer
    await pipeline.aclose()
    await index.aclose()


@pytest.mark.parametrize(
    "row_id",
    [
        "h5-20",  # "... 2 kids in daycare 💸 whats the max we can put in the dependent care FSA this yr"
        "h5-14",  # "... glasses constantly lol, if i buy a 2nd pair the same day ... is there a discount"
        "h3-27",  # "hit my 4 yr work anniversary last month, how much PTO do i get per year now"
    ],
)
async def test_a_chat_question_after_its_situation_is_answered_with_the_asked_fact(ask, row_id: str) -> None:  # type: ignore[no-untyped-def]
    row = ROWS[row_id]
    answer = await ask(row)
    assert not answer.abstained, answer.abstain_reason
    for fact in row.must_include:
        assert fact in answer.answer
    # the cited document is the row's source (the handbook's id carries its year: employee-handbook-2026)
    source = Path(row.sources[0].split("#")[0]).stem
    assert any(citation.document_id.startswith(source) for citation in answer.citations)


@pytest.mark.parametrize("row_id", ["h5-32", "h5-34"])  # pet insurance 🐶, student loans lol: not covered
async def test_an_uncovered_benefit_asked_in_chat_abstains(ask, row_id: str) -> None:  # type: ignore[no-untyped-def]
    row = ROWS[row_id]
    assert row.expect == "abstain"
    answer = await ask(row)
    assert answer.abstained and answer.abstain_reason == AbstainReason.LOW_SIMILARITY
