"""Block Kit rendering: answers, abstentions, notices, escaping, limits."""

from __future__ import annotations

import json

import pytest

from bot.reply import Reply, ReplyKind
from bot.slack.blocks import body_markdown, closing_blocks, parse_feedback_value, render, to_mrkdwn
from rag_core.types import AbstainDetail, AbstainReason, Answer, Citation, DocumentRef

pytestmark = pytest.mark.unit

HR = "https://hr.example.com/contact"


def reply(answer: Answer) -> Reply:
    return Reply(ReplyKind.ANSWER, answer.answer, HR, "q123", answer)


def test_answer_blocks() -> None:
    a = Answer(
        query_id="q123",
        answer="The deductible is **$50**.[^c1]",
        abstained=False,
        hr_contact=HR,
        model="m",
        citations=[
            Citation(
                chunk_id="c1",
                document_id="d",
                title="Dental <Plan>",
                page=2,
                source_uri="https://b.example.com/d.pdf",
                score=0.9,
            )
        ],
        notices=["The documents disagree on the copay."],
    )
    text, blocks = render(reply(a), note="private note")
    assert text == "The deductible is $50."
    dumped = json.dumps(blocks)
    assert "The deductible is *$50*. [1]" in dumped
    assert "[1] <https://b.example.com/d.pdf#page=2|Dental &lt;Plan&gt;, p. 2>" in dumped
    assert "The documents disagree" in dumped and "private note" in dumped
    assert f"<{HR}|Contact HR>" in dumped
    assert blocks[-1]["type"] == "context_actions" and blocks[-1]["block_id"] == "feedback"
    [buttons] = blocks[-1]["elements"]
    assert buttons["type"] == "feedback_buttons" and buttons["action_id"] == "answer_feedback"
    assert (buttons["positive_button"]["value"], buttons["negative_button"]["value"]) == ("up:q123", "down:q123")


def test_abstention_has_text_and_hr_only() -> None:
    a = Answer(
        answer="I couldn't find this.",
        abstained=True,
        abstain_reason=AbstainReason.CONFLICT,
        hr_contact=HR,
        model="m",
        notices=["internal detail"],
    )
    _, blocks = render(reply(a))
    assert [b["type"] for b in blocks] == ["section", "context"]
    assert "internal detail" not in json.dumps(blocks)


def test_share_button_only_when_asked() -> None:
    a = Answer(
        answer="Yes.[^c1]",
        abstained=False,
        hr_contact=HR,
        model="m",
        citations=[Citation(chunk_id="c1", document_id="d", title="T", page=1, source_uri="s", score=1)],
    )
    _, without = render(reply(a))
    _, with_share = render(reply(a), share_question="q?")
    assert "share_in_channel" not in json.dumps(without) and "share_in_channel" in json.dumps(with_share)


def test_mrkdwn_escapes_control_characters() -> None:
    assert to_mrkdwn("a < b & <!channel>") == "a &lt; b &amp; &lt;!channel&gt;"
    assert to_mrkdwn("[site](https://x.example.com)") == "<https://x.example.com|site>"


def test_long_answers_are_split_into_sections() -> None:
    a = Answer(
        answer="word " * 2000,
        abstained=False,
        hr_contact=HR,
        model="m",
        citations=[Citation(chunk_id="c1", document_id="d", title="T", page=1, source_uri="s", score=1)],
    )
    _, blocks = render(reply(a))
    sections = [b for b in blocks if b["type"] == "section"]
    assert len(sections) >= 4 and all(len(b["text"]["text"]) <= 3000 for b in sections)


FOOTER = "AI-generated; the plan documents govern."


def test_the_footer_closes_an_answer_and_only_an_answer() -> None:
    a = Answer(
        answer="Yes.[^c1]",
        abstained=False,
        hr_contact=HR,
        model="m",
        citations=[Citation(chunk_id="c1", document_id="d", title="T", page=1, source_uri="s", score=1)],
    )
    blocks = closing_blocks(Reply(ReplyKind.ANSWER, a.answer, HR, "q1", a, footer=FOOTER))
    assert [b["type"] for b in blocks][-3:] == ["context", "context", "context_actions"]  # HR, footer, feedback
    assert FOOTER in json.dumps(blocks)
    no = Answer(
        answer="I couldn't find this.",
        abstained=True,
        abstain_reason=AbstainReason.LOW_SIMILARITY,
        hr_contact=HR,
        model="m",
    )
    assert FOOTER not in json.dumps(render(Reply(ReplyKind.ANSWER, no.answer, HR, "q2", no))[1])


