"""The unanswered-topics report: abstentions and thumbs-down counted by topic words and reason in
the bot's Store, with TTLs; question text only with the opt-in; nothing that identifies the asker."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from bot.cli import main as cli
from bot.report import build_report
from bot.slack.blocks import FEEDBACK_DOWN
from bot.store import MemoryStore
from tests.bot.conftest import RedisServer
from tests.bot.dev_harness import DevApp, start_dev
from tests.fakes.answer_service import FakeAnswerService

pytestmark = pytest.mark.integration

TODAY = date(2026, 6, 1)
ASKER = "U0SECRETUSER"
DAY = 86400


async def ask(dev: DevApp, question: str, user: str = ASKER) -> str:
    """A question through /slack/events (dev mode): returns the answer's query id."""
    resp = await dev.post_form("/slack/events", {"command": "/benefits", "text": question, "user_id": user})
    body = await resp.json()
    ids = re.findall(r"[0-9a-f]{32}", json.dumps(body))
    return ids[0] if ids else ""


async def thumbs_down(dev: DevApp, query_id: str, user: str = ASKER) -> None:
    click = {
        "type": "block_actions",
        "user": {"id": user},
        "actions": [{"action_id": FEEDBACK_DOWN, "value": query_id}],
    }
    assert (await dev.post_form("/slack/events", {"payload": json.dumps(click)})).status == 200


async def start(**overrides: Any) -> DevApp:
    return await start_dev(
        FakeAnswerService(key="test-rbac-signing-key"), BENEFITSBOT_TODAY=TODAY.isoformat(), **overrides
    )


async def report_of(dev: DevApp, days: int = 7) -> dict[str, Any]:
    report = await build_report(
        dev.parts.store, days=days, today=TODAY, questions_stored=dev.parts.settings.report_store_questions
    )
    return report.to_json()


async def test_abstentions_and_thumbs_down_by_topic() -> None:
    dev = await start()
    try:
        await ask(dev, "Is pet insurance covered?")
        await ask(dev, "Do you offer pet insurance for cats?")
        dental = await ask(dev, "How much is the dental deductible?")
        await thumbs_down(dev, dental)
        await thumbs_down(dev, dental)  # the same person again: counted once
        await thumbs_down(dev, dental, user="U0OTHER")
        await ask(dev, " ")  # a notice, not a question about anything

        report = await report_of(dev)
        assert (report["asked"], report["answered"], report["abstained"], report["thumbs_down"]) == (
            3,
            1,
            {"low_similarity": 2},
            2,
        )
        by_topic = {tuple(t["topic"]): t for t in report["topics"]}
        assert by_topic[("insurance", "pet")]["abstained"] == {"low_similarity": 2}
        assert by_topic[("dental",)] == {
            "topic": ["dental"],
            "asked": 1,
            "abstained": {},
            "thumbs_down": 2,
            "questions": [],
        }
        assert report["topics"][0]["topic"] == ["insurance", "pet"]  # the most unanswered first

        page = await (await dev.client.get("/report?days=7")).text()
        assert "insurance, pet" in page and "low_similarity · 2" in page and "Question text is not stored" in page
        assert (await (await dev.client.get("/report.json?days=7")).json())["thumbs_down"] == 2
    finally:
        await dev.close()


async def test_nothing_identifies_the_asker_and_no_question_text_by_default() -> None:
    dev = await start()
    try:
        await ask(dev, "Is pet insurance covered for my dog Rex?")
        query_id = await ask(dev, "How much is the dental deductible for Maria Lopez?")
        await thumbs_down(dev, query_id)
        assert isinstance(dev.parts.store, MemoryStore)
        stored = {k: v for k, v in dev.parts.store._data.items() if k.startswith("report:")}
        dumped = json.dumps({k: v[1] for k, v in stored.items()}).lower()
        uref = dev.parts.answerer.user_ref("slack", ASKER)
        for secret in (ASKER.lower(), uref, "maria", "lopez", "rex", "dog", "covered for"):
            assert secret not in dumped, secret
        assert not [k for k in stored if k.startswith("report:v1:questions:")]
    finally:
        await dev.close()


async def test_question_text_only_with_the_opt_in_and_every_key_expires(redis_server: RedisServer) -> None:
    dev = await start(
        REDIS_URL=redis_server.url, REPORT_STORE_QUESTIONS=True, REPORT_QUESTION_DAYS=3, REPORT_RETENTION_DAYS=30
    )
    redis = aioredis.from_url(redis_server.url, decode_responses=True)
    try:
        await ask(dev, "Is pet insurance covered?")
        dental = await ask(dev, "How much is the dental deductible?")
        await thumbs_down(dev, dental)
        report = await report_of(dev)
        by_topic = {tuple(t["topic"]): t for t in report["topics"]}
        assert [q["question"] for q in by_topic[("insurance", "pet")]["questions"]] == ["Is pet insurance covered?"]
        assert [q["kind"] for q in by_topic[("dental",)]["questions"]] == ["thumbs_down"]

        ttls = {k: await redis.ttl(k) async for k in redis.scan_iter("report:*")}
        assert len(ttls) == 4  # the day's counters, its questions, and two answers' topics
        for key, ttl in ttls.items():
            limit = 31 * DAY if key.startswith("report:v1:day:") else 3 * DAY  # questions: REPORT_QUESTION_DAYS
            assert 0 < ttl <= limit, (key, ttl)  # nothing kept forever
    finally:
        await redis.aclose()
        await dev.close()


@pytest.mark.unit
def test_question_retention_is_bounded() -> None:
    from tests.bot.harness import make_settings

    with pytest.raises(ValueError):
        make_settings(REPORT_QUESTION_DAYS=31)


def test_report_command(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import asyncio

    async def populate() -> None:
        dev = await start(REDIS_URL=redis_server.url)
        try:
            await ask(dev, "Is pet insurance covered?")
        finally:
            await dev.close()

    asyncio.run(populate())
    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    monkeypatch.setenv("BENEFITSBOT_TODAY", TODAY.isoformat())
    assert cli(["report", "--days", "7"]) == 0
    out = capsys.readouterr().out
    assert "insurance, pet" in out and "low_similarity 1" in out and "topic words and reasons only" in out
    assert cli(["report", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["abstained"] == {"low_similarity": 1}

    monkeypatch.delenv("REDIS_URL")
    assert cli(["report"]) == 2
    assert "open its report page, http://localhost:3978/report" in capsys.readouterr().err
