"""The extractive generator: quotes sentences of the context, each with its own citation, and
never writes a word of its own."""

from __future__ import annotations

import re

import pytest

from rag_core.citations import CITATION, validate
from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.text import split_sentences
from rag_core.types import Candidate
from tests.rag_core.candidates import candidate

pytestmark = pytest.mark.unit

MEDICAL_ROWS = "\n".join(
    [
        "Benefit (in-network): Copay - primary care visit; PPO Plan: $25; HDHP with HSA: 20% after deductible.",
        "Benefit (in-network): Copay - specialist visit; PPO Plan: $50; HDHP with HSA: 20% after deductible.",
        "Benefit (in-network): Deductible (individual / family); PPO Plan: $1,250 / $2,500; "
        "HDHP with HSA: $1,700 / $3,400.",
        "Benefit (in-network): Coinsurance; PPO Plan: 20% after deductible; HDHP with HSA: 20% after deductible.",
        "Benefit (in-network): Out-of-pocket maximum (individual / family); PPO Plan: $4,000 / $8,000; "
        "HDHP with HSA: $4,500 / $9,000.",
    ]
)
TABLE = candidate(
    "medical-plan-2026_p1_c00",
    MEDICAL_ROWS,
    policy_id="medical-plan",
    title="Fabrikam Medical Plan Summary 2026",
    heading="Plan Options at a Glance",
)
PROSE = candidate(
    "medical-plan-2026_p2_c00",
    "Under the PPO Plan, office visits and prescriptions are covered with a flat copay. "
    "The family deductible is embedded: no single person pays more than the $1,250 individual "
    "deductible. You must enroll within 30 days of your date of hire.",
    policy_id="medical-plan",
    title="Fabrikam Medical Plan Summary 2026",
    heading="How the PPO works",
    page=2,
)
LEAVE = candidate(
    "parental-leave-us-2026_p1_c00",
    "Eligible employees receive 12 weeks of paid parental leave at 100% of base pay. "
    "Leave must be taken within 12 months of the birth or placement.",
    policy_id="parental-leave",
    title="Fabrikam Parental Leave Policy 2026",
    heading="Amount of Leave",
)
OOP_A = candidate(
    "hmo-plan-2026_p1_c00",
    "The out-of-pocket maximum is $6,000 per person each plan year. Members pay a $30 copay for primary care.",
    heading="Cost Sharing",
)
OOP_B = candidate(
    "hmo-plan-2026_p1_c01",
    "Your out-of-pocket maximum is $6,350 per person. Out-of-network care is not covered.",
    heading="Annual Limits",
)
ALL = [TABLE, PROSE, LEAVE, OOP_A, OOP_B]

QUESTIONS = [
    "What is the PPO deductible?",
    "What is the individual deductible on the PPO medical plan?",
    "How many weeks of parental leave do I get?",
    "What is the out-of-pocket maximum?",
    "How long do I have to enroll after my date of hire?",
    "whats the copay to see a specialist",
]

_WORD = re.compile(r"[A-Za-z0-9$%][A-Za-z0-9$%,.'/()-]*")


def compose(question: str, context: list[Candidate], **kwargs: int | float) -> str:
    return ExtractiveGenerator(**kwargs).compose(question, context)  # type: ignore[arg-type]


def quoted(text: str) -> list[tuple[str, list[str]]]:
    """(sentence without citations, its citations) for each emitted sentence."""
    out = []
    for match in re.finditer(r"(.+?)((?:\[\^[^\]\s]+\])+)\s*", text):
        out.append((match.group(1).strip(), CITATION.findall(match.group(2))))
    return out


def words(text: str) -> set[str]:
    return {w.strip(".,;:()").lower() for w in _WORD.findall(text) if w.strip(".,;:()")}


