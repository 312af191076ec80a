"""Slack identity: user groups and work state -> :class:`~bot.identity.Identity`; channel audiences.

Only usergroups named in the RBAC policy matter, so the cached usergroup snapshot keeps just
those. The cache is invalidated by Slack's ``subteam_*`` and ``user_change`` events and
expires after ``GROUP_CACHE_TTL_S`` in any case, so a revoked membership stops granting access
on the next question (or within the TTL if an event is missed).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.answering import Audience
from bot.cache import JsonCache
from bot.errors import IdentityLookupError
from bot.identity import Identity
from bot.rbac import RbacPolicy
from bot.store import Store

log = logging.getLogger(__name__)

USERGROUPS_KEY = "slack:usergroups"
_UNKNOWN_USER_ERRORS = {"user_not_found", "user_not_visible", "users_not_found"}


def user_key(user_id: str) -> str:
    return f"slack:user:{user_id}"


class SlackDirectory:
    def __init__(
        self,
        client: AsyncWebClient,
        policy: RbacPolicy,
        store: Store,
        *,
        ttl_s: int,
        state_field: str | None,
        max_members: int,
    ) -> None:
        self._client = client
        self._policy = policy
        self._cache = JsonCache(store, ttl_s)
        self._state_field = state_field
        self._max_members = max_members
        self._lookups = asyncio.Semaphore(8)

    # ----- raw lookups (cached) --------------------------------------------------------------
    async def _load_usergroups(self) -> dict[str, Any]:
        try:
            resp = await self._client.usergroups_list(include_users=True, include_disabled=False)
        except SlackApiError as exc:
            raise IdentityLookupError(f"usergroups.list failed: {exc.response.get('error')}") from exc
        except Exception as exc:  # network errors from the SDK's HTTP layer
            raise IdentityLookupError(f"usergroups.list failed: {type(exc).__name__}") from exc
        mapped = self._policy.mapped_slack_keys
        snapshot: dict[str, Any] = {}
        for group in resp.get("usergroups") or []:
            gid, handle = str(group.get("id", "")), str(group.get("handle", ""))
            if group.get("date_delete"):
                continue
            if gid in mapped or handle in mapped:
                snapshot[gid] = {"handle": handle, "users": list(group.get("users") or [])}
        return snapshot

    async def _load_user(self, user_id: str) -> dict[str, Any]:
        async with self._lookups:
            try:
                resp = await self._client.users_info(user=user_id)
            except SlackApiError as exc:
                if exc.response.get("error") in _UNKNOWN_USER_ERRORS:
                    return {"exists": False}
                raise IdentityLookupError(f"users.info failed: {exc.response.get('error')}") from exc
            except Exception as exc:
                raise IdentityLookupError(f"users.info failed: {type(exc).__name__}") from exc
            user = resp.get("user") or {}
            info: dict[str, Any] = {
                "exists": True,
                "deleted": bool(user.get("deleted")),
                "is_bot": bool(user.get("is_bot")) or user.get("id") == "USLACKBOT",
                "state": None,
            }
            if self._state_field and not info["deleted"] and not info["is_bot"]:
                try:
                    prof = await self._client.users_profile_get(user=user_id)
                except SlackApiError as exc:
                    raise IdentityLookupError(f"users.profile.get failed: {exc.response.get('error')}") from exc
                except Exception as exc:
                    raise IdentityLookupError(f"users.profile.get failed: {type(exc).__name__}") from exc
                fields = (prof.get("profile") or {}).get("fields") or {}
                entry = fields.get(self._state_field) or {}
                info["state"] = entry.get("value") if isinstance(entry, dict) else None
            return info

    async def _user(self, user_id: str) -> dict[str, Any]:
        result: dict[str, Any] = await self._cache.get_or_load(user_key(user_id), lambda: self._load_user(user_id))
        return result

    async def _usergroups(self) -> dict[str, Any]:
        result: dict[str, Any] = await self._cache.get_or_load(USERGROUPS_KEY, self._load_usergroups)
        return result

    # ----- identities ---------------------------------------------------------------------------
    async def identity(self, user_id: str) -> Identity | None:
        """The user's identity; None for unknown, deleted and bot users. Raises on lookup failure."""
        info = await self._user(user_id)
        if not info.get("exists") or info.get("deleted") or info.get("is_bot"):
            return None
        groups = await self._usergroups()
        pairs = [(gid, g["handle"]) for gid, g in groups.items() if user_id in g["users"]]
        acl = self._policy.acl_for_slack(pairs)
        return Identity(
            platform="slack",
            user_id=user_id,
            acl_groups=acl,
            state=self._policy.state_code(info.get("state")),
            employment_type=self._policy.employment_type(acl),
        )

    async def _member(self, user_id: str) -> Identity | None | str:
        """A member's identity; "bot" for bots (they are not readers); None when unknown (fail closed)."""
        try:
            info = await self._user(user_id)
            if info.get("is_bot"):
                return "bot"
            return await self.identity(user_id)
        except IdentityLookupError:
            log.warning("audience member lookup failed; treating the member as having no access")
            return None

    async def audience(self, channel_id: str, *, asker_id: str, bot_user_id: str | None) -> Audience:
        """Everyone else in the channel who can read a reply there."""
        members: list[str] = []
        cursor: str | None = None
        try:
            while True:
                resp = await self._client.conversations_members(channel=channel_id, limit=200, cursor=cursor)
                members.extend(resp.get("members") or [])
                if len(members) > self._max_members:
                    return Audience(members=(), too_large=True)
                cursor = (resp.get("response_metadata") or {}).get("next_cursor") or None
                if not cursor:
                    break
        except SlackApiError as exc:
            raise IdentityLookupError(f"conversations.members failed: {exc.response.get('error')}") from exc
        except Exception as exc:
            raise IdentityLookupError(f"conversations.members failed: {type(exc).__name__}") from exc
        others = [m for m in dict.fromkeys(members) if m not in (asker_id, bot_user_id)]
        resolved = await asyncio.gather(*(self._member(m) for m in others))
        return Audience(members=[r for r in resolved if not isinstance(r, str)])

    # ----- invalidation -------------------------------------------------------------------------
    async def invalidate_usergroups(self) -> None:
        await self._cache.invalidate(USERGROUPS_KEY)

    async def invalidate_user(self, user_id: str) -> None:
        await self._cache.invalidate(user_key(user_id))
