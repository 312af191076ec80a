"""Spans: the sentences and table rows a reader chooses from, with offsets and headings."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag_core.reading.spans import Span, column_statements, row_statement, spans_of, split_spans, whole_list
from rag_core.types import Candidate
from tests.rag_core.candidates import candidate

pytestmark = pytest.mark.unit

BODY = (
    "Paid Time Off (Vacation)\n"
    "Regular full-time employees accrue vacation each pay period. You may use it as soon as it accrues.\n"
    "Years of service: Less than 3 years; Annual vacation: 15 days (120 hours).\n"
    "Floating holidays\n"
    "Regular employees receive 2 floating holidays each calendar year. See p. 4.\n"
    "Ok."
)


def assert_offsets_hold(chunk: Candidate, spans: list[Span]) -> None:
    """Each span's offsets cut its text out of the chunk (what citations and list quoting rely on)."""
    for span in spans:
        assert chunk.content[span.start : span.end] == span.text


def test_sentences_and_rows_with_offsets_and_the_heading_in_effect() -> None:
    chunk = candidate("handbook_p1_c00", BODY, title="Employee Handbook", heading="Time Off")
    spans = split_spans(chunk)
    assert [s.text for s in spans] == [
        "Regular full-time employees accrue vacation each pay period.",
        "You may use it as soon as it accrues.",
        "Years of service: Less than 3 years; Annual vacation: 15 days (120 hours).",
        "Regular employees receive 2 floating holidays each calendar year.",
    ]  # headings are context, "See p. 4." and "Ok." are fragments under three words
    assert [s.heading for s in spans] == ["Paid Time Off (Vacation)"] * 3 + ["Floating holidays"]
    assert_offsets_hold(chunk, spans)
    assert spans[3].in_context() == (
        "Floating holidays: Regular employees receive 2 floating holidays each calendar year."
    )


def test_the_chunk_heading_applies_until_a_new_one_and_the_title_line_is_not_a_statement() -> None:
    chunk = candidate("x_p1_c00", "The plan pays 80% after the deductible.", heading="How the HDHP works")
    (span,) = split_spans(chunk)
    assert span.heading == "How the HDHP works"
    assert span.text == "The plan pays 80% after the deductible."


def test_overlapping_chunks_repeat_a_sentence_once() -> None:
    first = candidate("x_p1_c00", "Coverage ends on the last day of the month.")
    second = candidate("x_p1_c01", "Coverage ends on the last day of the month.\nCOBRA lasts up to 18 months.")
    assert [(s.chunk.chunk_id, s.text) for s in spans_of([first, second])] == [
        ("x_p1_c00", "Coverage ends on the last day of the month."),
        ("x_p1_c01", "COBRA lasts up to 18 months."),
    ]


def test_an_faq_question_is_one_unit_with_the_sentences_that_answer_it() -> None:
    faq = (
        "Frequently Asked Questions\n"
        "Can my manager see that I used the EAP? No. Your manager and HR are not told whether you contacted "
        "the EAP. A manager may suggest the EAP to you. Can I use the stipend for a family member? No. "
        "The stipend reimburses expenses for you only.\n"
        "Is the EAP free? Are sessions limited?\n"
        "Sessions are limited to 8 per issue."
    )
    chunk = candidate("eap_p3_c00", faq)
    spans = split_spans(chunk)
    assert [s.text for s in spans] == [
        "Can my manager see that I used the EAP? No. Your manager and HR are not told whether you contacted the EAP.",
        "A manager may suggest the EAP to you.",
        "Can I use the stipend for a family member? No. The stipend reimburses expenses for you only.",
        "Is the EAP free?",  # a question answered by another question stays alone
        "Are sessions limited?",  # the answer on the next line is not joined: units never cross lines
        "Sessions are limited to 8 per issue.",
    ]
    assert_offsets_hold(chunk, spans)


def test_a_sentence_that_points_back_is_read_and_quoted_with_the_one_it_points_to() -> None:
    # "It is free… at 1-888-555-0119." alone says nothing about the EAP: "whats the EAP phone number?"
    # read it under the gate (Tailspin). Mutation: without the joining, the phone sentence is a unit alone.
    text = (
        "Employee Assistance Program\n"
        "The Tailspin EAP is provided by Steadfast Pathways. It is free, confidential, and available 24 hours "
        "a day at 1-888-555-0119. Its counselors hold master's degrees. They can also refer you to a lawyer. "
        "Tailspin does not receive any information about who uses the EAP. This includes your manager.\n"
        "It is not a substitute for emergency care."
    )
    chunk = candidate("eap_p4_c02", text)
    spans = split_spans(chunk)
    assert [s.text for s in spans] == [
        "The Tailspin EAP is provided by Steadfast Pathways. It is free, confidential, and available 24 hours a day "
        "at 1-888-555-0119. Its counselors hold master's degrees.",
        "They can also refer you to a lawyer.",  # at most two sentences join the one they point back to
        "Tailspin does not receive any information about who uses the EAP. This includes your manager.",
        "It is not a substitute for emergency care.",  # never across lines
    ]
    assert_offsets_hold(chunk, spans)


