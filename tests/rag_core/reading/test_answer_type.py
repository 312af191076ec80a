"""The answer-type check: a question that asks for a quantity needs a shown sentence that states one,
and the gate counts only sentences that themselves read as an answer."""

from __future__ import annotations

import pytest

from rag_core.pipeline.read import AnswerTypeGate
from rag_core.pipeline.state import QueryState
from rag_core.reading.answer_type import (
    asked_years,
    asks_another_maximum,
    asks_quantity,
    lacks_asked_contact,
    lacks_asked_kind,
    lacks_asked_quantity,
    names_another_purpose,
    names_another_year,
    states_count_limit,
)
from rag_core.reading.reader import Reading, ReadSpan
from rag_core.reading.spans import Span
from rag_core.settings import DEFAULT_READER_MIN_SCORE
from tests.rag_core.candidates import candidate

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "question",
    [
        "How many days of bereavement leave do I get?",
        "What is the monthly account fee Woodgrove charges after I leave?",
        "whats the OOP max on the PPO",
        "What are the typical copayments for specialist visits?",
        "Within how many days must an investigation be completed?",
        "how often can i get new glasses",
        "at what age does my kid come off my plan",
        "what's the $ amount",
        "What monthly account fee does Woodgrove charge?",
        "What per-mile rate does Fabrikam reimburse?",
        "Does Fabrikam offer a legal plan, and what is its monthly cost?",
        "What is the per-paycheck premium for long-term care insurance?",
        "In which month are performance reviews conducted?",
    ],
)
def test_questions_that_ask_for_a_quantity(question: str) -> None:
    assert asks_quantity(question)


@pytest.mark.parametrize(
    "question",
    [
        "What is the process for ensuring cost-effective care under the Northwind Standard plan?",
        "Who is the new pharmacy benefit manager?",
        "Does the plan cover hearing aids?",
        "What is the name of the EAP provider?",
        "What is the claims process for out-of-network care?",
        "What does the deductible apply to?",
    ],
)
def test_questions_that_ask_for_something_else(question: str) -> None:
    assert not asks_quantity(question)


def test_an_asked_quantity_must_be_stated() -> None:
    question = "What is the daily copayment for a skilled nursing facility?"
    assert lacks_asked_quantity(question, ["Copays vary depending on the type of service you receive."])
    assert not lacks_asked_quantity(question, ["Copays vary.", "Skilled nursing: $150 per day."])
    # counted in words, or free
    assert not lacks_asked_quantity("How many sessions do I get?", ["You get eight sessions per issue."])
    assert not lacks_asked_quantity("How much does counseling cost?", ["EAP sessions are free to you."])
    # "free" states an amount, never a date or a count
    assert lacks_asked_quantity("when r the flu clinics, what date?", ["Free flu shots at on-site clinics each fall."])
    assert not lacks_asked_quantity("how long is it free for?", ["Sessions are free for 12 months."])
    assert not lacks_asked_quantity("how many days do i pay nothing, is it free?", ["It is free."])


def test_a_frequency_word_answers_how_often_only() -> None:
    assert not lacks_asked_quantity("How often are performance reviews held?", ["Reviews are held annually."])
    # "monthly" only echoes the question: it states no fee
    assert lacks_asked_quantity(
        "What is the monthly account fee after I leave?", ["A monthly account fee may apply after you leave."]
    )


def test_a_question_that_asks_no_quantity_is_never_stopped() -> None:
    assert not lacks_asked_quantity("Who is the new pharmacy benefit manager?", ["Proseware Pharmacy Services."])


