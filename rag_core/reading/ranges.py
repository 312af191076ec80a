"""Table rows keyed by a range the asker's own number falls outside.

A handbook's vacation table keys its rows by years of service ("Less than 3 years", "3 to 5 years",
"6 or more years"). The reader cannot compare numbers: "been here 4 yrs… whats the max vacation
balance before i stop accruing" read the "Less than 3 years" and "6 or more years" rows as well as
the "3 to 5 years" one, and the answer showed those two. When the question states one number in the
rows' unit ("4 yrs", "seven years", "a 4-year anniversary") and one row's range holds it, the rows
whose ranges do not are about someone else, and the row that holds it is the asker's own (the reader
reads it even when its prefilters left it out: ``reader.SpanReader``'s ``range_rows``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "twenty": 20,
}  # fmt: skip
_UNITS = {
    "yr": "year", "yrs": "year", "year": "year", "years": "year",
    "mo": "month", "mos": "month", "month": "month", "months": "month",
    "wk": "week", "wks": "week", "week": "week", "weeks": "week",
    "day": "day", "days": "day",
    "hr": "hour", "hrs": "hour", "hour": "hour", "hours": "hour",
}  # fmt: skip
_NUMBER = r"(?P<n>\d+(?:\.\d+)?|" + "|".join(_NUMBER_WORDS) + r")"
_UNIT_NAMES = "|".join(sorted(_UNITS, key=len, reverse=True))
_UNIT = rf"(?P<unit>{_UNIT_NAMES})\b"
# "4 yrs", "seven years", "a 4-year anniversary", "4+ years", "4yrs"
_AMOUNT = re.compile(rf"(?<![\w$.,]){_NUMBER}\s*\+?\s*-?\s*{_UNIT}", re.IGNORECASE)


@dataclass(frozen=True)
class Range:
    """A half-open range [low, high) of ``unit``."""

    low: float
    high: float
    unit: str

    def holds(self, value: float) -> bool:
        return self.low <= value < self.high


def _number(text: str) -> float:
    return float(text) if text[0].isdigit() else float(_NUMBER_WORDS[text.lower()])


_BELOW = re.compile(rf"^(?:less than|fewer than|under|below)\s+{_NUMBER}\s+{_UNIT}$", re.IGNORECASE)
_BETWEEN = re.compile(
    rf"^(?P<a>\d+)\s*(?:to|-|–|through)\s*{_NUMBER}\s+{_UNIT}$",
    re.IGNORECASE,
)
# The same with the unit after the first number too ("2 years to less than 5 years", "15 years or more":
# Tailspin's PTO table), so a question's "6 yrs" finds the "5 years to less than 10 years" row.
_ANY_UNIT = rf"(?:{_UNIT_NAMES})\b"
_UP_TO_BELOW = re.compile(
    rf"^(?:at least\s+)?(?P<a>\d+)\s*(?:{_ANY_UNIT}\s*)?(?:to|but|and)\s+(?:less than|under|fewer than)\s+"
    rf"{_NUMBER}\s+{_UNIT}$",
    re.IGNORECASE,
)
_OR_MORE = r"(?:\+|or more|or longer|and (?:over|up|more))"
_FROM = re.compile(rf"^{_NUMBER}\s*{_OR_MORE}\s*{_UNIT}$", re.IGNORECASE)
_FROM_UNIT_FIRST = re.compile(rf"^{_NUMBER}\s*{_UNIT}\s*{_OR_MORE}$", re.IGNORECASE)
_ABOVE = re.compile(rf"^(?:more than|over)\s+{_NUMBER}\s+{_UNIT}$", re.IGNORECASE)
# One whole unit: "2 years" of a vesting schedule keyed "Less than 1", "1", "2", … "5 or more".
_EXACT = re.compile(rf"^{_NUMBER}\s+{_UNIT}$", re.IGNORECASE)
_UNIT_WORD = re.compile(rf"\b{_UNIT}", re.IGNORECASE)


def label_range(label: str, column: str = "") -> Range | None:
    """The range a row label names ("Less than 3 years" -> [0, 3) years; "3 to 5 years" -> [3, 6):
    whole units, so 5.5 years of service is still "3 to 5"; "6 or more years" -> [6, inf)), or None.
    A label without a unit takes the one its ``column`` names, when it names one: a vesting schedule
    keys its rows "Less than 1", "1", "2", … under "Years of vesting service", so "2" is [2, 3) years."""
    text = " ".join(label.split()).strip(" .")
    if not _UNIT_WORD.search(text) and len(units := {m["unit"].lower() for m in _UNIT_WORD.finditer(column)}) == 1:
        text = f"{text} {units.pop()}"
    for pattern in (_BELOW, _BETWEEN, _UP_TO_BELOW, _FROM, _FROM_UNIT_FIRST, _ABOVE, _EXACT):
        if match := pattern.match(text):
            n, unit = _number(match["n"]), _UNITS[match["unit"].lower()]
            if pattern is _BELOW:
                return Range(0.0, n, unit)
            if pattern is _BETWEEN:
                return Range(float(match["a"]), n + 1, unit)
            if pattern is _UP_TO_BELOW:
                return Range(float(match["a"]), n, unit)
            if pattern in (_FROM, _FROM_UNIT_FIRST):
                return Range(n, math.inf, unit)
            if pattern is _EXACT:
                return Range(n, n + 1, unit)
            return Range(math.nextafter(n, math.inf), math.inf, unit)
    return None


# A bound, not the asker's own number: "…with 5 to less than 10 years of service", "less than 2 years", "over
# 6 years", "10 years or more". Read as a number, "10 years" ruled out the very row the question names.
_BOUND_BEFORE = re.compile(
    r"(?:(?:less|fewer|more)\s+than|under|below|over|at\s+least|up\s+to|to|through|[-–])\s*$", re.I
)
_BOUND_AFTER = re.compile(r"^\s*(?:or\s+(?:more|longer|less|fewer|over|under)|and\s+(?:over|up|more))\b", re.I)


def stated_amounts(question: str) -> dict[str, set[float]]:
    """The numbers the question states per unit ("been here 4 yrs, 20 hrs a week" -> year {4}, hour {20}),
    never a bound it states ("less than 2 years", "5 to less than 10 years", "10 years or more")."""
    out: dict[str, set[float]] = {}
    for match in _AMOUNT.finditer(question):
        if _BOUND_BEFORE.search(question[: match.start()]) or _BOUND_AFTER.match(question[match.end() :]):
            continue
        out.setdefault(_UNITS[match["unit"].lower()], set()).add(_number(match["n"]))
    return out


def _keyed_tables(
    question: str, tables: Mapping[tuple[str, str], Sequence[str]]
) -> Iterator[tuple[str, str, dict[str, Range], float]]:
    """Each range-keyed table (two or more range labels, one unit) whose unit the question states one
    number in, held by one of its rows: (document, first column, ranges by label, the number)."""
    stated = stated_amounts(question)
    for (document, column), labels in tables.items():
        ranges = {label: r for label in set(labels) if (r := label_range(label, column)) is not None}
        units = {r.unit for r in ranges.values()}
        if len(ranges) < 2 or len(units) != 1:
            continue
        values = stated.get(next(iter(units)), set())
        if len(values) != 1:
            continue
        value = next(iter(values))
        if any(r.holds(value) for r in ranges.values()):
            yield document, column, ranges, value


def rows_out_of_range(question: str, tables: Mapping[tuple[str, str], Sequence[str]]) -> set[tuple[str, str, str]]:
    """The (document, first column, label) rows whose range does not hold the one number the question
    states in their unit, when another row of the same table holds it. ``tables``: the labels read
    of each document's table, by first column."""
    return {
        (document, column, label)
        for document, column, ranges, value in _keyed_tables(question, tables)
        for label, r in ranges.items()
        if not r.holds(value)
    }


def rows_in_range(question: str, tables: Mapping[tuple[str, str], Sequence[str]]) -> set[tuple[str, str, str]]:
    """The rows of the same tables that do hold it: the asker's own row."""
    return {
        (document, column, label)
        for document, column, ranges, value in _keyed_tables(question, tables)
        for label, r in ranges.items()
        if r.holds(value)
    }