def test_the_reader_reads_a_table_row_written_out_label_first() -> None:
    row = "Coverage tier: Family; PPO Plan (per paycheck): $212.00; HDHP with HSA (per paycheck): $104.00."
    assert row_statement(row) == (
        "Family (coverage tier): PPO Plan (per paycheck) is $212.00, HDHP with HSA (per paycheck) is $104.00."
    )
    # a sentence with a colon is not a row, and is read as written
    assert row_statement("Elimination period: 180 days (26 weeks), so LTD begins when STD ends.") is None
    chunk = candidate("handbook_p1_c00", BODY, title="Employee Handbook", heading="Time Off")
    row_span, sentence = split_spans(chunk)[2], split_spans(chunk)[3]
    assert row_span.for_reader() == (
        "Paid Time Off (Vacation): Less than 3 years (years of service): Annual vacation is 15 days (120 hours)."
    )
    assert row_span.in_context().startswith("Paid Time Off (Vacation): Years of service: Less than 3 years;")
    assert sentence.for_reader() == sentence.in_context()


DEDUCTIBLE_ROW = (
    "Benefit (in-network): Deductible (individual / family); PPO Plan: $1,250 / $2,500; HDHP with HSA: $1,700 / $3,400."
)


def test_a_row_is_also_read_as_the_cell_of_the_column_the_question_names() -> None:
    assert column_statements(DEDUCTIBLE_ROW, "What's the PPO deductible?") == [
        "PPO Plan deductible (individual / family) (benefit (in-network)): $1,250 / $2,500."
    ]
    assert column_statements(DEDUCTIBLE_ROW, "im on the hdhp, whats my deductible") == [
        "HDHP with HSA deductible (individual / family) (benefit (in-network)): $1,700 / $3,400."
    ]
    # the row must be named too: the PPO cell of the deductible row says nothing about a chiropractor copay
    assert column_statements(DEDUCTIBLE_ROW, "on the PPO, whats the copay for a chiropractor visit") == []
    # "plan" names no one column, a question naming none gets none, and so does a row of one value column
    assert column_statements(DEDUCTIBLE_ROW, "What is the deductible on my plan?") == []
    assert column_statements("Years of service: Less than 3 years; Annual vacation: 15 days.", "vacation?") == []
    assert column_statements("Elimination period: 180 days (26 weeks), so LTD begins when STD ends.", "ltd") == []


def test_the_reader_reads_the_whole_row_and_the_named_cell_under_the_heading() -> None:
    chunk = candidate("medical_p1_c00", DEDUCTIBLE_ROW, title="Medical Plan", heading="Plan Options at a Glance")
    (row,) = split_spans(chunk)
    assert row.reader_texts("What's the PPO deductible?") == [
        row.for_reader(),
        "Plan Options at a Glance: PPO Plan deductible (individual / family) (benefit (in-network)): $1,250 / $2,500.",
    ]
    assert row.reader_texts("What is the deductible?") == [row.for_reader()]


TIER_ROW = "Feature (in-network): Annual deductible (individual / family); Basic: $75 / $225; Enhanced: $50 / $150."


def test_a_span_is_also_read_under_its_title_when_it_lacks_a_title_word_the_question_names() -> None:
    chunk = candidate("dental_p1_c00", TIER_ROW, title="Fabrikam Dental Plan Summary 2026", heading="Tier Comparison")
    (row,) = split_spans(chunk)
    assert row.reader_texts("How much is the dental deductible?") == [row.for_reader()]  # no title words given
    named = replace(row, title_words=frozenset({"dental"}))
    assert named.reader_texts("How much is the dental deductible?") == [
        row.for_reader(),
        f"Fabrikam Dental Plan Summary 2026: {row.for_reader()}",
    ]
    # a span that already says the named word is read as it is
    says_it = replace(split_spans(candidate("dental_p1_c01", "Dental cleanings are covered twice a year."))[0],
                      title_words=frozenset({"dental"}))  # fmt: skip
    assert says_it.reader_texts("dental cleanings?") == [says_it.for_reader()]


LIST_BODY = (
    "Remote employees\n"
    "Remote employees work from home. Fabrikam provides remote employees with:\n"
    "a laptop, monitor, keyboard and headset;\n"
    "a one-time setup reimbursement of up to $500; and\n"
    "a monthly internet stipend of $50, paid through payroll.\n"
    "Remote employees travel to an office when their manager asks."
)


