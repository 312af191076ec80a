"""US state names and two-letter codes: the jurisdictions a token's ``state`` claim may name, and the
states a question names."""

from __future__ import annotations

import re

US_STATES: dict[str, str] = {
    "Alabama": "AL",
    "Alaska": "AK",
    "Arizona": "AZ",
    "Arkansas": "AR",
    "California": "CA",
    "Colorado": "CO",
    "Connecticut": "CT",
    "Delaware": "DE",
    "District of Columbia": "DC",
    "Florida": "FL",
    "Georgia": "GA",
    "Hawaii": "HI",
    "Idaho": "ID",
    "Illinois": "IL",
    "Indiana": "IN",
    "Iowa": "IA",
    "Kansas": "KS",
    "Kentucky": "KY",
    "Louisiana": "LA",
    "Maine": "ME",
    "Maryland": "MD",
    "Massachusetts": "MA",
    "Michigan": "MI",
    "Minnesota": "MN",
    "Mississippi": "MS",
    "Missouri": "MO",
    "Montana": "MT",
    "Nebraska": "NE",
    "Nevada": "NV",
    "New Hampshire": "NH",
    "New Jersey": "NJ",
    "New Mexico": "NM",
    "New York": "NY",
    "North Carolina": "NC",
    "North Dakota": "ND",
    "Ohio": "OH",
    "Oklahoma": "OK",
    "Oregon": "OR",
    "Pennsylvania": "PA",
    "Puerto Rico": "PR",
    "Rhode Island": "RI",
    "South Carolina": "SC",
    "South Dakota": "SD",
    "Tennessee": "TN",
    "Texas": "TX",
    "Utah": "UT",
    "Vermont": "VT",
    "Virginia": "VA",
    "Washington": "WA",
    "West Virginia": "WV",
    "Wisconsin": "WI",
    "Wyoming": "WY",
}

STATE_CODES: frozenset[str] = frozenset(US_STATES.values())
STATE_NAMES: dict[str, str] = {code: name for name, code in US_STATES.items()}

_NAMES = {name.lower(): code for name, code in US_STATES.items()}
# A state named in full ("California", any case), by its code in capitals ("CA") or after "in"
# ("in ca", as chat writes it). Codes that are also words or other abbreviations in capitals
# ("IN", "OR", "ME", "OK", "HI", "OH", "ID", "MD", "PA", "CO", "LA" for Los Angeles) count in full only.
_AMBIGUOUS_CODES = frozenset({"IN", "OR", "ME", "OK", "HI", "OH", "ID", "MD", "PA", "CO", "LA", "DE", "MA", "AL", "MS"})
_NAME = re.compile(r"\b(" + "|".join(sorted((re.escape(n) for n in _NAMES), key=len, reverse=True)) + r")\b", re.I)
_CODE = re.compile(r"\b(?:in\s+)?([A-Za-z]{2})\b")
# A state the asker says they are not in ("not in CA btw", "I don't work in California") is not the
# state asked about: the text right before the name ends with a negation and at most a location verb
# and "in" / "from". "not sure if California…" is not such a negation, and neither is "outside
# Washington" (travelling outside the home state is a question about the home state's plan).
_NEGATED_BEFORE = re.compile(
    r"(?:\bnot|n't|n’t|\bnever|\bneither)\s+"
    r"(?:(?:live|living|work|working|based|located|reside|residing|employed)\s+)?(?:(?:in|from)\s+)?$",
    re.IGNORECASE,
)


# A state listed right after one the asker says they are not in ("not in CA or NY", "not in CA, NY or
# WA", "neither CA nor NY") is negated with it: only a separator lies between the two mentions.
_LISTED_AFTER = re.compile(r"^\s*(?:,\s*)?(?:(?:or|nor|and)\s+)?(?:/\s*)?(?:in\s+)?$", re.IGNORECASE)


def named_states(question: str) -> set[str]:
    """The two-letter codes of the US states ``question`` names ("I work in California" -> {"CA"}),
    except where the asker says they are not there ("not in CA or NY btw" -> set())."""
    mentions = sorted(_mentions(question))
    named: set[str] = set()
    previous_end, previous_negated = -1, False
    for start, end, code in mentions:
        negated = _negated(question, start) or (
            previous_negated and _LISTED_AFTER.match(question[previous_end:start]) is not None
        )
        if not negated:
            named.add(code)
        previous_end, previous_negated = end, negated
    return named


def _mentions(question: str) -> list[tuple[int, int, str]]:
    """Every state mention as (start, end, code): names in full, and codes in capitals or after "in"."""
    found = [(m.start(), m.end(), _NAMES[m.group(1).lower()]) for m in _NAME.finditer(question)]
    for match in _CODE.finditer(question):
        code, after_in = match.group(1), match.group(0).lower().startswith("in")
        if (
            code.upper() in STATE_CODES
            and code.upper() not in _AMBIGUOUS_CODES
            and (code.isupper() or after_in)
            and not any(start <= match.start(1) < end for start, end, _ in found)
        ):
            found.append((match.start(), match.end(), code.upper()))
    return found


def _negated(question: str, start: int) -> bool:
    return _NEGATED_BEFORE.search(question[:start]) is not None
