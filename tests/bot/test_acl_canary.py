"""ACL canary matrix on the REAL core: Slack and Teams over HTTP, a real Qdrant Edge index built from
a generated canary corpus, the real pipeline (token -> pre-filter -> retrieval -> gates ->
extractive generation -> validation). Nothing here re-implements access control: a leak in the
index filter, the jurisdiction or date condition, the audience narrowing or the edge's identity
resolution makes these tests fail (see the mutation table in the trust report).

Each canary document carries one unique code and is asked about by its own question. Whoever asks,
wherever they ask, a code may appear (in the answer or its sources) only if the asker, and for a
channel answer everyone who can read it, may see that document: its ACL group, its state
(jurisdiction) and its effective date.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pytest
import pytest_asyncio
import yaml

from bot.answering import PRIVATE_NOTE
from bot.core_service import CoreAnswerService
from bot.slack.blocks import SHARE_ACTION
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
from tests.fakes.slack_api import message_text
from tests.fakes.teams_connector import activity_text

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TODAY = "2026-11-30"


@dataclass(frozen=True)
class Canary:
    key: str
    code: str
    title: str
    question: str
    body: str
    acl_groups: tuple[str, ...]
    jurisdiction: str = "US-ALL"
    effective_date: str = "2026-01-01"


CANARIES = (
    Canary(
        "employees",
        "CANARY-EMP-7F3A",
        "Fabrikam Bicycle Commuter Benefit",
        "How much is the bicycle commuter reimbursement?",
        "Employees who bike to work are reimbursed up to $20 per month for bicycle maintenance "
        "under bicycle commuter program code CANARY-EMP-7F3A.",
        ("employees",),
    ),
    Canary(
        "contractors",
        "CANARY-CON-19C2",
        "Fabrikam Contractor Gym Access",
        "Can contractors use the on-site gym?",
        "Contractors may use the on-site gym on weekdays with gym badge code CANARY-CON-19C2.",
        ("contractors",),
    ),
    Canary(
        "executives",
        "CANARY-EXE-B44E",
        "Fabrikam Executive Car Allowance",
        "What is the executive car allowance?",
        "Executives receive a monthly executive car allowance of $3,500 under car allowance code CANARY-EXE-B44E.",
        ("executives",),
    ),
    Canary(
        "hr-admins",
        "CANARY-HRA-0D91",
        "Fabrikam Payroll Correction Procedure",
        "How do HR admins process a payroll correction?",
        "HR admins process a payroll correction in the correction queue with payroll procedure code CANARY-HRA-0D91.",
        ("hr-admins",),
    ),
    Canary(
        "california",
        "CANARY-CAL-5E21",
        "Fabrikam California Wellness Stipend",
        "How much is the California wellness stipend?",
        "Employees who work in California receive a California wellness stipend of $300 a year under "
        "wellness stipend code CANARY-CAL-5E21.",
        ("employees", "contractors"),  # contractors may see it: only the state keeps Texas out
        jurisdiction="US-CA",
    ),
    Canary(
        "future",
        "CANARY-FUT-88A0",
        "Fabrikam Sabbatical Program 2027",
        "How long is the paid sabbatical?",
        "Employees with seven years of service may take a paid sabbatical of four weeks under sabbatical "
        "code CANARY-FUT-88A0.",
        ("employees",),
        effective_date="2027-01-01",
    ),
)
BY_KEY = {c.key: c for c in CANARIES}

# What each identity may see (harness: EMP, EXEC and HR work in California, CON in Texas, so the
# California stipend, open to contractors by group, is kept from CON by jurisdiction alone; the
# sabbatical takes effect after "today").
ALLOWED: dict[str, set[str]] = {
    EMP: {"employees", "california"},
    CON: {"contractors"},
    EXEC: {"employees", "executives", "california"},
    HR: {"employees", "hr-admins", "california"},
    NOBODY: set(),
}


def write_canary_corpus(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    entries = []
    for canary in CANARIES:
        (docs / f"{canary.key}.md").write_text(f"# {canary.title}\n\n## Details\n\n{canary.body}\n", encoding="utf-8")
        entries.append(
            {
                "file": f"docs/{canary.key}.md",
                "document_id": f"canary-{canary.key}",
                "title": canary.title,
                "jurisdiction": canary.jurisdiction,
                "effective_date": canary.effective_date,
                "acl_groups": list(canary.acl_groups),
                "source_uri": f"https://hr.fabrikam.example/{canary.key}.md",
            }
        )
    (root / "catalog.yaml").write_text(yaml.safe_dump({"documents": entries}), encoding="utf-8")
    return root


def core_overrides(data_dir: Path) -> dict[str, Any]:
    return {
        "BENEFITSBOT_DATA_DIR": str(data_dir),
        "QDRANT_URL": None,
        "OPENAI_API_KEY": None,
        "COHERE_API_KEY": None,
        "EMBEDDING_PROVIDER": "local",
        "GENERATOR": "extractive",
        "BENEFITSBOT_TODAY": TODAY,
        "LATE_INTERACTION": "none",
        "ANSWER_CACHE_TTL_S": 0,
    }


@pytest.fixture(scope="module")
def canary_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import asyncio

    from rag_core.embeddings import build_embedder
    from rag_core.index import open_index
    from rag_core.ingest.pipeline import Ingestor
    from tests.bot.harness import make_settings

    root = tmp_path_factory.mktemp("canary")
    corpus = write_canary_corpus(root / "corpus")
    settings = make_settings(**core_overrides(root / "data"))

    async def ingest() -> None:
        index = open_index(settings)
        try:
            summary = await Ingestor(index, build_embedder(settings), progress=False).run(corpus)
            assert summary.failed == [] and summary.ingested == len(CANARIES)
        finally:
            await index.aclose()

    asyncio.run(ingest())
    return root / "data"


def visible(text: str) -> set[str]:
    """Which canaries (code in the text, or the document among the sources) appear in ``text``.

    A document not yet in effect may be *named* with its effective date in an abstention (issue 10:
    "not in effect until ..."), to askers whose groups may see it; its content never shows before
    that date. So its title alone does not count here; :func:`named_future` checks who hears of it."""
    found = set()
    for canary in CANARIES:
        named = canary.title in text and canary.effective_date <= TODAY
        if canary.code in text or f"canary-{canary.key}" in text or named:
            found.add(canary.key)
    return found


def named_future(text: str) -> set[str]:
    """Not-yet-effective canaries whose title the text names."""
    return {c.key for c in CANARIES if c.effective_date > TODAY and c.title in text}


class Platform(Protocol):
    async def private(self, user: str, question: str) -> str: ...

    async def channel(self, user: str, question: str, members: list[str]) -> tuple[str, str | None]: ...

    async def revoke(self, user: str, group: str) -> None: ...

    def core_calls(self) -> int: ...


class SlackPlatform:
    def __init__(self, h: SlackHarness) -> None:
        self.h = h
        self._channels = itertools.count(1)
        self.calls = 0

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
        gid = {"executives": "S0EXEC", "hr-admins": "S0HR", "employees": "S0EMP", "contractors": "S0CON"}[group]
        self.h.fake.set_membership(gid, [m for m in self.h.fake.usergroups[gid]["users"] if m != user])
        await self.h.send_event({"type": "subteam_members_changed", "subteam_id": gid, "removed_users": [user]})
        await self.h.drain()


class TeamsPlatform:
    def __init__(self, h: TeamsHarness) -> None:
        self.h = h
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
        self.h.connector.set_roster(root, [{"id": f"29:{m}", "name": m, "aadObjectId": OID.get(m)} for m in members])
        creates_before = len(self.h.connector.calls_to("create"))
        await self.h.post(activity)
        await self.h.drain()
        public = activity_text(self.h.connector.messages_in(activity["conversation"]["id"])[-1])
        created = self.h.connector.calls_to("create")[creates_before:]
        assert len(created) <= 1
        if not created:
            return public, None
        return public, activity_text(self.h.connector.messages_in(created[0].args["id"])[-1])

    async def revoke(self, user: str, group: str) -> None:
        groups = [g for g in self.h.graph.users[OID[user]]["groups"] if g != AAD_GROUP[group]]
        self.h.graph.set_groups(OID[user], groups)


@pytest_asyncio.fixture(params=["slack", "teams"])
async def platform(request: pytest.FixtureRequest, canary_index: Path) -> AsyncIterator[Platform]:
    from tests.bot.harness import make_settings

    overrides = core_overrides(canary_index)
    service = CoreAnswerService.from_settings(make_settings(**overrides))
    store = MemoryStore()
    if request.param == "slack":
        sh = await start_slack(overrides, service=service, store=store)  # type: ignore[arg-type]
        await service.start()
        try:
            yield SlackPlatform(sh)
        finally:
            await stop_slack(sh)
            await service.close()
    else:
        th = await start_teams(overrides, service=service, store=store)  # type: ignore[arg-type]
        await service.start()
        try:
            yield TeamsPlatform(th)
        finally:
            await stop_teams(th)
            await service.close()


def _questions() -> Iterator[Canary]:
    return iter(CANARIES)


async def test_each_canary_only_where_allowed_in_private(platform: Platform) -> None:
    """DM / 1:1: every identity asks every canary's question; a code shows iff the asker may see it
    (group, state, effective date), and what the asker may see is actually answered."""
    for user in (EXEC, HR, EMP, CON, NOBODY):
        for canary in _questions():
            reply = await platform.private(user, canary.question)
            shown = visible(reply)
            assert shown <= ALLOWED[user], (user, canary.key, shown)
            # Only someone whose groups may see the future document is told it is coming.
            may_hear_of = {
                c.key for c in CANARIES if set(c.acl_groups) & ALLOWED[user]
            }  # group canaries are keyed by group
            assert named_future(reply) <= may_hear_of, (user, canary.key, reply)
            assert (canary.key in shown) == (canary.key in ALLOWED[user]), (user, canary.key, shown)


@pytest.mark.parametrize(
    ("asker", "members"),
    [
        (EXEC, [EMP, EXEC, CON]),  # nothing is visible to all three
        (EXEC, [EMP, EXEC]),  # the public answer uses what the employee may see
        (HR, [EMP, HR]),
        (EMP, [EMP, EXEC]),  # the executive sees all the employee sees: no private answer
        (EMP, [EMP, NOBODY]),  # anyone unmapped in the audience: nothing public
        (CON, [CON, EMP]),  # contractor documents stay private
        (EMP, [EMP, CON]),  # a Texas member: the California document is not public
        (EMP, [EMP, "UEXTERNAL"]),  # a shared channel with someone from another organisation
    ],
)
async def test_channel_audience_rule(platform: Platform, asker: str, members: list[str]) -> None:
    """Channel / mention: a code is public iff every member may see it; the asker alone gets a private
    answer with what only they may see."""
    for canary in (BY_KEY["employees"], BY_KEY["executives"], BY_KEY["california"], BY_KEY["contractors"]):
        public, private = await platform.channel(asker, canary.question, members)
        everyone = all(canary.key in ALLOWED.get(m, set()) for m in members)
        assert (canary.key in visible(public)) == (everyone and canary.key in ALLOWED[asker]), (canary.key, public)
        assert visible(public) <= set.intersection(*(ALLOWED.get(m, set()) for m in members))
        if private is not None:
            assert visible(private) <= ALLOWED[asker]
            assert PRIVATE_NOTE in public
        if canary.key in ALLOWED[asker] and not everyone:
            assert private is not None and canary.key in visible(private), (canary.key, private)


async def test_revoking_a_group_removes_access_on_the_next_question(platform: Platform) -> None:
    question = BY_KEY["executives"].question
    assert "executives" in visible(await platform.private(EXEC, question))
    await platform.revoke(EXEC, "executives")
    assert "executives" not in visible(await platform.private(EXEC, question))


async def test_revoking_removes_access_in_channels_too(platform: Platform) -> None:
    question = BY_KEY["employees"].question
    public, _ = await platform.channel(EMP, question, [EMP, HR])
    assert visible(public) == {"employees"}
    await platform.revoke(HR, "hr-admins")  # HR's only mapped group: no access at all now
    public, private = await platform.channel(EMP, question, [EMP, HR])
    assert "employees" not in visible(public)
    assert private is not None and "employees" in visible(private)


@pytest_asyncio.fixture
async def slack_on_core(canary_index: Path) -> AsyncIterator[SlackHarness]:
    from tests.bot.harness import make_settings

    overrides = core_overrides(canary_index)
    service = CoreAnswerService.from_settings(make_settings(**overrides))
    sh = await start_slack(overrides, service=service, store=MemoryStore())  # type: ignore[arg-type]
    await service.start()
    try:
        yield sh
    finally:
        await stop_slack(sh)
        await service.close()


@pytest.mark.parametrize(("sharer", "members"), [(CON, [CON, EMP]), (EXEC, [EXEC, EMP])])
async def test_a_forged_share_value_cannot_widen_access(
    slack_on_core: SlackHarness, sharer: str, members: list[str]
) -> None:
    """The share button's value carries only the question (a client can forge it): the real core
    answers it again for the clicker under the channel's audience, so the executive canary reaches
    the channel only if every member may see it — here never."""
    h = slack_on_core
    h.fake.set_channel("CSHARE", [*members, "UBOT"])
    await h.send_action(sharer, SHARE_ACTION, json.dumps({"q": BY_KEY["executives"].question}), channel="CSHARE")
    await h.drain()
    shown = [message_text(post) for post in h.fake.posts("chat.postMessage")]
    shown += [json.dumps(post) for post in h.fake.response_posts]
    for text in shown:
        assert "executives" not in visible(text), text
    # positive control: the same forged value from an executive alone in a channel is answered
    h.fake.set_channel("CEXEC", [EXEC, "UBOT"])
    await h.send_action(
        EXEC, SHARE_ACTION, json.dumps({"q": BY_KEY["executives"].question}), channel="CEXEC", name="s2"
    )
    await h.drain()
    assert any("executives" in visible(message_text(post)) for post in h.fake.posts("chat.postMessage", "CEXEC"))
