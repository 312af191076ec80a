"""Microsoft Graph, just enough of it: a user's groups (``memberOf``), whether they still hold
some of them (``checkMemberGroups``), and work state.

Token acquisition is a small injectable protocol: production uses MSAL client credentials
(run in a thread, MSAL is synchronous and caches the token); tests use a static token against
a local fake Graph.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any, Protocol

import aiohttp

from bot.errors import IdentityLookupError

GRAPH_SCOPE = "https://graph.microsoft.com/.default"
_OBJECT_ID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_MAX_PAGES = 50


class GraphTokenProvider(Protocol):
    async def token(self) -> str: ...


class StaticGraphTokenProvider:
    def __init__(self, token: str) -> None:
        self._token = token

    async def token(self) -> str:
        return self._token


class MsalGraphTokenProvider:
    """Client-credentials token for the bot's own app registration.

    The registration needs the Graph application permissions GroupMember.Read.All and User.Read.All.
    """

    def __init__(self, app_id: str, password: str, tenant_id: str) -> None:
        import msal

        self._app = msal.ConfidentialClientApplication(
            app_id, authority=f"https://login.microsoftonline.com/{tenant_id}", client_credential=password
        )

    async def token(self) -> str:
        result: dict[str, Any] = await asyncio.to_thread(self._app.acquire_token_for_client, scopes=[GRAPH_SCOPE])
        if "access_token" not in result:
            raise IdentityLookupError(f"Graph token request failed: {result.get('error', 'unknown error')}")
        return str(result["access_token"])


class GraphUserNotFound(IdentityLookupError):
    """The user does not exist in the directory (or is not visible to the app)."""


def is_object_id(value: str | None) -> bool:
    return bool(value and _OBJECT_ID_RE.match(value))


class GraphClient:
    def __init__(self, base_url: str, tokens: GraphTokenProvider, *, timeout_s: float = 10.0) -> None:
        self._base = base_url.rstrip("/")
        self._tokens = tokens
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)
        self._session: aiohttp.ClientSession | None = None

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        return self._session

    async def _request(self, method: str, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {await self._tokens.token()}", "Accept": "application/json"}
        try:
            async with self._http().request(method, url, json=body, headers=headers) as resp:
                if resp.status == 404:
                    raise GraphUserNotFound("user not found in the directory")
                if resp.status >= 400:
                    raise IdentityLookupError(f"Graph {method} failed with HTTP {resp.status}")
                data: dict[str, Any] = await resp.json(content_type=None)
                return data
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise IdentityLookupError(f"Graph unreachable: {type(exc).__name__}") from exc

    async def still_member_of(self, object_id: str, group_ids: Sequence[str]) -> set[str]:
        """Which of ``group_ids`` the user is still a member of, asked now (``checkMemberGroups``,
        at most 20 ids per call)."""
        if not is_object_id(object_id):
            raise GraphUserNotFound("not an AAD object id")
        held: set[str] = set()
        ids = list(dict.fromkeys(group_ids))
        for start in range(0, len(ids), 20):
            page = await self._request(
                "POST", f"{self._base}/users/{object_id}/checkMemberGroups", {"groupIds": ids[start : start + 20]}
            )
            held.update(str(g) for g in page.get("value") or [])
        return held

    async def member_of(self, object_id: str) -> list[tuple[str, str]]:
        """(object id, display name) of each group the user is a direct member of."""
        if not is_object_id(object_id):
            raise GraphUserNotFound("not an AAD object id")
        url: str | None = f"{self._base}/users/{object_id}/memberOf?$select=id,displayName"
        groups: list[tuple[str, str]] = []
        for _ in range(_MAX_PAGES):
            if url is None:
                break
            page = await self._request("GET", url)
            for item in page.get("value") or []:
                if item.get("@odata.type", "#microsoft.graph.group") == "#microsoft.graph.group":
                    groups.append((str(item.get("id", "")), str(item.get("displayName") or "")))
            url = page.get("@odata.nextLink")
        return groups

    async def user_state(self, object_id: str) -> str | None:
        if not is_object_id(object_id):
            raise GraphUserNotFound("not an AAD object id")
        data = await self._request("GET", f"{self._base}/users/{object_id}?$select=id,state,usageLocation")
        state = data.get("state")
        return str(state) if state else None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
