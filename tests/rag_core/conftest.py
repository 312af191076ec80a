"""Shared fixtures for the rag_core tests: one ingested fixture corpus per session (real local
embedder, real Qdrant Edge index) and a fresh, spied Pipeline per test.

Owner: rag_core pipeline/access/citation tests. Other rag_core test modules may use these fixtures
but should not redefine them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
import pytest_asyncio

from rag_core.access import mint_token
from rag_core.embeddings.local import LocalEmbedder
from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.index.edge import EdgeIndex
from rag_core.ingest.pipeline import Ingestor, IngestSummary
from rag_core.models import ColbertEncoder
from rag_core.pipeline import Pipeline, build_pipeline
from rag_core.pipeline.gates import SimilarityGate
from rag_core.pipeline.generate import GenerateStage
from rag_core.settings import DEFAULT_ANSWER_NEIGHBOUR_MARGIN, DEFAULT_ANSWER_TIE_MARGIN, CoreSettings
from tests.rag_core.corpus_factory import write_corpus
from tests.rag_core.spies import SpyGenerator, SpyIndex

SIGNING_KEY = "test-key"
TODAY = date(2026, 11, 30)


def core_settings(data_dir: Path, **overrides: object) -> CoreSettings:
    """The brief's settings, with every environment-sensitive knob pinned so a developer's shell
    (RERANKER, SIMILARITY_CUTOFF, LOG_QUERIES, ...) cannot change what the tests see."""
    values: dict[str, object] = {
        "BENEFITSBOT_DATA_DIR": str(data_dir),
        "BENEFITSBOT_TODAY": TODAY.isoformat(),
        "RBAC_SIGNING_KEY": SIGNING_KEY,
        "QDRANT_URL": None,
        "OPENAI_API_KEY": None,
        "COHERE_API_KEY": None,
        "SIMILARITY_CUTOFF": None,
        "UNKNOWN_WORD_CUTOFF": None,
        "RERANKER": "auto",
        "LATE_INTERACTION": "colbert",
        "READER_WEIGHTS": "benefits-v5",
        "READER_SITUATION_WORDS": False,
        "READER_MIN_SCORE": None,
        "READER_MODEL_SPANS": 4,
        "READER_SPAN_VECTORS": "stored",
        "KEY_WORD_ABLATION": True,
        "QUANTITY_SAME_DOCUMENT": True,
        "ANSWER_TIE_MARGIN": DEFAULT_ANSWER_TIE_MARGIN,
        "ANSWER_NEIGHBOUR_MARGIN": DEFAULT_ANSWER_NEIGHBOUR_MARGIN,
        "LONE_LIST_ITEMS": True,
        "LOG_QUERIES": False,
        "RETRIEVAL_CANDIDATES": 30,
        "RETRIEVAL_TOP_K": 10,
        "MAX_CONTEXT_CHUNKS": 4,
        "MAX_CONTEXT_TOKENS": 1600,
    }
    values.update(overrides)
    return CoreSettings(_env_file=None, **values)  # type: ignore[arg-type]


def token(
    groups: Sequence[str],
    *,
    state: str | None = None,
    subject: str = "alice@fabrikam.example",
    language: str | None = None,
    ttl_s: int = 300,
    key: str = SIGNING_KEY,
    now: float | None = None,
) -> str:
    return mint_token(
        key, subject=subject, acl_groups=list(groups), state=state, language=language, ttl_s=ttl_s, now=now
    )


@dataclass
class FixtureCorpus:
    root: Path
    corpus_dir: Path
    data_dir: Path
    index: EdgeIndex
    embedder: LocalEmbedder
    late: ColbertEncoder
    settings: CoreSettings
    summary: IngestSummary

    def pipeline(self, generator: object | None = None, **settings_overrides: object) -> tuple[Pipeline, SpyIndex]:
        """A new Pipeline over the shared index, with a spy on the index (and any generator)."""
        spy = SpyIndex(self.index)
        settings = core_settings(self.data_dir, **settings_overrides) if settings_overrides else self.settings
        gen = generator if generator is not None else SpyGenerator(ExtractiveGenerator())
        return build_pipeline(settings, index=spy, embedder=self.embedder, generator=gen, late=self.late), spy  # type: ignore[arg-type]


def generator_of(pipeline: Pipeline) -> SpyGenerator:
    """The (spied) generator a test pipeline was built with."""
    stage = pipeline.stage("generate")
    assert isinstance(stage, GenerateStage)
    return stage.generator  # type: ignore[return-value]


def gate_of(pipeline: Pipeline) -> SimilarityGate:
    stage = pipeline.stage("gate")
    assert isinstance(stage, SimilarityGate)
    return stage


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def fixture_corpus(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[FixtureCorpus]:
    root = tmp_path_factory.mktemp("benefits")
    corpus_dir = write_corpus(root / "corpus")
    data_dir = root / "data"
    embedder = LocalEmbedder.shared()
    late = ColbertEncoder.shared()  # the default: token vectors stored, candidates rescored by MaxSim
    index = EdgeIndex(data_dir / "index")
    summary = await Ingestor(index, embedder, late=late, progress=False).run(corpus_dir)
    assert summary.failed == [], summary.render()
    assert summary.ingested == summary.documents
    yield FixtureCorpus(root, corpus_dir, data_dir, index, embedder, late, core_settings(data_dir), summary)
    await index.aclose()


@pytest.fixture
def spied(fixture_corpus: FixtureCorpus) -> tuple[Pipeline, SpyIndex, SpyGenerator]:
    """A fresh pipeline per test (its own spies), sharing the session's index and model."""
    generator = SpyGenerator(ExtractiveGenerator())
    pipeline, spy = fixture_corpus.pipeline(generator)
    return pipeline, spy, generator


@pytest.fixture
def pipeline(spied: tuple[Pipeline, SpyIndex, SpyGenerator]) -> Pipeline:
    return spied[0]


@pytest.fixture
def index_spy(spied: tuple[Pipeline, SpyIndex, SpyGenerator]) -> SpyIndex:
    return spied[1]


@pytest.fixture
def generator_spy(spied: tuple[Pipeline, SpyIndex, SpyGenerator]) -> SpyGenerator:
    return spied[2]