def test_a_named_kind_of_amount_must_be_named() -> None:
    # The coverage row states figures, but not the premium asked for.
    row = "Coverage: Spouse or Domestic Partner Life: Benefit: $10,000 increments up to $250,000; Who pays: Employee."
    assert lacks_asked_kind("What is the monthly premium per $10,000 of spouse life coverage?", [row])
    assert not lacks_asked_kind("what's the premium per paycheck?", ["Monthly premiums: $12 per $10,000."])
    # what plan summaries call their premium tables
    contributions = "Employee Contributions: Coverage tier: Employee only; Per paycheck (26 per year): $3.10."
    assert not lacks_asked_kind("whats the vision premium if its just me?", [contributions])
    assert lacks_asked_kind("whats my copay for a specialist?", ["Specialist visit: 20% after the deductible."])
    assert not lacks_asked_kind("whats my copay for a specialist?", ["Copay - specialist visit; PPO Plan: $50"])
    assert not lacks_asked_kind("What copayment applies at the ER?", ["Emergency room: $250 co-pay."])
    # a drug tier's flat dollar amount is its copay, named or not (session 33: Tailspin's drug table)
    tier = "Drug tier: Tier 2: Preferred brand; Keystone: 30-day retail: $40; Keystone: 90-day mail: $100."
    assert not lacks_asked_kind("What is the copay for a 90-day mail-order supply of a Tier 2 drug?", [tier])
    assert lacks_asked_kind("whats the copay for a tier 2 drug?", ["Tier 2 drugs need prior authorization."])
    # a kind the asked amount is added to is not asked for (session 33: the COBRA fee "on top of the premium")
    cobra = "…by paying the full cost of coverage plus a 2% administrative fee."
    assert not lacks_asked_kind("and what administrative fee is added to the premium?", [cobra])
    assert not lacks_asked_kind("how long is cobra and is there some extra fee on top of the premium?", [cobra])
    assert lacks_asked_kind("what is the cobra premium per month?", [cobra])
    # several kinds named: one of them named back is enough ("…and does it count toward the deductible?")
    assert not lacks_asked_kind("how much is the ER copay, before the deductible?", ["The deductible is $1,250."])


def test_a_named_kind_only_matters_when_a_quantity_is_asked() -> None:
    assert not lacks_asked_kind("Do copays count toward the deductible?", ["Copays do not count toward it."])
    assert not lacks_asked_kind("How much is the monthly fee?", ["A fee of $3 applies."])  # no kind named


@pytest.mark.parametrize(
    "question",
    [
        "What is the annual benefit maximum for dental services under Northwind Health Plus?",
        "whats the yearly $ cap on spinal manipulation on plus?",
        "What is the annual allowance for contact lenses?",
        "What is the maximum dollar amount Northwind Standard will pay for an ambulance?",
    ],
)
def test_a_maximum_the_plan_pays_is_another_maximum(question: str) -> None:
    assert asks_another_maximum(question)


@pytest.mark.parametrize(
    "question",
    [
        "What is the out-of-pocket maximum on the PPO?",
        "whats the OOP max on plus?",
        "whats the max i could end up paying this year on the hdhp?",
        "is there a cap on what we spend in a year?",
        "worst case, what's the most it costs?",
        "besides the $150 allowance is there a separate charge for the fitting exam?",
        "What is the deductible on the PPO?",
        # A prescription's cost share per fill, and what a member pays (session 33: t24-55).
        "im on trailhead and my specialty med is expensive af. is there a cap per fill?",
        "Under the Trailhead HSA Plan, what is the maximum a member pays per fill for a Tier 4 specialty drug?",
        "what's the most you pay for a specialty drug in a month?",
    ],
)
def test_the_members_own_maximum_is_not_another_maximum(question: str) -> None:
    assert not asks_another_maximum(question)


@pytest.mark.parametrize(
    ("text", "states"),
    [
        ("Benefit: Chiropractic care (limit 20 visits per year); Keystone Copay Plan: $35 copay", True),
        ("Acupuncture is covered up to 12 visits per year with a $30 copay.", True),
        ("the $150 frames allowance and the $20 materials copay for lenses apply", False),  # money, not a count
        ("Northwind Health Plus has an out-of-pocket maximum of $4,000 per year.", False),
        ("30% after deductible, up to $350 per fill", False),
    ],
)
def test_a_limit_stated_as_a_count(text: str, states: bool) -> None:
    assert states_count_limit(text) is states


def test_an_answer_about_another_year_does_not_answer() -> None:
    question = "when is open enrollment for the 2027 plan yr?"
    this_year = ("Open enrollment for the 2026 plan year ran from November 3 through November 21, 2025.", "")
    assert names_another_year(question, [this_year])
    assert not names_another_year(question, [("Open enrollment for the 2027 plan year runs in November 2026.", "")])
    # a standing rule names no year: it still answers, unless shown beside another year's facts
    assert not names_another_year(question, [("Open enrollment runs each November.", "Employee Handbook")])
    assert names_another_year(question, [("Open enrollment runs each November.", ""), this_year])
    assert not names_another_year("when is open enrollment?", [this_year])  # no year asked
    # an amount is no year
    assert not names_another_year("is the 2026 deductible $2,000?", [("The deductible is $2,000 in 2026.", "")])
    assert not names_another_year("is $2030 the max?", [("The maximum is $2,030 for 2026.", "")])
    assert asked_years("at the end of 2026, how much is 20,260 or $2,027?") == {"2026"}


