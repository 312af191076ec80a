"""A small base for fake HTTP services: start on a free loopback port, record calls, wait."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestServer


@dataclass
class Call:
    method: str
    args: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    at: float = field(default_factory=time.monotonic)
    result: dict[str, Any] = field(default_factory=dict)


class FakeService:
    def __init__(self) -> None:
        self.calls: list[Call] = []
        self._server: TestServer | None = None
        self._changed = asyncio.Event()

    def build(self) -> web.Application:  # pragma: no cover - abstract
        raise NotImplementedError

    async def start(self, port: int | None = None) -> str:
        self._server = TestServer(self.build(), host="127.0.0.1", port=port)
        await self._server.start_server()
        return self.base_url

    async def close(self) -> None:
        if self._server is not None:
            await self._server.close()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start() first"
        return str(self._server.make_url("")).rstrip("/")

    def record(self, method: str, args: dict[str, Any], headers: dict[str, str] | None = None) -> Call:
        call = Call(method, args, dict(headers or {}))
        self.calls.append(call)
        self._changed.set()
        return call

    def calls_to(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    async def wait_for(self, predicate: Callable[[], Any], within_s: float = 10.0) -> Any:
        """Wait until ``predicate()`` is truthy (re-checked on every recorded call)."""
        deadline = asyncio.get_running_loop().time() + within_s
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise AssertionError(f"condition not met within {within_s}s; calls: {[c.method for c in self.calls]}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), timeout=min(remaining, 0.2))
            except TimeoutError:
                pass