def test_each_item_of_a_list_is_read_with_its_lead_in_and_the_lead_in_is_not_a_unit_alone() -> None:
    spans = split_spans(candidate("handbook_p1_c30", LIST_BODY))
    assert [s.text for s in spans] == [
        "Remote employees work from home.",
        "Fabrikam provides remote employees with: a laptop, monitor, keyboard and headset;",
        "Fabrikam provides remote employees with: a one-time setup reimbursement of up to $500; and",
        "Fabrikam provides remote employees with: a monthly internet stipend of $50, paid through payroll.",
        "Remote employees travel to an office when their manager asks.",
    ]  # the last line does not run on from "…payroll." and has no marker: prose again


def test_bullets_keep_their_lead_in_and_only_an_items_first_sentence_takes_it() -> None:
    body = (
        "Foot Care\n"
        "Exceptions Our plan does not cover:\n"
        "• Routine foot care, such as trimming toenails • Orthotic shoe inserts These are never covered. Ask first.\n"
        "• Foot surgery for cosmetic reasons\n"
        "Call member services with questions about foot care."
    )
    texts = [s.text for s in split_spans(candidate("plan_p28_c00", body))]
    assert texts == [
        "Exceptions Our plan does not cover: • Routine foot care, such as trimming toenails • Orthotic shoe inserts "
        "These are never covered.",
        "Exceptions Our plan does not cover: • Foot surgery for cosmetic reasons",
        "Call member services with questions about foot care.",
    ]  # "Ask first." is a fragment; the item's second sentence is prose, read alone


def test_a_lead_in_keeps_its_offsets_from_its_own_start_and_a_heading_ends_the_list() -> None:
    body = "Criteria\nYou must meet the following criteria:\nOut-of-area care\n• You must be away for at most 12 months"
    chunk = candidate("plan_p59_c00", body)
    spans = split_spans(chunk)
    # A heading between them: the lead-in stays a sentence of its own, the bullet reads alone.
    assert [s.text for s in spans] == [
        "You must meet the following criteria:",
        "• You must be away for at most 12 months",
    ]
    criteria = "Criteria\nYou must meet the following criteria:\n• Away a year at most"
    led = split_spans(candidate("plan_p59_c01", criteria))
    (span,) = led
    assert span.text == "You must meet the following criteria: • Away a year at most"
    assert span.start == led[0].chunk.content.index("You must") and span.end == len(led[0].chunk.content)


def test_a_line_that_is_a_list_itself_leads_nothing_in() -> None:
    # The role library glues the next list's label to the end of the last bullet of the one before.
    body = (
        "Vice President of Sales\n"
        "RESPONSIBILITIES: • Develop sales strategies • Review sales reports, forecasts and budgets QUALIFICATIONS:\n"
        "• Bachelor's degree in business • At least 10 years of sales experience in a management role"
    )
    assert [s.text for s in split_spans(candidate("roles_p7_c00", body))] == [
        "RESPONSIBILITIES: • Develop sales strategies • Review sales reports, forecasts and budgets QUALIFICATIONS:",
        "• Bachelor's degree in business • At least 10 years of sales experience in a management role",
    ]


OFFERINGS = (
    "Offering periods\n"
    "There are two 6-month offering periods each year: – January offering: January 1 through June 30, 2026. "
    "Purchase date: June 30, 2026. Enrollment deadline: December 15, 2025. – July offering: July 1 through "
    "December 31, 2026. Purchase date: December 31, 2026. Enrollment deadline: June 15, 2026. Enroll before "
    "the enrollment deadline."
)


def test_a_list_item_of_labelled_facts_is_a_record_each_fact_said_with_its_name() -> None:
    chunk = candidate("retirement_p4_c02", OFFERINGS)
    spans = split_spans(chunk)
    january = "January offering: January 1 through June 30, 2026."
    july = "July offering: July 1 through December 31, 2026."
    assert [s.text for s in spans] == [
        january,
        f"{january} Purchase date: June 30, 2026.",
        f"{january} Enrollment deadline: December 15, 2025.",
        july,
        f"{july} Purchase date: December 31, 2026.",
        f"{july} Enrollment deadline: June 15, 2026.",
        "Enroll before the enrollment deadline.",  # prose after the list is not part of the last record
    ]  # the lead-in ("…each year:") answers nothing alone; no fact runs into the next item's name
    assert [s.lead for s in spans] == ["", january, january, "", july, july, ""]
    deadline = spans[5]
    assert chunk.content[deadline.start : deadline.end].startswith(july)
    assert chunk.content[deadline.start : deadline.end].endswith("June 15, 2026.")
    # Quoted as the whole record, in the document's order.
    assert whole_list(deadline) == f"{july} Purchase date: December 31, 2026. Enrollment deadline: June 15, 2026."