def test_a_year_of_the_employees_own_history_is_not_asked_about() -> None:
    assert asked_years("i was hired in march 2024, how much vacation do i get now?") == set()
    assert asked_years("been here since 2022 lol. do i get 20 days in 2026?") == {"2026"}
    assert asked_years("started in 2023 - what's the 2026 401k match?") == {"2026"}
    tenure = ("Years of service: 3 to 5 years; Annual vacation: 20 days.", "Fabrikam Corp Employee Handbook 2026")
    assert not names_another_year("i started at fabrikam in 2023, how many vacation days do i get?", [tenure])


def test_a_sentence_without_a_year_speaks_for_its_documents_year() -> None:
    row = ("Benefit (in-network): Copay - specialist visit; PPO Plan: $50", "Fabrikam Medical Plan Summary 2026")
    assert names_another_year("What was the specialist copay in the 2025 plan year?", [row])
    assert not names_another_year("What is the specialist copay for 2026?", [row])
    # its own year counts first
    dated = ("The 2025 specialist copay was $45.", "Fabrikam Medical Plan Summary 2026")
    assert not names_another_year("What was the specialist copay in the 2025 plan year?", [dated])
    assert names_another_year("What is the 2026 HSA limit?", [("The 2025 IRS limit was $4,300.", "Guide 2026")])
    # a later year in this year's summary carries this year's money forward: it speaks for both
    carryover = ("Carryover: up to $680 of unused funds carries over into 2027.", "Commuter, FSA and HSA Guide 2026")
    assert not names_another_year("leftover health fsa $$ at the end of 2026, how much carries over?", [carryover])
    assert not names_another_year("how much carries over into 2027?", [carryover])


# -- the gate: the figure must come from a sentence that itself reads as an answer ---------------------
FEE_MENTIONED = "You may keep the account at Woodgrove Bank (a monthly account fee may apply)."
UNRELATED_FIGURE = (
    "Account: HSA - self-only coverage; 2026 IRS limit: $4,400 per year; Fabrikam contribution: $750 per year."
)


def reading_of(*sentences: tuple[str, float]) -> Reading:
    chunk = candidate("commuter-fsa-hsa-2026_p3_c00", " ".join(text for text, _ in sentences))
    spans = [Span(text, chunk, 0, len(text), "Frequently Asked Questions") for text, _ in sentences]
    return Reading([ReadSpan(span, score) for span, (_, score) in zip(spans, sentences, strict=True)])


async def gated(reading: Reading, question: str = "how much is the monthly account fee after i leave?") -> str | None:
    state = QueryState(question, "token")
    state.reading = reading
    await AnswerTypeGate(DEFAULT_READER_MIN_SCORE).run(state)
    return state.decided_by


async def test_a_figure_only_a_weakly_read_neighbour_states_does_not_answer() -> None:
    # Both sentences are shown (within the reader's 5-logit margin), but only the one that mentions the
    # fee reads as an answer, and it states no amount: the documents do not give the fee.
    assert await gated(reading_of((FEE_MENTIONED, 3.4), (UNRELATED_FIGURE, 0.9))) == "answer_type"


async def test_a_figure_in_a_sentence_that_reads_as_an_answer_goes_through() -> None:
    # The mutation "count every shown sentence" passes the test above; this one pins that a figure
    # read above the cutoff, even below the best sentence, still answers (a rule sentence, then its row).
    assert await gated(reading_of((FEE_MENTIONED, 6.4), (UNRELATED_FIGURE, DEFAULT_READER_MIN_SCORE))) is None
    assert await gated(reading_of((FEE_MENTIONED, 3.4)), "does the account stay open?") is None


async def test_the_heading_can_name_the_kind() -> None:
    chunk = candidate("medical-plan-2026_p1_c00", "Employee only: $45.")
    span = Span("Employee only: $45.", chunk, 0, 19, "Monthly premiums")
    question = "what's the premium for employee only coverage?"
    assert await gated(Reading([ReadSpan(span, 6.0)]), question) is None
    bare = Span("Employee only: $45.", chunk, 0, 19, "")
    assert await gated(Reading([ReadSpan(bare, 6.0)]), question) == "answer_type"