def test_an_abstention_shows_its_help_above_the_hr_contact() -> None:
    detail = AbstainDetail(
        conflicting=(
            DocumentRef(document_id="a", title="US <Leave>", effective_date="2026-01-01"),
            DocumentRef(document_id="b", title="NY Leave", effective_date="2026-01-01"),
        )
    )
    a = Answer(
        answer="They conflict.",
        abstained=True,
        abstain_reason=AbstainReason.CONFLICT,
        hr_contact=HR,
        model="m",
        abstain_detail=detail,
    )
    _, blocks = render(reply(a))
    assert [b["type"] for b in blocks] == ["section", "section", "context"]
    assert "“US &lt;Leave&gt;” and “NY Leave”" in blocks[1]["text"]["text"]


def test_the_streamed_body_is_markdown_and_not_escaped() -> None:
    a = Answer(
        answer="You pay **$50** & no more.[^c1]",
        abstained=False,
        hr_contact=HR,
        model="m",
        citations=[Citation(chunk_id="c1", document_id="d", title="T", page=1, source_uri="s", score=1)],
    )
    assert body_markdown(reply(a)) == "You pay **$50** & no more. [1]"


def test_feedback_values_round_trip() -> None:
    assert parse_feedback_value("up:q-1") == ("up", "q-1")
    assert parse_feedback_value("q-1") == ("", "")


@pytest.mark.parametrize("question", ['"' * 999, "\\" * 999, "é" * 999, "q" * 1990, "<&>\n" * 250])
def test_share_value_fits_block_kits_limit_after_json_escaping(question: str) -> None:
    """Quotes and backslashes double when JSON-escaped: the limit applies to the encoded value."""
    from bot.slack.blocks import BUTTON_VALUE_LIMIT, share_button
    from tests.fakes.slack_api import block_kit_problems

    block = share_button(question)
    if block is None:  # the whole question does not fit: no button rather than a cut question
        assert len(json.dumps({"q": question}, ensure_ascii=False)) > BUTTON_VALUE_LIMIT
        return
    value = block["elements"][0]["value"]
    assert len(value) <= BUTTON_VALUE_LIMIT and json.loads(value)["q"] == question
    assert block_kit_problems([block]) == []


@pytest.mark.parametrize("length", [10, 2900, 2999, 3000, 9000])
def test_rendered_answers_pass_the_fake_slack_block_kit_check(length: int) -> None:
    from tests.fakes.slack_api import block_kit_problems

    a = Answer(
        answer=("x" * length) + ".[^c1] " + "& < > " * 300,
        abstained=False,
        hr_contact=HR,
        model="m",
        citations=[Citation(chunk_id="c1", document_id="d", title="T" * 300, page=1, source_uri="s", score=1)],
        notices=["n" * 2500],
    )
    _, blocks = render(reply(a), share_question="q" * 990)
    assert block_kit_problems(blocks) == []


@pytest.mark.parametrize(
    ("blocks", "problem"),
    [
        ([{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}], "3001 chars > 3000"),
        ([{"type": "section", "text": {"type": "mrkdwn", "text": "x"}}] * 51, "51 blocks > 50"),
        (
            [
                {
                    "type": "actions",
                    "elements": [
                        {
                            "type": "button",
                            "action_id": "a",
                            "value": "v" * 2001,
                            "text": {"type": "plain_text", "text": "ok"},
                        }
                    ],
                }
            ],
            "value 2001 chars",
        ),
        (
            [
                {
                    "type": "actions",
                    "elements": [
                        {"type": "button", "action_id": "a", "text": {"type": "plain_text", "text": "b" * 76}}
                    ],
                }
            ],
            "76 chars > 75",
        ),
        ([{"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * 11}], "context with 11 elements"),
        ([{"type": "section", "block_id": "s"}, {"type": "divider", "block_id": "s"}], "duplicate block_id"),
        ([{"type": "section", "text": {"type": "mrkdwn", "text": ""}}], "empty text"),
    ],
)
def test_the_fake_slack_refuses_what_slack_refuses(blocks: list[dict[str, object]], problem: str) -> None:
    from tests.fakes.slack_api import block_kit_problems

    assert any(problem in p for p in block_kit_problems(blocks)), block_kit_problems(blocks)
