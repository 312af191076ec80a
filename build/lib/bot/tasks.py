"""Background work that outlives the HTTP request that started it.

Slack wants an ack within 3 seconds and the Bot Framework within 15; answers take longer. Work
is spawned here after the ack, with a strong reference (bare ``ensure_future`` tasks can be
garbage-collected mid-flight), errors logged, and a way to drain on shutdown and in tests.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class BackgroundTasks:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    def spawn(self, coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any] | None:
        if self._closed:
            coro.close()
            log.warning("shutting down; dropped background task %s", name)
            return None
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("background task %s failed", task.get_name(), exc_info=exc)

    @property
    def pending(self) -> int:
        return len(self._tasks)

    async def drain(self, within_s: float = 30.0) -> None:
        """Wait until no task is running (including tasks spawned while waiting)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within_s
        while self._tasks:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"{len(self._tasks)} background task(s) still running")
            await asyncio.wait(set(self._tasks), timeout=remaining)

    async def close(self, grace_s: float = 10.0) -> None:
        """Let running answers finish for ``grace_s``, then cancel the rest."""
        self._closed = True
        if not self._tasks:
            return
        await asyncio.wait(set(self._tasks), timeout=grace_s)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
