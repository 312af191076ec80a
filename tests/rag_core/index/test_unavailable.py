"""A dead Qdrant server or a damaged embedded shard is a clear IndexUnavailable, never a crash."""

from __future__ import annotations

import socket
from datetime import date
from pathlib import Path

import pytest

from rag_core.access import mint_token
from rag_core.errors import IndexUnavailable
from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.index.base import AccessFilter
from rag_core.index.edge import EdgeIndex
from rag_core.index.server import ServerIndex
from rag_core.pipeline import build_pipeline
from rag_core.settings import CoreSettings
from rag_core.sparse import bm25_query
from tests.fakes.embedder import HashEmbedder

ACCESS = AccessFilter((frozenset({"employees"}),), (frozenset({"US-ALL"}),), date(2026, 11, 30))


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again when the block ends: nothing listens there


@pytest.mark.integration
async def test_a_dead_qdrant_server_is_index_unavailable() -> None:
    index = ServerIndex.connect(f"http://127.0.0.1:{closed_port()}", None, "benefits")
    try:
        with pytest.raises(IndexUnavailable, match="Qdrant server"):
            await index.ping()
        with pytest.raises(IndexUnavailable):
            await index.hybrid_query([0.1] * 8, bm25_query("deductible"), ACCESS, limit=5, prefetch_limit=5)
    finally:
        await index.aclose()


@pytest.mark.integration
async def test_the_engine_surfaces_a_dead_server_as_index_unavailable(tmp_path: Path) -> None:
    settings = CoreSettings(_env_file=None, RBAC_SIGNING_KEY="k", QDRANT_URL=f"http://127.0.0.1:{closed_port()}")
    index = ServerIndex.connect(settings.qdrant_url or "", None, "benefits")
    pipeline = build_pipeline(settings, index=index, embedder=HashEmbedder(), generator=ExtractiveGenerator())
    token = mint_token("k", subject="u", acl_groups=["employees"], state=None)
    with pytest.raises(IndexUnavailable):
        await pipeline.answer("What is the deductible?", token)
    await pipeline.aclose()


@pytest.mark.unit
async def test_a_damaged_embedded_shard_is_index_unavailable(tmp_path: Path) -> None:
    shard = tmp_path / "index" / "shard"
    shard.mkdir(parents=True)
    (shard / "segments").write_bytes(b"\x00not a shard\xff" * 10)
    with pytest.raises(IndexUnavailable, match="cannot open the index"):
        await EdgeIndex(tmp_path / "index").ping()


@pytest.mark.unit
async def test_a_missing_embedded_index_says_to_ingest_first(tmp_path: Path) -> None:
    with pytest.raises(IndexUnavailable, match="benefitsbot ingest"):
        await EdgeIndex(tmp_path / "nothing-here").ping()


@pytest.mark.integration
async def test_a_shard_held_by_another_process_says_so(tmp_path: Path) -> None:
    import subprocess
    import sys

    index = EdgeIndex(tmp_path / "index")
    await index.prepare(8)
    await index.aclose()
    holder = subprocess.Popen(  # noqa: ASYNC220 - a plain child process that holds the shard
        [
            sys.executable,
            "-c",
            "import sys, qdrant_edge as qe; s = qe.EdgeShard.load(sys.argv[1]); print('held', flush=True); "
            "sys.stdin.read()",
            str(tmp_path / "index" / "shard"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(IndexUnavailable, match="in use by another process"):
            await EdgeIndex(tmp_path / "index").ping()
    finally:
        holder.kill()
        holder.wait()
