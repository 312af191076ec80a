"""Prove code paths are offline: any attempt to open a network connection fails loudly."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest


class NetworkBlocked(OSError):
    pass


@contextmanager
def network_disabled() -> Iterator[list[Any]]:
    """Inside the block, ``connect`` and ``create_connection`` raise; attempts are recorded."""
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args[1:] if args and isinstance(args[0], socket.socket) else args)
        raise NetworkBlocked(f"network access attempted in an offline test: {args[1:] or args}")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", refuse)
        patch.setattr(socket.socket, "connect_ex", refuse)
        patch.setattr(socket, "create_connection", refuse)
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("TRANSFORMERS_OFFLINE", "1")
        yield attempts


@pytest.fixture
def no_network() -> Iterator[list[Any]]:
    with network_disabled() as attempts:
        yield attempts