def test_an_item_of_prose_is_no_record_and_its_sentences_stay_as_they_were() -> None:
    body = (
        "Health Care FSA\n"
        "– Carryover: up to $680 of unused funds carries over into 2027. Amounts above $680 are forfeited. "
        "– Claims deadline: submit 2026 claims by March 31, 2027."
    )
    assert [s.text for s in split_spans(candidate("fsa_p2_c00", body))] == [
        "– Carryover: up to $680 of unused funds carries over into 2027.",
        "Amounts above $680 are forfeited. – Claims deadline: submit 2026 claims by March 31, 2027.",
    ]  # one labelled fact per item: read as before (splitting every item was measured worse, session 31)


def test_a_last_line_written_as_a_title_is_the_next_sections_heading_not_a_statement() -> None:
    titled = candidate("perks_p1_c00", "Covered\nPerksPlus covers gym fees.\nPerksPlus Wellness Program for Employees")
    assert [s.text for s in split_spans(titled)] == ["PerksPlus covers gym fees."]
    shouting = candidate("plan_p90_c01", "Claims\nFile claims within 90 days.\nOTHER INFORMATION ABOUT THIS PLAN")
    assert [s.text for s in split_spans(shouting)] == ["File claims within 90 days."]
    # a last line the chunk cut mid-sentence stays a unit (it is not written as a title)
    cut = candidate("plan_p2_c00", "Claims\nFile claims within 90 days.\nLate claims may still be reviewed by the plan")
    assert [s.text for s in split_spans(cut)][-1] == "Late claims may still be reviewed by the plan"


@pytest.mark.parametrize(
    ("heading", "line", "first"),
    [
        (
            "Copayments (Copays)",
            "IMPORTANT PLAN INFORMATION: Copayments (Copays) When using Northwind Health Plus, you may be "
            "responsible for a copayment (or copay) for certain services.",
            "When using Northwind Health Plus, you may be responsible for a copayment (or copay) for certain services.",
        ),
        (
            "Acupuncture",
            "COVERED SERVICES: Acupuncture Acupuncture is an ancient form of healing.",
            "Acupuncture is an ancient form of healing.",
        ),
        (
            "EXCLUSIONS",
            "EXCLUSIONS Although the plan is broad, it does not cover everything.",
            "Although the plan is broad, it does not cover everything.",
        ),
        (
            "In-Network Providers",
            "In-Network Providers When choosing a provider, check the directory.",
            "When choosing a provider, check the directory.",
        ),
        # The heading goes on as a title, or too little would be left: the line is read as it is.
        (
            "Substance Use Disorder",
            "Substance Use Disorder Coverage At Contoso, we are proud to help.",
            "Substance Use Disorder Coverage At Contoso, we are proud to help.",
        ),
        (
            "Non-Participating",
            "Non-Participating Providers and How They Affect Your Costs When you choose.",
            "Non-Participating Providers and How They Affect Your Costs When you choose.",
        ),
        ("Welcome to Fabrikam", "Welcome to Fabrikam Corp. We are glad you are here.", "Welcome to Fabrikam Corp."),
    ],
)
def test_a_heading_restated_at_the_start_of_its_sections_first_line_is_not_read_as_part_of_it(
    heading: str, line: str, first: str
) -> None:
    chunk = candidate("plan_p11_c00", line, heading=heading)
    span = split_spans(chunk)[0]
    assert span.text == first
    assert chunk.content[span.start : span.end] == span.text
    assert span.heading == heading


def test_the_cut_off_end_of_a_row_the_context_holds_whole_is_not_read_again() -> None:
    # The chunker's 40-token overlap opened the next chunk inside the dependent care FSA's row: read
    # without its label, the row's end read as any account's limit (benchmarks/README.md "Session 31").
    row = "Account: Dependent care FSA; 2026 annual limit: $7,500 per household; Minimum election: $120."
    first = candidate("perks_p1_c00", f"Account: Health care FSA; 2026 annual limit: $3,400 per employee.\n{row}")
    tail = ": $7,500 per household; Minimum election: $120."
    second = candidate("perks_p1_c01", f"{tail}\nBoth accounts carry over $680.")
    assert [s.text for s in spans_of([second, first])] == [
        "Both accounts carry over $680.",
        "Account: Health care FSA; 2026 annual limit: $3,400 per employee.",
        row,
    ]
    # Alone, it is all the context says, and it is read.
    assert [s.text for s in spans_of([second])][0] == tail
    # Another document's sentence with the same end is not a cut-off end of this one.
    other = candidate("other_p1_c00", "Minimum election: $120.\nThe grace period ends March 15.")
    assert "Minimum election: $120." in [s.text for s in spans_of([other, first])]
