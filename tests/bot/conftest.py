"""Fixtures for the chat-edge tests: app harnesses over the local fakes and a real redis-server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.bot.harness import SlackHarness, TeamsHarness, start_slack, start_teams, stop_slack, stop_teams

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run this package's async tests on the session loop, where the async fixtures live."""
    session_loop = pytest.mark.asyncio(loop_scope="session")
    for item in items:
        if pytest_asyncio.is_async_test(item) and _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(session_loop, append=False)


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """corpus/ ingested once per session (real model, real index): the data dir to answer from."""
    from tests.bot.sample_core import ingest

    data_dir = tmp_path_factory.mktemp("sample-index")
    ingest(data_dir)
    return data_dir


@pytest_asyncio.fixture
async def slack() -> AsyncIterator[SlackHarness]:
    harness = await start_slack()
    try:
        yield harness
    finally:
        await stop_slack(harness)


@pytest_asyncio.fixture
async def teams() -> AsyncIterator[TeamsHarness]:
    harness = await start_teams()
    try:
        yield harness
    finally:
        await stop_teams(harness)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A throwaway ``redis-server`` on a free loopback port, which tests may kill and restart."""

    def __init__(self, binary: str, workdir: Path) -> None:
        self.binary = binary
        self.workdir = workdir
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()  # an outage, not a clean shutdown
            self.proc.wait(timeout=10)
        self.proc = None


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    binary = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
    )
    if binary is None:
        pytest.skip("redis-server binary not installed (apt-get install -y redis-server)")
    server = RedisServer(binary, tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()
