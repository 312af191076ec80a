"""The real core over the sample corpus (corpus/), ingested once per test session.

For the edge tests that must drive the real answer path (the Teams Emulator flow, the playground,
the browser test, the Slack scenario on the real core): real MiniLM, real Qdrant Edge, the
extractive generator, no network.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.bot.harness import REPO

TODAY = "2026-06-01"  # every sample document is in effect; the 2027 401(k) plan is not yet


def core_overrides(data_dir: Path) -> dict[str, Any]:
    """Settings that pin the embedded default, whatever the developer's shell says."""
    return {
        "BENEFITSBOT_DATA_DIR": str(data_dir),
        "QDRANT_URL": None,
        "OPENAI_API_KEY": None,
        "COHERE_API_KEY": None,
        "EMBEDDING_PROVIDER": "local",
        "GENERATOR": "extractive",
        "RERANKER": "auto",
        "SIMILARITY_CUTOFF": None,
        "UNKNOWN_WORD_CUTOFF": None,
    }


async def ingest_async(data_dir: Path, corpus: Path = REPO / "corpus") -> None:
    """Ingest with the settings the tests then answer with (models, late interaction, link screen)."""
    from rag_core.index.edge import EdgeIndex
    from rag_core.ingest.pipeline import Ingestor
    from rag_core.settings import CoreSettings

    settings = CoreSettings(_env_file=None, **core_overrides(data_dir))  # type: ignore[call-arg]
    index = EdgeIndex(data_dir / "index")
    try:
        summary = await Ingestor.from_settings(index, settings, progress=False).run(corpus)
        assert not summary.failed, summary.render()
    finally:
        await index.aclose()


def ingest(data_dir: Path, corpus: Path = REPO / "corpus") -> None:
    asyncio.run(ingest_async(data_dir, corpus))