@pytest.mark.parametrize("question", QUESTIONS)
def test_never_emits_a_word_that_is_not_in_the_source(question: str) -> None:
    text = compose(question, ALL)
    assert text != "INSUFFICIENT_CONTEXT"
    source_words = set().union(*(words(c.content) for c in ALL))
    emitted = CITATION.sub(" ", text)
    assert words(emitted) <= source_words, words(emitted) - source_words
    by_id = {c.chunk_id: c for c in ALL}
    for sentence, cited in quoted(text):
        assert len(cited) == 1
        body = sentence[:-1] if sentence.endswith(".") and not by_id[cited[0]].content.count(sentence) else sentence
        # Verbatim, and from the very chunk it cites (never the title/heading line).
        assert body in by_id[cited[0]].content, (sentence, cited)
        assert body not in split_sentences(by_id[cited[0]].content)[0]


@pytest.mark.parametrize("question", QUESTIONS)
def test_output_passes_the_citation_validator_unchanged(question: str) -> None:
    text = compose(question, ALL)
    result = validate(text, [c.chunk_id for c in ALL], [c.source_uri for c in ALL])
    assert result.rejected is None
    assert result.text == text
    assert result.dropped_sentences == 0


def test_picks_the_deductible_row_for_an_individual_deductible_question() -> None:
    text = compose("What is the individual deductible on the PPO medical plan?", [TABLE])
    first, cited = quoted(text)[0]
    assert first.startswith("Benefit (in-network): Deductible (individual / family)")
    assert "$1,250" in first and cited == [TABLE.chunk_id]


def test_picks_the_deductible_row_for_a_plain_deductible_question() -> None:
    text = compose("What is the PPO deductible?", [TABLE])
    first, _ = quoted(text)[0]
    assert first.startswith("Benefit (in-network): Deductible (individual / family)"), text


def test_quantity_questions_prefer_sentences_with_numbers() -> None:
    text = compose("How many weeks of parental leave do I get?", [LEAVE])
    first, cited = quoted(text)[0]
    assert "12 weeks" in first and cited == [LEAVE.chunk_id]


def test_money_questions_are_not_answered_by_counts_of_days_or_hours() -> None:
    eligibility = candidate(
        "parental-leave-us-2026_p1_c00",
        "You qualify after 90 days of continuous employment and become a parent through birth or the "
        "placement of a child with you for adoption.",
        policy_id="parental-leave",
        title="Fabrikam Parental Leave Policy 2026",
        heading="Eligibility",
    )
    assert compose("How much does Fabrikam reimburse for adoption expenses?", [eligibility]) == ("INSUFFICIENT_CONTEXT")
    # The same sentences still answer a question that asks for a count of days.
    assert "90 days" in compose("How many days before I qualify for leave after an adoption?", [eligibility])


@pytest.mark.parametrize(
    ("question", "amount"),
    [
        ("How much does the adoption assistance program reimburse?", "$5,000"),
        ("How much of adoption expenses does the plan pay?", "80%"),
    ],
)
def test_money_questions_are_answered_by_amounts_and_shares(question: str, amount: str) -> None:
    benefit = candidate(
        "adoption-2026_p1_c00",
        "The adoption assistance program reimburses up to $5,000 per child. "
        "The plan pays 80% of eligible adoption expenses.",
        policy_id="adoption",
        title="Fabrikam Adoption Assistance 2026",
        heading="Reimbursement",
    )
    assert amount in compose(question, [benefit])


def test_returns_insufficient_context_when_nothing_overlaps() -> None:
    assert compose("Does the company offer pet insurance?", ALL) == "INSUFFICIENT_CONTEXT"
    assert compose("", ALL) == "INSUFFICIENT_CONTEXT"
    assert compose("the of and what is", ALL) == "INSUFFICIENT_CONTEXT"  # stop words only
    assert compose("What is the deductible?", []) == "INSUFFICIENT_CONTEXT"


def test_title_line_alone_is_not_an_answer() -> None:
    only_title = candidate(
        "vision-plan-2026_p1_c00",
        "See page 2.",
        title="Fabrikam Vision Plan 2026",
        heading="Frames allowance",
    )
    assert compose("What is the vision frames allowance?", [only_title]) == "INSUFFICIENT_CONTEXT"


