"""Table rows keyed by a range the asker's number falls outside (``rag_core.reading.ranges``)."""

from __future__ import annotations

import math

import pytest

from rag_core.reading.ranges import Range, label_range, rows_in_range, rows_out_of_range, stated_amounts

pytestmark = pytest.mark.unit

VACATION = {("employee-handbook-2026", "Years of service"): ["Less than 3 years", "3 to 5 years", "6 or more years"]}


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Less than 3 years", Range(0.0, 3.0, "year")),
        ("3 to 5 years", Range(3.0, 6.0, "year")),  # whole years: 5.5 years of service is still "3 to 5"
        ("6 or more years", Range(6.0, math.inf, "year")),
        ("10+ years", Range(10.0, math.inf, "year")),
        ("Under 90 days", Range(0.0, 90.0, "day")),
        # Tailspin's PTO table: the unit after both numbers, the upper bound excluded in words
        ("2 years to less than 5 years", Range(2.0, 5.0, "year")),
        ("5 years to less than 10\nyears", Range(5.0, 10.0, "year")),  # a cell's line break
        ("at least 2 years but less than 5 years", Range(2.0, 5.0, "year")),
        ("15 years or more", Range(15.0, math.inf, "year")),
        ("90 days or longer", Range(90.0, math.inf, "day")),
        ("Family", None),
        ("Employee + child(ren)", None),
    ],
)
def test_a_row_label_names_a_range(label: str, expected: Range | None) -> None:
    assert label_range(label) == expected


VESTING = {("retirement", "Years of vesting service"): ["Less than 1", "1", "2", "3", "4", "5 or more"]}


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Less than 1", Range(0.0, 1.0, "year")),
        ("2", Range(2.0, 3.0, "year")),
        ("5 or more", Range(5.0, math.inf, "year")),
        ("Family", None),
        ("3 to 5 years", Range(3.0, 6.0, "year")),  # a label's own unit stands
    ],
)
def test_a_label_without_a_unit_takes_its_columns(label: str, expected: Range | None) -> None:
    assert label_range(label, "Years of vesting service") == expected


def test_a_label_without_a_unit_under_a_column_without_one_names_no_range() -> None:
    assert label_range("2") is None
    assert label_range("2", "Coverage tier") is None
    assert label_range("2", "Days or weeks") is None  # two units: which one is unknown


def test_the_vesting_rows_of_other_years_go() -> None:
    """The reader read "3" and "4" of the schedule over "2" for "been at tailspin 2 yrs… how vested am i"
    (`t8-34`, a sealed set's row, benchmarks/README.md "Session 24"); the mutation "a label needs its own
    unit" rules out nothing here."""
    question = "been at tailspin 2 yrs (full yrs w/ 1000+ hrs), how vested am i in the 401k match?"
    out = rows_out_of_range(question, VESTING)
    assert {label for _, _, label in out} == {"Less than 1", "1", "3", "4", "5 or more"}


def test_more_than_excludes_the_number_itself() -> None:
    above = label_range("More than 10 years")
    assert above is not None and not above.holds(10) and above.holds(10.5)


@pytest.mark.parametrize(
    ("question", "amounts"),
    [
        ("been here 4 yrs and i barely take PTO", {"year": {4.0}}),
        ("I have been with Fabrikam for seven years.", {"year": {7.0}}),
        ("just hit my 4-year work anniversary", {"year": {4.0}}),
        ("i work 20 hrs a week, 2 years in", {"hour": {20.0}, "year": {2.0}}),
        ("does $4 years of premiums count?", {}),  # an amount, not a count of years
        ("hired in 2019", {}),
    ],
)
def test_the_numbers_a_question_states_per_unit(question: str, amounts: dict[str, set[float]]) -> None:
    assert stated_amounts(question) == amounts


def test_the_rows_whose_range_misses_the_askers_number_go() -> None:
    out = rows_out_of_range("been here 4 yrs, whats the max vacation balance?", VACATION)
    assert out == {
        ("employee-handbook-2026", "Years of service", "Less than 3 years"),
        ("employee-handbook-2026", "Years of service", "6 or more years"),
    }


def test_no_number_or_several_or_none_held_rules_out_nothing() -> None:
    assert rows_out_of_range("how much vacation do I get?", VACATION) == set()
    assert rows_out_of_range("I'm 4 years in, my wife 7 years: who accrues more?", VACATION) == set()
    assert rows_out_of_range("I worked 30 hours this week", VACATION) == set()  # another unit
    # a table of one range row, or rows in mixed units, is not a range-keyed table
    assert rows_out_of_range("4 years in", {("d", "Tenure"): ["3 to 5 years"]}) == set()


def test_the_askers_row_is_the_one_in_range() -> None:
    question = "been at tailspin 2 yrs (full yrs w/ 1000+ hrs), how vested am i in the 401k match?"
    assert rows_in_range(question, VESTING) == {("retirement", "Years of vesting service", "2")}
    assert rows_in_range("how vested am i?", VESTING) == set()


PTO = {
    ("docs-tailspin-time-off-2026", "Years of service"): [
        "Less than 2 years",
        "2 years to less than 5 years",
        "5 years to less than 10 years",
        "10 years to less than 15 years",
        "15 years or more",
    ]
}


def test_the_askers_row_of_a_table_that_names_its_unit_twice() -> None:
    """ "been here 6 yrs now… how many hrs of PTO do i get a year" read the "2 years to less than 5 years" row
    first: no label of this table was read as a range (benchmarks/README.md "Session 30")."""
    question = "been here 6 yrs now, full time. how many hrs of PTO do i get a year at this point?"
    assert rows_in_range(question, PTO) == {
        ("docs-tailspin-time-off-2026", "Years of service", "5 years to less than 10 years")
    }
    assert len(rows_out_of_range(question, PTO)) == 4
    assert rows_in_range("been here 5 years", PTO) == rows_in_range(question, PTO)  # 5 is in "5 to less than 10"


@pytest.mark.parametrize(
    "question",
    [
        "How many hours of PTO does a full-time employee with 5 to less than 10 years of service accrue?",
        "What is the cap for an employee with less than 2 years of service?",
        "been here over 6 years, how much PTO?",
        "what do people with 15 years or more get?",
    ],
)
def test_a_bound_the_question_states_is_not_the_askers_number(question: str) -> None:
    # "…5 to less than 10 years…" read as 10 years ruled out the row the question names.
    assert stated_amounts(question) == {}
    assert rows_out_of_range(question, PTO) == set()
