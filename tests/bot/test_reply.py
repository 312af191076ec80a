"""The reply model's own sentences: the footer decision and an abstention's help."""

from __future__ import annotations

from datetime import date

import pytest

from bot.reply import Reply, ReplyKind, abstention_help, long_date
from rag_core.types import AbstainDetail, AbstainReason, Answer, DocumentRef, NearTopic, OtherJurisdiction

pytestmark = pytest.mark.unit

HR = "https://hr.example.com/contact"
US = DocumentRef(document_id="us", title="Parental Leave (US) 2026", effective_date=date(2026, 1, 1))
NY = DocumentRef(document_id="ny", title="New York Parental Leave 2026", effective_date=date(2026, 1, 1))
K = DocumentRef(document_id="k", title="401(k) Plan 2027", effective_date=date(2027, 1, 1))


def test_long_date() -> None:
    assert long_date(date(2027, 1, 1)) == "January 1, 2027"


def test_help_for_each_kind_of_detail() -> None:
    assert abstention_help(None) == []
    assert abstention_help(AbstainDetail()) == []
    [future] = abstention_help(AbstainDetail(not_yet_effective=K))
    assert "“401(k) Plan 2027” covers this, but it only takes effect on January 1, 2027" in future
    [conflict] = abstention_help(AbstainDetail(conflicting=(NY, US)))
    assert "“New York Parental Leave 2026” and “Parental Leave (US) 2026”" in conflict
    [itself] = abstention_help(AbstainDetail(conflicting=(US,)))
    assert itself.startswith("“Parental Leave (US) 2026” states different amounts")
    [near] = abstention_help(
        AbstainDetail(near_topic=NearTopic(document_id="d", title="Dental Plan 2026", section="Orthodontia"))
    )
    assert near.endswith("“What does the Dental Plan 2026 say about orthodontia?”")
    [elsewhere] = abstention_help(AbstainDetail(other_jurisdiction=OtherJurisdiction(state="New York", document=NY)))
    assert elsewhere.startswith("“New York Parental Leave 2026” covers employees who work in New York")
    assert "ask HR to update your record" in elsewhere


def test_only_the_cores_abstentions_carry_help() -> None:
    detail = AbstainDetail(not_yet_effective=K)
    abstained = Answer(
        answer="No.",
        abstained=True,
        abstain_reason=AbstainReason.LOW_SIMILARITY,
        hr_contact=HR,
        model="m",
        abstain_detail=detail,
    )
    assert Reply(ReplyKind.ANSWER, "No.", HR, "q", abstained).help
    assert Reply(ReplyKind.NO_ACCESS, "No.", HR, "q").help == []
    answered = Answer(answer="Yes.", abstained=False, hr_contact=HR, model="m", abstain_detail=detail)
    assert Reply(ReplyKind.ANSWER, "Yes.", HR, "q", answered).help == []
