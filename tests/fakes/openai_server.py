"""A local fake of the OpenAI HTTP API (``/v1/embeddings`` and ``/v1/chat/completions``).

It runs an aiohttp app on 127.0.0.1 (a free port) in its own thread and event loop, so it serves
async and sync clients alike and a hanging response never blocks the test's loop.

* embeddings are deterministic: a hashed bag of words in ``dim`` dimensions (per-model dims are
  configurable; the request's ``dimensions`` wins), optionally scaled (to prove clients normalise);
* chat replies are scripted: a fixed text or a callable ``(request_json) -> text``;
* ``fail_next(n, status)`` makes the next ``n`` requests fail; ``hang_next(seconds)`` delays the next
  one; every request's path, JSON body and Authorization header is recorded in ``.requests``.

Use the ``fake_openai`` fixture (registered in ``tests/conftest.py``).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from aiohttp import web

Reply = str | Callable[[dict[str, Any]], str]

_WORD = re.compile(r"\w+")


def hashed_bow(text: str, dim: int) -> list[float]:
    """Deterministic unit vector: each word adds +-1 to one hashed coordinate."""
    vector = np.zeros(dim, dtype=np.float64)
    for word in _WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        vector[value % dim] += 1.0 if (value >> 63) & 1 else -1.0
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:
        vector[0], norm = 1.0, 1.0
    return (vector / norm).tolist()  # type: ignore[no-any-return]


@dataclass
class RecordedRequest:
    path: str
    json: dict[str, Any]
    authorization: str | None
    headers: dict[str, str] = field(default_factory=dict)


class FakeOpenAI:
    """The server plus its script. Thread-safe: tests poke it from their own thread."""

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.model_dims: dict[str, int] = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072}
        self.embedding_scale = 1.0  # != 1 sends non-unit vectors
        self.reverse_embedding_order = False  # the API does not promise order; clients sort by index
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._reply: Reply = "INSUFFICIENT_CONTEXT"
        self._once: list[Reply] = []
        self._failures: list[int] = []
        self._hangs: list[float] = []
        self._echo_auth_in_errors = True  # like a careless proxy: tests check clients scrub it
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._release: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- script ---------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script_reply(self, reply: Reply, *, once: bool = False) -> None:
        """Chat reply for every following request (or only the next one with ``once=True``)."""
        with self._lock:
            if once:
                self._once.append(reply)
            else:
                self._reply = reply

    def fail_next(self, n: int, status: int = 500) -> None:
        """The next ``n`` requests (any endpoint) fail with HTTP ``status``."""
        with self._lock:
            self._failures.extend([status] * n)

    def hang_next(self, seconds: float, n: int = 1) -> None:
        """The next ``n`` requests wait ``seconds`` before answering (normally)."""
        with self._lock:
            self._hangs.extend([seconds] * n)

    def requests_to(self, suffix: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith(suffix)]

    # -- handlers -------------------------------------------------------------------------------

    async def _prelude(self, request: web.Request) -> tuple[dict[str, Any], web.Response | None]:
        try:
            body = await request.json()
        except ValueError:
            body = {}
        auth = request.headers.get("Authorization")
        with self._lock:
            self.requests.append(RecordedRequest(request.path, body, auth, dict(request.headers)))
            hang = self._hangs.pop(0) if self._hangs else 0.0
            status = self._failures.pop(0) if self._failures else None
        if hang:
            assert self._release is not None
            try:
                await asyncio.wait_for(self._release.wait(), hang)
            except TimeoutError:
                pass
        if status is not None:
            message = "fake failure"
            if self._echo_auth_in_errors:
                message += f" (request carried {auth})"
            kind = "rate_limit_exceeded" if status == 429 else "server_error"
            return body, web.json_response({"error": {"message": message, "type": kind, "code": kind}}, status=status)
        return body, None

    async def _embeddings(self, request: web.Request) -> web.Response:
        body, failure = await self._prelude(request)
        if failure is not None:
            return failure
        inputs = body.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not inputs or not all(isinstance(t, str) and t for t in inputs):
            return web.json_response(
                {
                    "error": {
                        "message": "'input' must be a non-empty string or a list of non-empty strings",
                        "type": "invalid_request_error",
                    }
                },
                status=400,
            )
        model = str(body.get("model", ""))
        dim = int(body.get("dimensions") or self.model_dims.get(model, self.dim))
        data = []
        for index, text in enumerate(inputs):
            vector = [v * self.embedding_scale for v in hashed_bow(text, dim)]
            encoded: Any = vector
            if body.get("encoding_format") == "base64":
                encoded = base64.b64encode(np.asarray(vector, dtype=np.float32).tobytes()).decode()
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        if self.reverse_embedding_order:
            data.reverse()
        tokens = sum(len(t.split()) for t in inputs)
        return web.json_response(
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    async def _chat(self, request: web.Request) -> web.Response:
        body, failure = await self._prelude(request)
        if failure is not None:
            return failure
        with self._lock:
            reply = self._once.pop(0) if self._once else self._reply
        text = reply(body) if callable(reply) else reply
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        completion_tokens = len(text.split())
        return web.json_response(
            {
                "id": f"chatcmpl-fake-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", ""),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            }
        )

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        ready = threading.Event()
        errors: list[BaseException] = []

        async def serve() -> None:
            self._release = asyncio.Event()
            app = web.Application()
            app.router.add_post("/v1/embeddings", self._embeddings)
            app.router.add_post("/v1/chat/completions", self._chat)
            self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
            await self._runner.setup()
            await web.SockSite(self._runner, sock).start()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(serve())
            except BaseException as exc:
                errors.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-openai", daemon=True)
        self._thread.start()
        ready.wait(10)
        if errors:
            raise errors[0]
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return

        async def shutdown() -> None:
            assert self._release is not None and self._runner is not None
            self._release.set()  # let hanging handlers finish
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(shutdown(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        self._loop = self._thread = None


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()