def test_company_name_alone_is_not_an_answer() -> None:
    deductible = candidate(
        "medical-plan-2026_p1_c00",
        "The annual deductible for the Fabrikam PPO medical plan is $1,250 per person.",
        policy_id="medical-plan",
        title="Fabrikam Medical Plan Summary 2026",
    )
    assert compose("Does Fabrikam offer pet insurance?", [deductible]) == "INSUFFICIENT_CONTEXT"


def test_at_most_max_sentences_plus_both_sides_of_a_conflict() -> None:
    text = compose("What is the out-of-pocket maximum?", [OOP_A, OOP_B, TABLE], max_sentences=1)
    parts = quoted(text)
    values = {v for sentence, _ in parts for v in ("$6,000", "$6,350") if v in sentence}
    assert values == {"$6,000", "$6,350"}  # the conflict is shown on both sides ...
    for sentence, cited in parts:  # ... each with its own source
        if "$6,000" in sentence and "$6,350" not in sentence:
            assert cited == [OOP_A.chunk_id]
        if "$6,350" in sentence and "$6,000" not in sentence:
            assert cited == [OOP_B.chunk_id]
    assert len(parts) <= 1 + 2


def test_max_sentences_and_relative_floor_limit_the_quote() -> None:
    assert len(quoted(compose("What is the PPO deductible?", [TABLE, PROSE], max_sentences=2))) <= 2
    strict = quoted(compose("How many weeks of parental leave do I get?", [LEAVE, TABLE], relative_floor=0.99))
    assert len(strict) == 1


def test_duplicate_sentences_are_quoted_once() -> None:
    twin = candidate(
        "parental-leave-us-2026_p1_c01",
        LEAVE.content.split("\n", 1)[1],
        policy_id="parental-leave",
        title="Fabrikam Parental Leave Policy 2026",
        heading="Again",
    )
    parts = quoted(compose("How many weeks of parental leave do I get?", [LEAVE, twin]))
    sentences_only = [s for s, _ in parts]
    assert len(sentences_only) == len(set(sentences_only))


def test_quotes_with_abbreviations_survive_validation() -> None:
    gym = candidate(
        "contractor-gym-2026_p1_c00",
        "Contractors may use the on-site gym from 6 a.m. to 9 p.m. on weekdays.",
        policy_id="contractor-gym",
        title="Contractor Gym Policy",
        heading="Hours",
    )
    text = compose("When can contractors use the on-site gym?", [gym])
    assert "6 a.m. to 9 p.m." in text
    result = validate(text, [gym.chunk_id], [gym.source_uri])
    assert result.text == text


@pytest.mark.parametrize(
    ("unit", "shown"),
    [
        (
            "a monthly internet stipend of $50, paid through payroll; and",
            "a monthly internet stipend of $50, paid through payroll.",
        ),
        ("your spouse or domestic partner;", "your spouse or domestic partner."),
        ("Up to $340 per month.", "Up to $340 per month."),
    ],
)
def test_a_list_item_quoted_alone_is_shown_as_a_whole_sentence(unit: str, shown: str) -> None:
    from rag_core.generation.extractive import _cite

    assert _cite(unit, "c") == f"{shown}[^c]"


