"""Teams identity via Microsoft Graph, and channel audiences from the Bot Framework roster.

Group lookups are cached (``GROUP_CACHE_TTL_S``) per user, but a cached grant is never trusted
on its own: every question asks Graph (``checkMemberGroups``, one call) whether the user still
holds the groups that grant access, so a revocation takes effect on the next question. A new
grant waits for the cache to expire. An audience member whose lookup fails counts as having no
access, so a failure narrows what a channel may see, never widens it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any, Protocol

from bot.answering import Audience
from bot.cache import JsonCache
from bot.errors import IdentityLookupError
from bot.identity import Identity
from bot.rbac import RbacPolicy
from bot.store import Store
from bot.teams.graph import GraphClient, GraphUserNotFound, is_object_id

log = logging.getLogger(__name__)


class TeamsIdentities(Protocol):
    """Who asks and who reads, as the Teams edge needs it: Graph in production
    (:class:`TeamsDirectory`), the dev identity in dev mode without Graph (bot.devmode)."""

    async def identity(self, object_id: str | None) -> Identity | None: ...

    async def audience(self, member_object_ids: Sequence[str | None], *, asker_object_id: str) -> Audience: ...


class TeamsDirectory:
    def __init__(self, graph: GraphClient, policy: RbacPolicy, store: Store, *, ttl_s: int, max_members: int) -> None:
        self._graph = graph
        self._policy = policy
        self._cache = JsonCache(store, ttl_s)
        self._max_members = max_members
        self._lookups = asyncio.Semaphore(8)

    async def _load(self, object_id: str) -> dict[str, Any]:
        async with self._lookups:
            try:
                groups = await self._graph.member_of(object_id)
                state = await self._graph.user_state(object_id)
            except GraphUserNotFound:
                return {"exists": False}
        return {"exists": True, "groups": [list(g) for g in groups], "state": state}

    async def identity(self, object_id: str | None) -> Identity | None:
        """None for users Graph does not know (or no AAD id at all). Raises on lookup failure."""
        if not object_id or not is_object_id(object_id):
            return None
        loaded_now = False

        async def load() -> dict[str, Any]:
            nonlocal loaded_now
            loaded_now = True
            return await self._load(object_id)

        info: dict[str, Any] = await self._cache.get_or_load(f"teams:user:{object_id}", load)
        if not info.get("exists"):
            return None
        groups = [(str(g[0]), str(g[1])) for g in info.get("groups") or []]
        if not loaded_now:
            groups = await self._still_held(object_id, groups)
        acl = self._policy.acl_for_aad(groups)
        return Identity(
            platform="teams",
            user_id=object_id,
            acl_groups=acl,
            state=self._policy.state_code(info.get("state")),
            employment_type=self._policy.employment_type(acl),
        )

    async def _still_held(self, object_id: str, groups: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The cached groups that grant access and that Graph says the user holds right now; a
        revocation also drops the cached entry, so the next lookup reloads the whole membership."""
        granting = [g for g in groups if self._policy.acl_for_aad([g])]
        if not granting:
            return groups
        async with self._lookups:
            held = await self._graph.still_member_of(object_id, [group_id for group_id, _ in granting])
        revoked = [g for g in granting if g[0] not in held]
        if revoked:
            await self.invalidate(object_id)
        return [g for g in groups if g not in revoked]

    async def _member(self, object_id: str | None) -> Identity | None:
        try:
            return await self.identity(object_id)
        except IdentityLookupError:
            log.warning("audience member lookup failed; treating the member as having no access")
            return None

    async def audience(self, member_object_ids: Sequence[str | None], *, asker_object_id: str) -> Audience:
        if len(member_object_ids) > self._max_members:
            return Audience(members=(), too_large=True)
        others = [m for m in member_object_ids if m != asker_object_id]
        resolved = await asyncio.gather(*(self._member(m) for m in others))
        return Audience(members=list(resolved))

    async def invalidate(self, object_id: str) -> None:
        await self._cache.invalidate(f"teams:user:{object_id}")
