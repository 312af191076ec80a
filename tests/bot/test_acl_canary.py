"""ACL canary matrix, both platforms, through the real app over HTTP.

Each ACL group has one document carrying a unique canary string. Whoever asks, wherever they
ask, a canary may appear (in the answer text or as a cited source) only if the asker, and for
channel answers everyone who can read the reply, may see that group's documents. The tests
depend only on the answer-service contract, so swapping in the real core changes the fixture.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Protocol

import pytest
import pytest_asyncio

from bot.reply import PRIVATE_NOTE
from bot.store import MemoryStore
from tests.bot.harness import (
    AAD_GROUP,
    CON,
    EMP,
    EXEC,
    HR,
    NOBODY,
    OID,
    SlackHarness,
    TeamsHarness,
    start_slack,
    start_teams,
    stop_slack,
    stop_teams,
)
from tests.fakes.answer_service import CANARIES
from tests.fakes.slack_api import message_text
from tests.fakes.teams_connector import activity_text

pytestmark = pytest.mark.integration

QUESTION = "What is the benefits canary code?"
ALLOWED: dict[str, set[str]] = {
    EMP: {"employees"},
    CON: {"contractors"},
    EXEC: {"employees", "executives"},
    HR: {"employees", "hr-admins"},
    NOBODY: set(),
}


def visible_groups(text: str) -> set[str]:
    """Which groups' canaries (text) or canary documents (citations) appear in ``text``."""
    found = set()
    for group, canary in CANARIES.items():
        in_text = canary in text
        cited = f"canary-{group}.pdf" in text or f"{group.title()} Benefits Guide" in text
        assert in_text == cited, f"{group}: canary text and citation disagree"
        if in_text:
            found.add(group)
    return found


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Platform(Protocol):
    clock: FakeClock

    async def private(self, user: str, question: str) -> str: ...

    async def channel(self, user: str, question: str, members: list[str]) -> tuple[str, str | None]: ...

    async def revoke(self, user: str, group: str) -> None: ...

    def core_calls(self) -> int: ...


class SlackPlatform:
    def __init__(self, h: SlackHarness, clock: FakeClock) -> None:
        self.h, self.clock = h, clock
        self._channels = itertools.count(1)

    async def private(self, user: str, question: str) -> str:
        await self.h.send_event(self.h.dm(user, question))
        await self.h.drain()
        return message_text(self.h.fake.answers(f"D{user}")[-1])

    async def channel(self, user: str, question: str, members: list[str]) -> tuple[str, str | None]:
        channel = f"CCANARY{next(self._channels)}"
        self.h.fake.set_channel(channel, [*members, "UBOT"])
        await self.h.send_event(self.h.mention(user, question, channel=channel))
        await self.h.drain()
        public = message_text(self.h.fake.answers(channel)[-1])
        private = [c for c in self.h.fake.posts("chat.postEphemeral", channel) if c.args["user"] == user]
        assert len(private) <= 1
        return public, (message_text(private[0]) if private else None)

    async def revoke(self, user: str, group: str) -> None:
        gid = {"executives": "S0EXEC", "hr-admins": "S0HR", "employees": "S0EMP", "contractors": "S0CON"}[
            group
        ]
        members = self.h.fake.usergroups[gid]["users"]
        self.h.fake.set_membership(gid, [m for m in members if m != user])
        # Slack tells us (subteam_members_changed): the cache is invalidated at once.
        await self.h.send_event(
            {"type": "subteam_members_changed", "subteam_id": gid, "removed_users": [user]}
        )
        await self.h.drain()

    def core_calls(self) -> int:
        return len(self.h.service.calls)


