"""The Graph client against a local fake Graph: membership checks in Graph-sized batches."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.errors import IdentityLookupError
from bot.teams.graph import GraphClient, StaticGraphTokenProvider
from tests.fakes.graph import GRAPH_TOKEN, FakeGraph

pytestmark = pytest.mark.integration  # a fake Graph on loopback

USER = "11111111-2222-4333-8444-555555555555"
GROUPS = [f"00000000-0000-4000-8000-{n:012d}" for n in range(25)]


@pytest.fixture
async def graph() -> AsyncIterator[FakeGraph]:
    fake = FakeGraph()
    await fake.start()
    fake.add_user(USER, groups=GROUPS[::2])  # holds every other group
    yield fake
    await fake.close()


async def test_still_member_of_asks_in_batches_of_twenty(graph: FakeGraph) -> None:
    client = GraphClient(graph.api_url, StaticGraphTokenProvider(GRAPH_TOKEN))
    try:
        held = await client.still_member_of(USER, GROUPS)
    finally:
        await client.close()
    assert held == set(GROUPS[::2])
    assert [len(c.args["groupIds"]) for c in graph.calls_to("checkMemberGroups")] == [20, 5]


async def test_still_member_of_fails_loudly_when_graph_is_down(graph: FakeGraph) -> None:
    graph.failing = True
    client = GraphClient(graph.api_url, StaticGraphTokenProvider(GRAPH_TOKEN))
    try:
        with pytest.raises(IdentityLookupError):
            await client.still_member_of(USER, GROUPS[:3])
    finally:
        await client.close()
