"""The real bundled models, loaded once per test session with the network switched off while they load."""

from __future__ import annotations

import pytest

from rag_core.models import ColbertEncoder, CrossEncoder, DenseOnnxEncoder
from tests.fakes.network import network_disabled


@pytest.fixture(scope="session")
def dense() -> DenseOnnxEncoder:
    with network_disabled() as attempts:
        encoder = DenseOnnxEncoder.shared()
        encoder.encode_query("warm up")
    assert attempts == []
    return encoder


@pytest.fixture(scope="session")
def colbert() -> ColbertEncoder:
    with network_disabled() as attempts:
        encoder = ColbertEncoder.shared()
        encoder.encode_query("warm up")
    assert attempts == []
    return encoder


@pytest.fixture(scope="session")
def cross() -> CrossEncoder:
    with network_disabled() as attempts:
        encoder = CrossEncoder.shared()
        encoder.score("warm up", ["a passage"])
    assert attempts == []
    return encoder