def test_an_item_of_a_list_is_quoted_as_its_whole_list_once() -> None:
    from rag_core.reading.reader import Reading, ReadSpan
    from rag_core.reading.spans import split_spans

    leave = candidate(
        "leave_p1_c00",
        "Eligibility\nYou are eligible for paid parental leave if all of the following are true:\n"
        "you are a regular employee scheduled at least 20 hours per week;\n"
        "you have completed 90 days of continuous employment; and\n"
        "you are the birth parent, spouse or adoptive parent.\n"
        "Leave is paid at 100% of base pay.",
    )
    hours, tenure, parent, pay = split_spans(leave)
    # Two items read best (in reader order), the pay sentence after them: the list is quoted once,
    # whole, in the document's order; one condition alone would read as if it were enough.
    reading = Reading([ReadSpan(tenure, 6.0), ReadSpan(hours, 5.0), ReadSpan(pay, 4.0)])
    text = ExtractiveGenerator().quote("do i qualify for parental leave yet?", [leave], reading)
    assert text == (
        "You are eligible for paid parental leave if all of the following are true: you are a regular employee "
        "scheduled at least 20 hours per week; you have completed 90 days of continuous employment; and you are "
        "the birth parent, spouse or adoptive parent.[^leave_p1_c00] Leave is paid at 100% of base pay.[^leave_p1_c00]"
    )
    assert validate(text, [leave.chunk_id], [leave.source_uri]).text == text


def test_a_fourth_sentence_is_quoted_when_it_reads_as_well_as_the_best() -> None:
    from rag_core.reading.reader import Reading, ReadSpan
    from rag_core.reading.spans import split_spans

    plus = candidate(
        "plus_p14_c01",
        "The plan offers a maximum out-of-pocket (OOP) limit.\n"
        "The out-of-pocket maximum includes deductibles, copays and coinsurance.\n"
        "Preventive care services are covered at 100%.\n"
        "Northwind Health Plus has an out-of-pocket maximum of $4,000 per year.\n"
        "Premiums do not count toward it.",
    )
    offers, includes, preventive, amount, premiums = split_spans(plus)
    question = "whats the OOP max on Plus?"

    def quoted_with(fourth: float, tie: float | None) -> str:
        reading = Reading(
            [ReadSpan(offers, 6.98), ReadSpan(includes, 6.94), ReadSpan(preventive, 6.86), ReadSpan(amount, fourth)]
            + [ReadSpan(premiums, 1.0)]
        )
        return ExtractiveGenerator(tie=tie).quote(question, [plus], reading)

    # The reader cannot order sentences 0.33 apart: the fourth is quoted too, the fifth never.
    assert "$4,000" in quoted_with(6.65, tie=0.5) and "Premiums" not in quoted_with(6.65, tie=0.5)
    # Further apart than the tie, or with no tie (the mutation: three sentences, as before), it is not.
    assert "$4,000" not in quoted_with(6.40, tie=0.5)
    assert "$4,000" not in quoted_with(6.65, tie=None)


def test_a_fifth_sentence_is_quoted_when_it_too_reads_as_well_as_the_best() -> None:
    """With a glossary definition read too, the $4,000 sentence came fifth, 0.39 under the best: up to
    two tied sentences are quoted beyond the three, a sixth never."""
    from rag_core.reading.reader import TIED_EXTRA, Reading, ReadSpan
    from rag_core.reading.spans import split_spans

    plus = candidate(
        "plus_p14_c01",
        "Out-of-Pocket Maximum: The out-of-pocket maximum is the most a member pays in a plan year.\n"
        "The plan offers a maximum out-of-pocket (OOP) limit.\n"
        "The out-of-pocket maximum includes deductibles, copays and coinsurance.\n"
        "Preventive care services are covered at 100%.\n"
        "Northwind Health Plus has an out-of-pocket maximum of $4,000 per year.\n"
        "Premiums do not count toward it.",
    )
    glossary, offers, includes, preventive, amount, premiums = split_spans(plus)
    reading = Reading(
        [ReadSpan(glossary, 7.04), ReadSpan(offers, 6.98), ReadSpan(includes, 6.94), ReadSpan(preventive, 6.86)]
        + [ReadSpan(amount, 6.65), ReadSpan(premiums, 6.60)]
    )
    assert TIED_EXTRA == 2
    text = ExtractiveGenerator(tie=0.5).quote("whats the OOP max on Plus?", [plus], reading)
    assert "$4,000" in text and "Premiums" not in text  # the fifth is quoted, the sixth is not
    assert "$4,000" not in ExtractiveGenerator(tie=None).quote("whats the OOP max on Plus?", [plus], reading)
