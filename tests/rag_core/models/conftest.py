"""The real bundled models, loaded once per test session with the network switched off."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rag_core.models import ColbertEncoder, CrossEncoder, DenseOnnxEncoder
from tests.fakes.network import network_disabled


@pytest.fixture(scope="session")
def dense() -> Iterator[DenseOnnxEncoder]:
    with network_disabled() as attempts:
        yield DenseOnnxEncoder.shared()
    assert attempts == []


@pytest.fixture(scope="session")
def colbert() -> Iterator[ColbertEncoder]:
    with network_disabled() as attempts:
        yield ColbertEncoder.shared()
    assert attempts == []


@pytest.fixture(scope="session")
def cross() -> Iterator[CrossEncoder]:
    with network_disabled() as attempts:
        yield CrossEncoder.shared()
    assert attempts == []