@pytest.mark.parametrize(
    ("question", "sentence", "lacks"),
    [
        ("What is Proseware's fax number?", "Ask your doctor to submit a renewal to Proseware.", True),
        (
            "whats the phone # for woodgrove",
            "Woodgrove Benefits Solutions: 1-800-555-0160, weekdays.",
            False,
        ),
        ("what number do i call for the EAP?", "Call Lamna Wellbeing at 1-800-555-0199.", False),
        ("What email address should I use?", "Email the Compliance Officer at compliance@contoso.com.", False),
        ("What email address should I use?", "Call the Compliance Hotline at 1-800-555-1212.", True),
        # either, when both are asked
        ("whats the phone number or email for safety?", "Call 555-1212 any time.", False),
        # a fax number alone: only a number given as a fax answers
        ("What fax number should I send it to?", "Contact the Leave Center at 1-800-555-0142.", True),
        ("wanna fax my appeal in today — fax # pls?", "By fax: 123-456-7890 -By phone: 1-800-123-4567", False),
        ("whats the fax number?", "Send forms to 555-0188 (fax) or by mail.", False),
        ("whats the phone or fax number for HR?", "Call HR at 1-800-555-0100.", False),
        # not a contact question
        ("How many days do I have to enroll?", "You have 30 days.", False),
        ("Is tier #2 covered?", "Tier 2 drugs are covered.", False),
    ],
)
def test_an_asked_contact_must_be_given(question: str, sentence: str, lacks: bool) -> None:
    assert lacks_asked_contact(question, [sentence]) is lacks


# -- a salary range needs a salary in dollars ---------------------------------------------------------
POSTING = (
    "Job Title: Sales Representative Company: Contoso Electronics Objective: The Sales Representative will "
    "be responsible for driving sales of Contoso Electronics products and services."
)


@pytest.mark.parametrize(
    ("question", "sentence", "stops"),
    [
        ("What is the salary range for the Sales Representative position?", POSTING, True),
        ("whats the salary band for the sales rep role?", "Salary: Competitive, commensurate with experience.", True),
        ("What is the pay range for a sales representative?", "Salary: $55,000 to $70,000 per year.", False),
        # A salary named, not its range asked: not this rule's question.
        ("How much of my base salary can I defer?", "You may defer up to 50% of base salary.", False),
    ],
)
async def test_a_salary_range_is_answered_only_with_pay_in_dollars(question: str, sentence: str, stops: bool) -> None:
    chunk = candidate("role-library_p30_c00", sentence)
    span = Span(sentence, chunk, 0, len(sentence), "Sales Representative")
    assert (await gated(Reading([ReadSpan(span, 5.4)]), question) == "answer_type") is stops


# -- a benefit named for a purpose answers only about that purpose -------------------------------------
INTERNET = "Fabrikam provides remote employees with: a monthly internet stipend of $50, paid through payroll."


@pytest.mark.parametrize(
    ("question", "sentence", "another"),
    [
        ("is there a monthly phone stipend?", INTERNET, True),
        ("does fabrikam give a cell phone stipend on top of the internet one?", INTERNET, True),
        ("can i get a coworking stipend?", INTERNET, True),
        ("How much is the monthly internet stipend?", INTERNET, False),
        # The asked purpose is named (its plural too): the sentence is about it.
        ("is there a phone stipend?", "Employees who use personal phones receive a $45 phone stipend.", False),
        ("is there a phone stipend?", "Phones: a monthly stipend of $45 is paid.", False),
        # A purpose named one word earlier is asked too.
        ("How much is the bicycle commuter reimbursement?", "The bicycle reimbursement is $20 a month.", False),
        # Insurance is named for what it insures; what it is like, or whose, is no purpose.
        ("Does Tailspin offer pet insurance?", "Benefits include life insurance and AD&D insurance.", True),
        ("does tailspin offer long term care insurance?", "Benefits include life insurance.", True),
        ("im on my wifes insurance, do i get anything if i waive?", "An opt-out credit of $35.00 is paid.", False),
        ("my husbands job has great insurance, do i get paid to waive?", "An opt-out credit of $35 is paid.", False),
        # A plural or a hyphenated compound names the asked purpose too.
        ("whats the frame allowance?", "Benefit: Frames; in-network: $150 allowance; contact lens allowance", False),
        ("how much is my opt out credit", "An opt-out credit of $35.00 per paycheck is paid.", False),
        # No other purpose named: not this rule's to judge.
        ("is there a phone stipend?", "Remote employees receive a stipend of $50 a month.", False),
        # How often or how much is no purpose.
        ("whats the annual stipend?", INTERNET, False),
        ("do part timers get the wellness stipend?", "What stipend do I receive? Employees receive $300.", False),
        ("does the wellness stipend cover a climbing gym membership?", "Gym or climbing gym memberships.", False),
        # Only purpose-named kinds: "medical coverage" and "COBRA coverage" are one thing.
        ("how long can i keep my medical coverage?", "COBRA coverage lasts up to 18 months.", False),
    ],
)
def test_a_benefit_named_for_another_purpose_does_not_answer(question: str, sentence: str, another: bool) -> None:
    assert names_another_purpose(question, [sentence]) is another
