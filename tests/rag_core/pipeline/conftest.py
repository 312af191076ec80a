"""The project's own corpus (corpus/docs), ingested once per test session into a real index with the
real bundled models: the fixture of the pipeline tests that ask its documents real questions."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from rag_core.embeddings.local import LocalEmbedder
from rag_core.eval.gold import GoldRow
from rag_core.eval.harness import token_for
from rag_core.index.edge import EdgeIndex
from rag_core.ingest.pipeline import Ingestor
from rag_core.models import ColbertEncoder
from rag_core.pipeline import Pipeline, build_pipeline
from rag_core.pipeline.state import QueryState
from rag_core.settings import CoreSettings
from rag_core.types import Answer
from tests.rag_core.conftest import core_settings

REPO = Path(__file__).resolve().parents[3]


# The bundled reader as published (READER_WEIGHTS=ms-marco, an option since session 20). Each gate and
# rule after the reader was found and measured with it; where the default benefits reader already
# abstains on (or quotes right) what a rule was made for, the rule's own effect, and so its mutation,
# shows only with this reader. Such tests run the rule's part with it and check the default's outcome
# too (benchmarks/README.md "Reading, session 17" lists what each rule does with the benefits reader).
MS_MARCO: dict[str, object] = {"READER_WEIGHTS": "ms-marco"}


def employee_row(question: str, state: str | None = None) -> GoldRow:
    """A question asked by an employee (optionally working in ``state``) on 2026-05-01, as the eval sets ask."""
    user: dict[str, object] = {"groups": ["employees"], **({"state": state} if state else {})}
    return GoldRow.model_validate(
        {"id": "t", "question": question, "expect": "answer", "user": user, "as_of": "2026-05-01"}
    )


@dataclass
class RealCorpus:
    data_dir: Path
    index: EdgeIndex
    embedder: LocalEmbedder
    late: ColbertEncoder

    def settings(self, **overrides: object) -> CoreSettings:
        return core_settings(self.data_dir, **overrides)  # today: 2026-11-30, as in the evals

    def pipeline(self, **overrides: object) -> Pipeline:
        return build_pipeline(self.settings(**overrides), index=self.index, embedder=self.embedder, late=self.late)  # type: ignore[arg-type]

    async def run_until(self, stage: str, row: GoldRow, **overrides: object) -> QueryState:
        """The pipeline's state after ``stage`` for ``row`` (its asker, its as-of date)."""
        pipeline = self.pipeline(**overrides)
        try:
            token = token_for(self.settings(), row)
            return await pipeline.run_until(stage, row.question, token, as_of=row.as_of)
        finally:
            await pipeline.aclose()

    async def answer(self, row: GoldRow, **overrides: object) -> Answer:
        pipeline = self.pipeline(**overrides)
        try:
            return await pipeline.answer(row.question, token_for(self.settings(), row), as_of=row.as_of)
        finally:
            await pipeline.aclose()


async def _ingested(root: Path, folder: Path) -> RealCorpus:
    """``folder`` (its catalog and documents) ingested into a real index under ``root``."""
    embedder, late = LocalEmbedder.shared(), ColbertEncoder.shared()
    index = EdgeIndex(root / "index")
    summary = await Ingestor(index, embedder, late=late, progress=False).run(folder)
    assert summary.ingested, summary.render()
    return RealCorpus(root, index, embedder, late)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def real(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[RealCorpus]:
    corpus = await _ingested(tmp_path_factory.mktemp("real-corpus"), REPO / "corpus")
    yield corpus
    await corpus.index.aclose()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def tailspin(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[RealCorpus]:
    """The third sample company (benchmarks/tailspin/), ingested like the project's corpus."""
    corpus = await _ingested(tmp_path_factory.mktemp("tailspin-corpus"), REPO / "benchmarks" / "tailspin")
    yield corpus
    await corpus.index.aclose()
