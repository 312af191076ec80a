"""The core as the edge sees it: the ``AnswerService`` protocol and its production
implementation, which holds the answer pipeline it was given."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import date
from typing import Protocol, runtime_checkable

from rag_core.errors import IndexUnavailable
from rag_core.pipeline import Pipeline, build_pipeline
from rag_core.settings import CoreSettings
from rag_core.types import Answer


class AnswerService(Protocol):
    """What the edge needs from the core (``Pipeline.answer``'s signature)."""

    async def answer(
        self,
        question: str,
        token: str,
        *,
        as_of: date | None = None,
        audience_tokens: Sequence[str] = (),
        history: Sequence[str] = (),
    ) -> Answer: ...


@runtime_checkable
class Lifecycle(Protocol):
    """Optional: services that load at startup and release resources at shutdown."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...


@runtime_checkable
class IndexAware(Protocol):
    """Optional extras of an answer service: readiness and the index version (for the answer cache)."""

    async def index_version(self) -> str | None: ...

    async def ready(self) -> tuple[bool, str]: ...


class CoreAnswerService:
    """Production default: answers with the pipeline that ``build`` returns.

    Building a pipeline (loading models, opening the index) is slow and synchronous, so
    :meth:`start` runs ``build`` in a worker thread at startup and warms the pipeline up (the
    event loop keeps serving /healthz and acks meanwhile); questions wait for it to finish.
    """

    def __init__(self, build: Callable[[], Pipeline]) -> None:
        self._build = build
        self._pipeline: Pipeline | None = None
        self._warming: asyncio.Task[None] | None = None

    @classmethod
    def from_settings(cls, settings: CoreSettings) -> CoreAnswerService:
        return cls(lambda: build_pipeline(settings))

    async def _warm(self) -> None:
        pipeline = await asyncio.to_thread(self._build)
        await pipeline.warm_up()
        self._pipeline = pipeline

    async def start(self) -> None:
        if self._warming is None:
            self._warming = asyncio.get_running_loop().create_task(self._warm(), name="rag-core-warm-up")

    async def pipeline(self) -> Pipeline:
        """The pipeline, once built (a failed build is retried by the next question)."""
        if self._warming is None or (self._warming.done() and self._warming.exception() is not None):
            self._warming = None
            await self.start()
        assert self._warming is not None
        await asyncio.shield(self._warming)
        assert self._pipeline is not None
        return self._pipeline

    async def answer(
        self,
        question: str,
        token: str,
        *,
        as_of: date | None = None,
        audience_tokens: Sequence[str] = (),
        history: Sequence[str] = (),
    ) -> Answer:
        pipeline = await self.pipeline()
        return await pipeline.answer(question, token, as_of=as_of, audience_tokens=audience_tokens, history=history)

    async def index_version(self) -> str | None:
        """The index version (answers are cached per version; a re-ingest invalidates them)."""
        return await (await self.pipeline()).index_version()

    async def ready(self) -> tuple[bool, str]:
        if self._warming is None or not self._warming.done():
            return False, "loading models and opening the index"
        if self._warming.exception() is not None:
            return False, f"engine failed to load: {type(self._warming.exception()).__name__}"
        assert self._pipeline is not None
        try:
            version = await self._pipeline.index_version()
        except IndexUnavailable as exc:
            return False, str(exc)
        return True, f"index {version}"

    async def close(self) -> None:
        if self._warming is not None and not self._warming.done():
            self._warming.cancel()
        if self._pipeline is not None:
            await self._pipeline.aclose()
            self._pipeline = None
