"""Slack identity resolution through the app: usergroups, work state, cache expiry and invalidation."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from bot.store import MemoryStore
from tests.bot.harness import CON, EMP, EXEC, SlackHarness, start_slack, stop_slack
from tests.fakes.answer_service import CANARIES
from tests.fakes.slack_api import STATE_FIELD, message_text

pytestmark = pytest.mark.integration


class Clock:
    now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture
async def timed() -> AsyncIterator[tuple[SlackHarness, Clock]]:
    clock = Clock()
    h = await start_slack({"GROUP_CACHE_TTL_S": 300}, store=MemoryStore(clock=clock))
    try:
        yield h, clock
    finally:
        await stop_slack(h)


async def _ask(h: SlackHarness, user: str, q: str) -> str:
    await h.send_event(h.dm(user, q))
    await h.drain()
    return message_text(h.fake.answers(f"D{user}")[-1])


async def test_group_lookups_are_cached(timed: tuple[SlackHarness, Clock]) -> None:
    h, _ = timed
    for _ in range(3):
        await _ask(h, EMP, "dental deductible?")
    assert len(h.fake.calls_to("usergroups.list")) == 1
    assert len(h.fake.calls_to("users.info")) == 1


async def test_membership_change_without_event_expires_with_ttl(timed: tuple[SlackHarness, Clock]) -> None:
    h, clock = timed
    assert CANARIES["executives"] in await _ask(h, EXEC, "canary code?")
    h.fake.set_membership("S0EXEC", [])  # no subteam event delivered
    clock.now += 301
    assert CANARIES["executives"] not in await _ask(h, EXEC, "canary code?")


async def test_work_state_selects_state_documents(timed: tuple[SlackHarness, Clock]) -> None:
    h, _ = timed
    assert "8 weeks of paid family leave" in await _ask(h, EMP, "paid family leave?")  # California
    h.fake.add_usergroup("S0EMP2", "all-employees", [CON])  # a Texan employee
    h.fake.set_membership("S0CON", [])
    await h.send_event({"type": "subteam_members_changed", "subteam_id": "S0EMP2"})
    await h.drain()
    assert "8 weeks" not in await _ask(h, CON, "paid family leave?")


async def test_user_change_event_refreshes_state(timed: tuple[SlackHarness, Clock]) -> None:
    h, _ = timed
    assert "8 weeks" in await _ask(h, EMP, "paid family leave?")
    h.fake.users[EMP]["fields"] = {STATE_FIELD: {"value": "Oregon"}}
    await h.send_event({"type": "user_change", "user": {"id": EMP}})
    await h.drain()
    assert "8 weeks" not in await _ask(h, EMP, "paid family leave?")


async def test_channel_members_are_paginated(timed: tuple[SlackHarness, Clock]) -> None:
    h, _ = timed
    h.fake.set_channel("CBIG", [EMP, *[f"UFILL{i}" for i in range(450)], EXEC, "UBOT"])
    for i in range(450):
        h.fake.add_user(f"UFILL{i}", is_bot=True)  # bots are not readers
    await h.send_event(h.mention(EXEC, "canary code?", channel="CBIG"))
    await h.drain()
    assert len(h.fake.calls_to("conversations.members")) == 3
    public = message_text(h.fake.answers("CBIG")[-1])
    assert CANARIES["employees"] in public and CANARIES["executives"] not in public


async def test_too_large_channel_answers_privately() -> None:
    h = await start_slack({"AUDIENCE_MAX_MEMBERS": 2})
    try:
        await h.send_event(h.mention(EMP, "dental deductible?", channel="CMIXED"))
        await h.drain()
        public = message_text(h.fake.answers("CMIXED")[-1])
        assert "too many members" in public and "$50" not in public
        [private] = h.fake.posts("chat.postEphemeral", "CMIXED")
        assert "$50" in message_text(private) and private.args["user"] == EMP
    finally:
        await stop_slack(h)
