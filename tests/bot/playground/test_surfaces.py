"""Block Kit and Adaptive Card JSON drawn as HTML: the real renderers' output, every text escaped."""

from __future__ import annotations

import pytest

from bot.playground.surfaces import adaptive_card_html, markdown, mrkdwn, slack_html, teams_html
from bot.reply import Reply, ReplyKind
from bot.slack.blocks import render
from bot.teams.cards import reply_activity
from rag_core.types import Answer, Citation

pytestmark = pytest.mark.unit

HOSTILE = "<script>alert(1)</script> & <img src=x onerror=alert(2)>"


def reply(text: str, title: str = "Dental Plan") -> Reply:
    answer = Answer(
        query_id="q1",
        answer=f"{text} [^dental_p2_c00]",
        abstained=False,
        hr_contact="https://hr.x/c",
        model="m",
        citations=[
            Citation(
                chunk_id="dental_p2_c00",
                document_id="dental",
                title=title,
                page=2,
                source_uri="https://hr.x/dental.pdf",
                score=0.9,
            )
        ],
    )
    return Reply(ReplyKind.ANSWER, answer.answer, "https://hr.x/c", "q1", answer)


def test_slack_mrkdwn_links_emphasis_and_escaping() -> None:
    html = mrkdwn("*Sources*\n[1] <https://hr.x/d.pdf#page=2|Dental &amp; Vision, p. 2> _note_ &lt;b&gt;")
    assert "<strong>Sources</strong><br>" in html
    link = '<a href="https://hr.x/d.pdf#page=2" target="_blank" rel="noopener noreferrer">'
    assert link + "Dental &amp; Vision, p. 2</a>" in html
    assert "<em>note</em>" in html and "&lt;b&gt;" in html and "<b>" not in html


def test_only_web_links_are_links() -> None:
    assert "<a" not in mrkdwn("<javascript:alert(1)|click>") and "click" in mrkdwn("<javascript:alert(1)|click>")
    assert "<a" not in markdown("[click](javascript:alert(1))")
    assert str(markdown('[x](https://a.example/"onmouseover="alert(1))')).count('"') == 6  # quotes stay inside href


def test_markdown_images_are_never_fetched() -> None:
    html = markdown("Rates ![pixel](https://evil.example.net/p.png) apply **now**")
    assert "<img" not in html and "[image: pixel]" in html and "<strong>now</strong>" in html


def test_the_real_slack_blocks_render_escaped() -> None:
    _, blocks = render(reply(HOSTILE, title=HOSTILE))
    html = slack_html(blocks)
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert '<a href="https://hr.x/dental.pdf#page=2"' in html and 'title="Helpful">👍' in html


def test_the_real_teams_card_renders_escaped() -> None:
    activity = reply_activity(reply(HOSTILE, title=HOSTILE)).serialize()
    html = teams_html(activity)
    assert "<script" not in html and "<img" not in html and "&lt;script&gt;" in html
    assert '<a href="https://hr.x/dental.pdf#page=2"' in html and "Contact HR" in html
    assert '<div class="ac-text bold">Sources</div>' in html


def test_unknown_elements_are_named_not_dropped() -> None:
    assert "[rich_text block]" in slack_html([{"type": "rich_text", "elements": []}])
    assert "[Media]" in adaptive_card_html({"body": [{"type": "Media"}]})
    cited = teams_html(
        {
            "entities": [
                {
                    "citation": [
                        {
                            "position": 1,
                            "appearance": {"name": "Dental <b>", "url": "https://hr.x/d.pdf", "abstract": "<i>x</i>"},
                        }
                    ]
                }
            ]
        }
    )
    assert "Dental &lt;b&gt;" in cited and "&lt;i&gt;" in cited and '<a href="https://hr.x/d.pdf"' in cited
