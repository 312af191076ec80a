"""The Teams AI message: one root message entity (label + citations within Teams' limits), the
feedback loop on answers only, and the same label on "not found" and "no access"."""

from __future__ import annotations

import pytest

from bot.reply import Reply, ReplyKind
from bot.teams.ai_message import ABSTRACT_LIMIT, MAX_CITATIONS, NAME_LIMIT, ai_activity
from rag_core.types import AbstainReason, Answer, Citation
from tests.fakes.teams_connector import activity_problem

pytestmark = pytest.mark.unit

HR = "https://hr.example.com/contact"


def _cit(n: int, title: str = "Plan") -> Citation:
    return Citation(
        chunk_id=f"c{n}",
        document_id=f"d{n}",
        title=title,
        page=n,
        source_uri=f"https://docs.example.com/d{n}.pdf",
        score=1,
    )


def _serialised(reply: Reply) -> dict:  # type: ignore[type-arg]
    activity = ai_activity(reply, note=None)
    body: dict = activity.serialize()  # type: ignore[type-arg]
    assert activity_problem(body) is None  # what Teams would accept
    return body


def test_citations_stay_within_teams_limits() -> None:
    text = " ".join(f"Fact number {n} is stated at length {'x' * 200}.[^c{n}]" for n in range(1, 25))
    a = Answer(
        answer=text,
        abstained=False,
        hr_contact=HR,
        model="m",
        citations=[_cit(n, title="A very long document title " * 5) for n in range(1, 25)],
    )
    body = _serialised(Reply(ReplyKind.ANSWER, a.answer, HR, "q", a))
    [entity] = body["entities"]
    claims = entity["citation"]
    assert len(claims) == MAX_CITATIONS and [c["position"] for c in claims] == list(range(1, 21))
    assert all(len(c["appearance"]["name"]) <= NAME_LIMIT for c in claims)
    assert all(len(c["appearance"]["abstract"]) <= ABSTRACT_LIMIT for c in claims)
    assert claims[0]["appearance"]["abstract"].startswith("Fact number 1 is stated")


@pytest.mark.parametrize("kind", [ReplyKind.ANSWER, ReplyKind.NO_ACCESS])
def test_not_found_and_no_access_look_the_same(kind: ReplyKind) -> None:
    answer = (
        Answer(
            answer="I couldn't find this.",
            abstained=True,
            abstain_reason=AbstainReason.LOW_SIMILARITY,
            hr_contact=HR,
            model="m",
        )
        if kind == ReplyKind.ANSWER
        else None
    )
    body = _serialised(Reply(kind, "I couldn't find this.", HR, "q", answer))
    assert body["entities"][0]["additionalType"] == ["AIGeneratedContent"]
    assert "citation" not in body["entities"][0] and "channelData" not in body
    assert body["text"] == f"I couldn't find this.\n\nQuestions about your situation? [Contact HR]({HR})"


def test_a_notice_is_not_labelled_as_ai_content() -> None:
    body = _serialised(Reply(ReplyKind.RATE_LIMITED, "Slow down.", HR, "q"))
    assert "entities" not in body and body["text"] == "Slow down."


def test_the_fake_connector_refuses_what_teams_refuses() -> None:
    root = {"type": "https://schema.org/Message", "@type": "Message", "@context": "https://schema.org"}
    assert activity_problem({"entities": [root, root]}) == "Multiple root message entities found under entities array."
    claim = {"@type": "Claim", "position": 1, "appearance": {}}
    assert activity_problem({"text": "x [1]", "entities": [{**root, "citation": [claim]}]}) == (
        "The appearance object is empty."
    )
    claim["appearance"] = {"@type": "DigitalDocument", "name": "n"}
    assert "no [1]" in str(activity_problem({"text": "x", "entities": [{**root, "citation": [claim]}]}))
    assert activity_problem({"channelData": {"feedbackLoopEnabled": "yes"}}) is not None
