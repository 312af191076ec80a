"""Adaptive Card rendering."""

from __future__ import annotations

import json
from datetime import date

import pytest

from bot.reply import Reply, ReplyKind
from bot.teams.cards import CARD_CONTENT_TYPE, card_for, reply_activity
from rag_core.types import AbstainDetail, AbstainReason, Answer, Citation, DocumentRef

pytestmark = pytest.mark.unit

HR = "https://hr.example.com/contact"


def test_answer_card() -> None:
    a = Answer(
        query_id="q9",
        answer="Covered.[^c1]",
        abstained=False,
        hr_contact=HR,
        model="m",
        citations=[
            Citation(
                chunk_id="c1",
                document_id="d",
                title="Plan [2024]",
                page=7,
                source_uri="https://b.example.com/p.pdf",
                score=1,
            )
        ],
    )
    card = card_for(Reply(ReplyKind.ANSWER, a.answer, HR, "q9", a))
    dumped = json.dumps(card)
    assert card["version"] == "1.4"
    assert "Covered. [1]" in dumped
    assert "[1] [Plan (2024), p. 7](https://b.example.com/p.pdf#page=7)" in dumped
    assert f"[Contact HR]({HR})" in dumped
    assert [x["data"] for x in card["actions"]] == [
        {"action": "feedback", "vote": "up", "query_id": "q9"},
        {"action": "feedback", "vote": "down", "query_id": "q9"},
    ]


def test_notice_and_activity() -> None:
    activity = reply_activity(Reply(ReplyKind.RATE_LIMITED, "Slow down.", HR, "x"))
    assert activity.attachments[0].content_type == CARD_CONTENT_TYPE
    assert activity.summary == "Slow down."
    assert "actions" not in activity.attachments[0].content


def test_channel_card_footer_and_abstention_help() -> None:
    a = Answer(
        answer="Covered.[^c1]",
        abstained=False,
        hr_contact=HR,
        model="m",
        citations=[Citation(chunk_id="c1", document_id="d", title="T", page=1, source_uri="s", score=1)],
    )
    card = card_for(Reply(ReplyKind.ANSWER, a.answer, HR, "q9", a, footer="The plan documents govern."))
    assert card["body"][-1]["text"] == "The plan documents govern."
    detail = AbstainDetail(
        not_yet_effective=DocumentRef(document_id="k", title="401(k) Plan 2027", effective_date=date(2027, 1, 1))
    )
    no = Answer(
        answer="Not found.",
        abstained=True,
        abstain_reason=AbstainReason.LOW_SIMILARITY,
        hr_contact=HR,
        model="m",
        abstain_detail=detail,
    )
    texts = [b["text"] for b in card_for(Reply(ReplyKind.ANSWER, no.answer, HR, "q", no))["body"]]
    assert texts[0] == "Not found." and "takes effect on January 1, 2027" in texts[1] and HR in texts[2]
