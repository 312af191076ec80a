"""Claim support, measured through the OpenAI path: a local fake OpenAI server plays a model that
writes deliberately wrong answers (wrong amounts, swapped plans, invented coverage, a citation of
an unrelated chunk in the prompt) and correct ones, over the real fixture index. Every generation
cites a chunk that *was* in the prompt, so the citation validator alone would keep them all: what
stops the wrong ones is the claim-support stage.

Targets (issue 9): unsupported claims shown = 0; correct answers kept >= 0.95. The figures are
printed (``-s``) and recorded in the trust report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from rag_core.generation.openai_generator import OpenAIGenerator
from rag_core.pipeline.validate import ClaimSupportStage
from tests.fakes.openai_server import FakeOpenAI
from tests.rag_core.conftest import FixtureCorpus, token

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class Case:
    kind: str  # wrong-amount | swapped-plan | invented | unrelated-chunk | correct
    question: str
    needle: str  # the cited chunk contains this (for unrelated-chunk: a chunk that does NOT)
    sentence: str  # the generated sentence, "{c}" is the cited chunk id
    state: str | None = None


DENTAL = "How much is the dental deductible?"
PPO = "What is the PPO deductible?"
VISIT = "How much is a specialist visit copay?"
LEAVE = "How many weeks of paid parental leave do I get?"
BIKE = "How much is the bicycle commuter reimbursement for bike maintenance?"
VENDOR = "Who is the new pharmacy benefit manager?"

CASES = [
    # wrong amounts
    Case("wrong-amount", DENTAL, "$50", "The dental deductible is $75 per person.[^{c}]"),
    Case("wrong-amount", DENTAL, "$50", "Fillings are covered at 90% after the dental deductible.[^{c}]"),
    Case("wrong-amount", DENTAL, "$50", "The dental plan covers three cleanings per year at no cost.[^{c}]"),
    Case("wrong-amount", PPO, "$1,250", "The annual PPO deductible is $1,500 per person.[^{c}]"),
    Case("wrong-amount", PPO, "$1,250", "After the deductible, the PPO plan pays 100% of in-network costs.[^{c}]"),
    Case("wrong-amount", VISIT, "$50 copay", "A specialist office visit costs a $40 copay.[^{c}]"),
    Case("wrong-amount", VISIT, "$25 copay", "A primary care office visit costs a $15 copay.[^{c}]"),
    Case("wrong-amount", LEAVE, "12 weeks", "Eligible employees receive 16 weeks of paid parental leave.[^{c}]"),
    Case("wrong-amount", VISIT, "in full", "Preventive care visits cost a $10 copay.[^{c}]"),
    Case(
        "wrong-amount",
        LEAVE,
        "16 weeks",
        "Employees who work in California receive 18 weeks of paid leave.[^{c}]",
        "CA",
    ),
    Case("wrong-amount", BIKE, "$20", "Bike commuters are reimbursed up to $50 per month for maintenance.[^{c}]"),
    Case("wrong-amount", LEAVE, "12 months", "Parental leave must be taken within 6 months of the birth.[^{c}]"),
    # swapped plans / places / years
    Case("swapped-plan", PPO, "$1,250", "The annual deductible for the HDHP is $1,250 per person.[^{c}]"),
    Case("swapped-plan", PPO, "$1,250", "The HMO plan pays 80% of covered in-network costs.[^{c}]"),
    Case(
        "swapped-plan", LEAVE, "16 weeks", "Employees who work in New York receive 16 weeks of paid leave.[^{c}]", "CA"
    ),
    Case("swapped-plan", LEAVE, "12 weeks", "Employees in California receive 12 weeks of paid parental leave.[^{c}]"),
    Case("swapped-plan", DENTAL, "$50", "The Delta Dental plan covers two cleanings per year at no cost.[^{c}]"),
    Case("swapped-plan", VENDOR, "Northwind Pharmacy", "The pharmacy benefit manager changes to Proseware Rx.[^{c}]"),
    Case("swapped-plan", PPO, "$1,250", "The deductible is $1,250 per person for the 2027 plan year.[^{c}]"),
    # invented coverage
    Case("invented", DENTAL, "$50", "The dental plan covers orthodontia for children at no cost.[^{c}]"),
    Case("invented", DENTAL, "$50", "Dental implants are covered at 80% after the deductible.[^{c}]"),
    Case("invented", PPO, "$1,250", "The PPO plan also covers acupuncture and chiropractic care.[^{c}]"),
    Case("invented", VISIT, "$50 copay", "Telehealth visits are free with no copay.[^{c}]"),
    Case("invented", LEAVE, "12 weeks", "Parental leave includes a relocation stipend for adoptive parents.[^{c}]"),
    Case("invented", BIKE, "$20", "Employees who bike to work also receive a free helmet and locker.[^{c}]"),
    Case("invented", DENTAL, "$50", "The dental plan covers teeth whitening once a year.[^{c}]"),
    Case("invented", VENDOR, "Northwind Pharmacy", "Northwind Pharmacy Services waives all generic drug copays.[^{c}]"),
    Case("invented", PPO, "$1,250", "The PPO plan covers out-of-network care worldwide.[^{c}]"),
    # a citation of an unrelated chunk that was in the prompt
    Case("unrelated-chunk", DENTAL, "$50 per person", "Fillings are covered at 80% after the deductible.[^{c}]"),
    Case("unrelated-chunk", PPO, "$1,250", "The annual deductible for the PPO is $1,250 per person.[^{c}]"),
    Case("unrelated-chunk", VISIT, "$50 copay", "A specialist office visit costs a $50 copay.[^{c}]"),
    Case("unrelated-chunk", LEAVE, "12 weeks", "Eligible employees receive 12 weeks of paid parental leave.[^{c}]"),
    Case("unrelated-chunk", BIKE, "$20", "Bike commuters are reimbursed up to $20 per month.[^{c}]"),
    # correct answers: quotes and close paraphrases
    Case("correct", DENTAL, "$50", "Fillings are covered at 80% after the dental deductible of $50 per person.[^{c}]"),
    Case("correct", DENTAL, "$50", "The dental deductible is $50 per person.[^{c}]"),
    Case("correct", DENTAL, "$50", "The dental plan covers two cleanings per year at no cost.[^{c}]"),
    Case("correct", DENTAL, "$50", "You get 2 cleanings a year at no cost.[^{c}]"),
    Case(
        "correct", PPO, "$1,250", "The annual deductible for the Fabrikam PPO medical plan is $1,250 per person.[^{c}]"
    ),
    Case("correct", PPO, "$1,250", "The PPO deductible is $1,250 per person for 2026.[^{c}]"),
    Case(
        "correct",
        PPO,
        "$1,250",
        "After you meet the deductible, the PPO plan pays 80% of covered in-network costs.[^{c}]",
    ),
    Case("correct", VISIT, "$50 copay", "A specialist office visit costs a $50 copay.[^{c}]"),
    Case(
        "correct", VISIT, "$50 copay", "Specialist visits have a $50 copay, and primary care visits a $25 copay.[^{c}]"
    ),
    Case(
        "correct",
        LEAVE,
        "12 weeks",
        "Eligible employees receive 12 weeks of paid parental leave at 100% of base pay.[^{c}]",
    ),
    Case("correct", LEAVE, "12 weeks", "You get 12 weeks of paid parental leave.[^{c}]"),
    Case(
        "correct", LEAVE, "12 months", "Parental leave must be taken within 12 months of the birth or placement.[^{c}]"
    ),
    Case(
        "correct",
        LEAVE,
        "16 weeks",
        "Eligible employees who work in California receive 16 weeks of paid parental leave.[^{c}]",
        "CA",
    ),
    Case(
        "correct",
        BIKE,
        "expense portal",
        "Submit bicycle commuter reimbursement claims through the expense portal.[^{c}]",
    ),
    Case("correct", VISIT, "in full", "Preventive care visits are covered in full.[^{c}]"),
    Case("correct", VISIT, "$25 copay", "A primary care office visit costs a $25 copay.[^{c}]"),
    Case(
        "correct",
        BIKE,
        "$20",
        "Employees who bike to work are reimbursed up to $20 per month for bicycle maintenance.[^{c}]",
    ),
    Case("correct", BIKE, "$20", "Bike commuters get up to $20 a month for bicycle maintenance.[^{c}]"),
    Case(
        "correct",
        VENDOR,
        "Northwind Pharmacy",
        "The new pharmacy benefit manager is Northwind Pharmacy Services.[^{c}]",
    ),
    Case(
        "correct", VENDOR, "Northwind Pharmacy", "New pharmacy benefit manager ID cards are mailed in December.[^{c}]"
    ),
]


def _excerpts(body: dict[str, Any]) -> list[tuple[str, str]]:
    user = body["messages"][-1]["content"]
    return re.findall(r"<<<EXCERPT chunk_id=(\S+) [^\n]*\n(.*?)(?=\n?<<<|\Z)", user, re.DOTALL)


def _generation(case: Case, body: dict[str, Any]) -> str:
    excerpts = _excerpts(body)
    if case.kind == "unrelated-chunk":
        chunk = next(cid for cid, text in reversed(excerpts) if case.needle not in text)
    else:
        chunk = next(cid for cid, text in excerpts if case.needle in text)
    return case.sentence.format(c=chunk)


def _claim(case: Case) -> str:
    return case.sentence.split("[^", 1)[0].rstrip(".")


async def test_unsupported_claims_are_never_shown(fixture_corpus: FixtureCorpus, fake_openai: FakeOpenAI) -> None:
    generator = OpenAIGenerator(api_key="sk-test", base_url=fake_openai.base_url, timeout_s=5, max_retries=0)
    pipeline, _ = fixture_corpus.pipeline(generator)
    support = pipeline.stage("support")
    assert isinstance(support, ClaimSupportStage)
    shown_wrong: list[str] = []
    kept_correct = 0
    correct = [c for c in CASES if c.kind == "correct"]
    wrong = [c for c in CASES if c.kind != "correct"]
    reasons: dict[str, int] = {}
    try:
        for case in CASES:
            fake_openai.script_reply(lambda body, case=case: _generation(case, body))
            answer = await pipeline.answer(case.question, token(["employees"], state=case.state))
            shown = not answer.abstained and _claim(case) in answer.answer
            if case.kind == "correct":
                kept_correct += shown
                if not shown:
                    print("CORRECT STRIPPED:", case.sentence, support.stripped)
            elif shown:
                shown_wrong.append(case.sentence)
            else:
                for _, reason in support.stripped:
                    key = reason.split(":")[0].split(" (")[0]
                    reasons[key] = reasons.get(key, 0) + 1
    finally:
        await generator.aclose()
    print(
        f"\nclaim support: {len(wrong)} wrong generations, shown {len(shown_wrong)}; "
        f"{len(correct)} correct, kept {kept_correct} ({kept_correct / len(correct):.2f}); reasons {reasons}"
    )
    assert len(wrong) >= 30
    assert shown_wrong == []
    assert kept_correct / len(correct) >= 0.95


@pytest.mark.unit
def test_glued_lowercase_text_is_its_own_sentence_and_must_be_supported() -> None:
    from rag_core.citations import sentences, validate
    from rag_core.support import check

    text = "The deductible is $1,250. the plan also covers cosmetic surgery.[^c1]"
    assert sentences(text) == ["The deductible is $1,250.", "the plan also covers cosmetic surgery.[^c1]"]
    result = validate(text, ["c1"], [])
    assert result.text == "the plan also covers cosmetic surgery.[^c1]"  # the uncited head is dropped ...
    chunk = "Medical Plan — Deductible\nThe deductible is $1,250 per person."
    assert not check(result.text, [chunk]).supported  # ... and the glued claim is not supported
    assert sentences("Care from 6 a.m. to 9 p.m. daily, e.g. urgent care.[^c1]") == [
        "Care from 6 a.m. to 9 p.m. daily, e.g. urgent care.[^c1]"
    ]


@pytest.mark.unit
@pytest.mark.parametrize(
    "text",
    [
        "Executives get $9,999 [^ c1] and the deductible is $1,250.[^c1]",  # malformed marker inside
        "Executives get $9,999.[^ c1]",
        "Executives get $9,999 [ ^c1].",
        "Executives get $9,999.[^c1 ]",
    ],
)
def test_malformed_markers_do_not_pass_for_citations(text: str) -> None:
    from rag_core.citations import validate

    result = validate(text, ["c1"], [])
    assert "9,999" not in result.text