class TeamsPlatform:
    def __init__(self, h: TeamsHarness, clock: FakeClock) -> None:
        self.h, self.clock = h, clock
        self._channels = itertools.count(1)

    async def private(self, user: str, question: str) -> str:
        activity = self.h.activity(user, question)
        await self.h.post(activity)
        await self.h.drain()
        return activity_text(self.h.connector.messages_in(activity["conversation"]["id"])[-1])

    async def channel(self, user: str, question: str, members: list[str]) -> tuple[str, str | None]:
        root = f"19:canary{next(self._channels)}@thread.tacv2"
        activity = self.h.activity(user, question, conversation_type="channel", mention=True)
        activity["conversation"]["id"] = f"{root};messageid={activity['id']}"
        self.h.connector.set_roster(
            root, [{"id": f"29:{m}", "name": m, "aadObjectId": OID[m]} for m in members]
        )
        creates_before = len(self.h.connector.calls_to("create"))
        await self.h.post(activity)
        await self.h.drain()
        public = activity_text(self.h.connector.messages_in(activity["conversation"]["id"])[-1])
        created = self.h.connector.calls_to("create")[creates_before:]
        assert len(created) <= 1
        if not created:
            return public, None
        assert created[0].args["params"]["members"] == [{"id": f"29:{user}"}]
        return public, activity_text(self.h.connector.messages_in(created[0].args["id"])[-1])

    async def revoke(self, user: str, group: str) -> None:
        groups = [g for g in self.h.graph.users[OID[user]]["groups"] if g != AAD_GROUP[group]]
        self.h.graph.set_groups(OID[user], groups)
        # Graph sends no event and the cached membership has not expired: the per-question
        # checkMemberGroups call is what must catch the revocation.

    def core_calls(self) -> int:
        return len(self.h.service.calls)


@pytest_asyncio.fixture(params=["slack", "teams"])
async def platform(request: pytest.FixtureRequest) -> AsyncIterator[Platform]:
    clock = FakeClock()
    store = MemoryStore(clock=clock)
    if request.param == "slack":
        sh = await start_slack(store=store)
        try:
            yield SlackPlatform(sh, clock)
        finally:
            await stop_slack(sh)
    else:
        th = await start_teams(store=store)
        try:
            yield TeamsPlatform(th, clock)
        finally:
            await stop_teams(th)


async def test_each_canary_only_where_allowed_in_private(platform: Platform) -> None:
    # Most privileged first, so a leaky answer cache would show up in the later answers.
    for user in (EXEC, HR, EMP, CON, NOBODY, EXEC):
        text = await platform.private(user, QUESTION)
        assert visible_groups(text) == ALLOWED[user], user


async def test_unmapped_user_never_reaches_the_core(platform: Platform) -> None:
    before = platform.core_calls()
    text = await platform.private(NOBODY, QUESTION)
    assert platform.core_calls() == before
    assert visible_groups(text) == set()
    assert "won't guess" in text  # the same words as "not in the documents": nothing is hinted


@pytest.mark.parametrize(
    "asker, members, public_groups, private_groups",
    [
        # executive among an employee and a contractor: nothing is visible to all three
        (EXEC, [EMP, EXEC, CON], set(), {"employees", "executives"}),
        # executive with an employee: the public answer uses employee documents only
        (EXEC, [EMP, EXEC], {"employees"}, {"employees", "executives"}),
        # HR admin with an employee: same rule, different restricted group
        (HR, [EMP, HR], {"employees"}, {"employees", "hr-admins"}),
        # an employee with an executive: the executive sees all the employee sees: no private answer
        (EMP, [EMP, EXEC], {"employees"}, None),
        # anyone unmapped in the audience: nothing may be shown publicly
        (EMP, [EMP, NOBODY], set(), {"employees"}),
        # a contractor with employees: contractor documents stay private
        (CON, [CON, EMP], set(), {"contractors"}),
    ],
)
async def test_channel_audience_rule(
    platform: Platform,
    asker: str,
    members: list[str],
    public_groups: set[str],
    private_groups: set[str] | None,
) -> None:
    public, private = await platform.channel(asker, QUESTION, members)
    assert visible_groups(public) == public_groups
    if private_groups is None:
        assert private is None
        assert PRIVATE_NOTE not in public
    else:
        assert private is not None
        assert visible_groups(private) == private_groups
        assert PRIVATE_NOTE in public


async def test_revoking_a_group_removes_access_on_the_next_question(platform: Platform) -> None:
    assert "executives" in visible_groups(await platform.private(EXEC, QUESTION))
    await platform.revoke(EXEC, "executives")
    assert visible_groups(await platform.private(EXEC, QUESTION)) == set()


async def test_revoking_removes_access_in_channels_too(platform: Platform) -> None:
    public, _ = await platform.channel(EMP, QUESTION, [EMP, HR])
    assert visible_groups(public) == {"employees"}
    await platform.revoke(HR, "hr-admins")  # HR also held "employees" via that mapping
    public, private = await platform.channel(EMP, QUESTION, [EMP, HR])
    assert visible_groups(public) == set()  # HR now has no access at all
    assert private is not None and visible_groups(private) == {"employees"}
