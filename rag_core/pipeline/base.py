"""The stage contract: one small component per step of the answer path."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from rag_core.pipeline.state import QueryState


@runtime_checkable
class Stage(Protocol):
    """One step of the answer path.

    ``run`` reads and extends the state, and calls ``state.abstain(...)`` to end the question;
    ``warm_up`` loads what the first question would otherwise pay for; ``aclose`` releases what
    the stage alone owns (clients, sessions). Shared resources (index, embedder) are the
    pipeline's to close.
    """

    name: str

    async def run(self, state: QueryState) -> None: ...

    async def warm_up(self) -> None: ...

    async def aclose(self) -> None: ...


class StageBase:
    """Defaults for stages that hold nothing to load or release."""

    name = "stage"

    async def warm_up(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


@runtime_checkable
class AsyncCloseable(Protocol):
    """Anything holding a connection, a session or a file handle: closed once, by its owner."""

    async def aclose(self) -> None: ...
