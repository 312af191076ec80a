"""A local fake of Microsoft Graph: ``/users/{id}/memberOf``, ``/users/{id}/checkMemberGroups`` and
``/users/{id}`` with a static token."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from tests.fakes.server import FakeService

GRAPH_TOKEN = "fake-graph-token"


class FakeGraph(FakeService):
    def __init__(self, token: str = GRAPH_TOKEN, page_size: int = 2) -> None:
        super().__init__()
        self.token = token
        self.page_size = page_size
        self.groups: dict[str, dict[str, str]] = {}  # group id -> {"id", "displayName"}
        self.users: dict[str, dict[str, Any]] = {}  # object id -> {"state", "usageLocation", "groups": [ids]}
        self.failing = False

    def add_group(self, group_id: str, name: str) -> None:
        self.groups[group_id] = {"id": group_id, "displayName": name}

    def add_user(self, object_id: str, *, groups: list[str], state: str | None = None) -> None:
        self.users[object_id] = {"state": state, "usageLocation": "US", "groups": list(groups)}

    def set_groups(self, object_id: str, groups: list[str]) -> None:
        self.users[object_id]["groups"] = list(groups)

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/v1.0"

    def build(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1.0/users/{oid}/memberOf", self._member_of)
        app.router.add_post("/v1.0/users/{oid}/checkMemberGroups", self._check_member_groups)
        app.router.add_get("/v1.0/users/{oid}", self._user)
        return app

    def _check(self, request: web.Request) -> web.Response | None:
        if self.failing:
            return web.json_response({"error": {"code": "serviceUnavailable"}}, status=503)
        if request.headers.get("Authorization") != f"Bearer {self.token}":
            return web.json_response({"error": {"code": "InvalidAuthenticationToken"}}, status=401)
        if request.match_info["oid"] not in self.users:
            return web.json_response({"error": {"code": "Request_ResourceNotFound"}}, status=404)
        return None

    async def _member_of(self, request: web.Request) -> web.Response:
        oid = request.match_info["oid"]
        self.record("memberOf", {"user": oid, "skip": request.query.get("$skip")})
        if (problem := self._check(request)) is not None:
            return problem
        items = [
            {"@odata.type": "#microsoft.graph.group", **self.groups[g]}
            for g in self.users[oid]["groups"]
            if g in self.groups
        ]
        items.append({"@odata.type": "#microsoft.graph.directoryRole", "id": "role-1", "displayName": "Role"})
        skip = int(request.query.get("$skip") or 0)
        page = items[skip : skip + self.page_size]
        body: dict[str, Any] = {"value": page}
        if skip + self.page_size < len(items):
            body["@odata.nextLink"] = f"{self.api_url}/users/{oid}/memberOf?$skip={skip + self.page_size}"
        return web.json_response(body)

    async def _check_member_groups(self, request: web.Request) -> web.Response:
        oid = request.match_info["oid"]
        asked = (await request.json()).get("groupIds") or []
        self.record("checkMemberGroups", {"user": oid, "groupIds": asked})
        if (problem := self._check(request)) is not None:
            return problem
        if len(asked) > 20:  # Graph's limit per request
            return web.json_response({"error": {"code": "Request_BadRequest"}}, status=400)
        return web.json_response({"value": [g for g in asked if g in self.users[oid]["groups"]]})

    async def _user(self, request: web.Request) -> web.Response:
        oid = request.match_info["oid"]
        self.record("user", {"user": oid})
        if (problem := self._check(request)) is not None:
            return problem
        user = self.users[oid]
        return web.json_response({"id": oid, "state": user["state"], "usageLocation": user["usageLocation"]})
