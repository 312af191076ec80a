"""US state names and codes: turns a free-text "work state" profile field into a jurisdiction.

Profiles say "California", "CA" or "california "; the core wants "CA". Unknown spellings map
to None (the user then sees only US-wide documents), never to a guess.
"""

from __future__ import annotations

from collections.abc import Mapping

from rag_core.jurisdictions import US_STATES  # noqa: E402  (the one table, shared with the core)

VALID_CODES: frozenset[str] = frozenset(US_STATES.values())


def _key(text: str) -> str:
    return " ".join(text.replace(".", " ").split()).casefold()


def build_state_table(aliases: Mapping[str, str] | None = None) -> dict[str, str]:
    """Normalized spelling -> code, from the built-in names and codes plus policy aliases."""
    table = {_key(name): code for name, code in US_STATES.items()}
    table.update({_key(code): code for code in VALID_CODES})
    for alias, code in (aliases or {}).items():
        table[_key(alias)] = code.upper()
    return table


def normalize_state(value: str | None, table: Mapping[str, str]) -> str | None:
    """The two-letter code for ``value`` or None when it is empty or unrecognised."""
    if not value or not value.strip():
        return None
    return table.get(_key(value))
