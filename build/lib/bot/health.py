"""``/healthz`` (the process runs), ``/readyz`` (its dependencies answer) and ``/metrics``.

Readiness fails (503) when the index is unavailable: nothing could be answered. A Redis outage
is reported (status "degraded", with the reason) but keeps the bot ready, because the bot is
designed to keep answering without Redis; taking every replica out of rotation for it would
turn a cache outage into a full outage.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot.errors import StoreUnavailable
from bot.observability import Metrics
from bot.store import Store

log = logging.getLogger(__name__)

IndexProbe = Callable[[], Awaitable[tuple[bool, str]]]


class Health:
    def __init__(
        self,
        store: Store,
        index_probe: IndexProbe,
        metrics: Metrics,
        platforms: dict[str, str],
        timeout_s: float = 3.0,
    ) -> None:
        self._store = store
        self._index_probe = index_probe
        self._metrics = metrics
        self._platforms = platforms
        self._timeout_s = timeout_s

    async def healthz(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def _check_store(self) -> dict[str, Any]:
        try:
            await asyncio.wait_for(self._store.ping(), timeout=self._timeout_s)
        except (StoreUnavailable, TimeoutError) as exc:
            self._metrics.store_up.set(0)
            return {"ok": False, "kind": self._store.kind, "detail": str(exc) or "timeout"}
        self._metrics.store_up.set(1)
        return {"ok": True, "kind": self._store.kind}

    async def _check_index(self) -> dict[str, Any]:
        try:
            ok, detail = await asyncio.wait_for(self._index_probe(), timeout=self._timeout_s)
        except Exception as exc:  # noqa: BLE001 - a failing probe is a not-ready index
            return {"ok": False, "detail": f"probe failed: {type(exc).__name__}"}
        return {"ok": ok, "detail": detail}

    async def readyz(self, request: web.Request) -> web.Response:
        store, index = await asyncio.gather(self._check_store(), self._check_index())
        reasons: list[str] = []
        if not index["ok"]:
            reasons.append(f"index: {index['detail']}")
        degraded = [] if store["ok"] else [f"{store['kind']}: {store['detail']} (answering without cache)"]
        ready = not reasons
        status = "not_ready" if not ready else ("degraded" if degraded else "ready")
        body = {
            "status": status,
            "ready": ready,
            "reasons": reasons + degraded,
            "checks": {store["kind"]: store, "index": index},
            "platforms": self._platforms,
        }
        return web.json_response(body, status=200 if ready else 503)

    async def metrics(self, request: web.Request) -> web.Response:
        body = generate_latest(self._metrics.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})
