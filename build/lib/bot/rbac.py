"""RBAC policy: which platform groups grant which ACL groups, and how work states are spelled.

Loaded from ``RBAC_POLICY_FILE`` (``deploy/rbac.yaml``) and validated up front: a typo in an
ACL group name must stop the service at startup with the file and key named, not silently
grant or withhold access later.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bot.errors import RbacPolicyError
from bot.jurisdictions import VALID_CODES, build_state_table, normalize_state


@dataclass(frozen=True)
class RbacPolicy:
    """Validated mapping from platform groups to ACL groups."""

    acl_groups: frozenset[str]
    slack_usergroups: Mapping[str, frozenset[str]]  # usergroup handle or id -> ACL groups
    aad_groups: Mapping[str, frozenset[str]]  # AAD group object id or display name -> ACL groups
    employment_types: tuple[tuple[str, str], ...] = ()  # (ACL group, employment type), first match wins
    state_aliases: Mapping[str, str] = field(default_factory=dict)
    source: str = "<inline>"
    _states: Mapping[str, str] = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_states", build_state_table(self.state_aliases))

    # ----- mapping ---------------------------------------------------------------------
    def acl_for_slack(self, usergroups: Iterable[tuple[str, str]]) -> frozenset[str]:
        """ACL groups for Slack usergroups given as (id, handle) pairs."""
        granted: set[str] = set()
        for group_id, handle in usergroups:
            for key in (group_id, handle, handle.lstrip("@")):
                granted |= self.slack_usergroups.get(key, frozenset())
        return frozenset(granted)

    def acl_for_aad(self, groups: Iterable[tuple[str, str]]) -> frozenset[str]:
        """ACL groups for AAD groups given as (object id, display name) pairs."""
        granted: set[str] = set()
        for object_id, name in groups:
            granted |= self.aad_groups.get(object_id, frozenset())
            granted |= self.aad_groups.get(name, frozenset())
        return frozenset(granted)

    def employment_type(self, acl_groups: frozenset[str]) -> str:
        for group, kind in self.employment_types:
            if group in acl_groups:
                return kind
        return "employee"

    def state_code(self, raw: str | None) -> str | None:
        return normalize_state(raw, self._states)

    @property
    def mapped_slack_keys(self) -> frozenset[str]:
        return frozenset(self.slack_usergroups)


def _fail(source: str, key: str, problem: str) -> RbacPolicyError:
    return RbacPolicyError(f"{source}: {key}: {problem}")


def _group_map(raw: Any, source: str, key: str, known: frozenset[str]) -> dict[str, frozenset[str]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _fail(source, key, "must be a mapping of group -> list of ACL groups")
    result: dict[str, frozenset[str]] = {}
    for name, groups in raw.items():
        if isinstance(groups, str):
            groups = [groups]
        if not isinstance(groups, list) or not groups or not all(isinstance(g, str) for g in groups):
            raise _fail(source, f"{key}.{name}", "must be a non-empty list of ACL group names")
        unknown = sorted(set(groups) - known)
        if unknown:
            raise _fail(source, f"{key}.{name}", f"unknown ACL group(s) {unknown} (known: {sorted(known)})")
        result[str(name)] = frozenset(groups)
    return result


def parse_policy(data: Any, source: str = "<inline>") -> RbacPolicy:
    """Validate a parsed YAML document into an :class:`RbacPolicy`."""
    if not isinstance(data, dict):
        raise _fail(source, "<root>", "must be a mapping")
    if data.get("version", 1) != 1:
        raise _fail(source, "version", f"unsupported version {data.get('version')!r} (expected 1)")
    raw_acl = data.get("acl_groups")
    if not isinstance(raw_acl, list) or not raw_acl or not all(isinstance(g, str) and g for g in raw_acl):
        raise _fail(source, "acl_groups", "must be a non-empty list of ACL group names")
    known = frozenset(raw_acl)

    slack = data.get("slack") or {}
    teams = data.get("teams") or {}
    if not isinstance(slack, dict):
        raise _fail(source, "slack", "must be a mapping")
    if not isinstance(teams, dict):
        raise _fail(source, "teams", "must be a mapping")

    employment: list[tuple[str, str]] = []
    raw_emp = data.get("employment_types") or {}
    if not isinstance(raw_emp, dict):
        raise _fail(source, "employment_types", "must be a mapping of ACL group -> employment type")
    for group, kind in raw_emp.items():
        if group not in known:
            raise _fail(source, f"employment_types.{group}", f"unknown ACL group (known: {sorted(known)})")
        if not isinstance(kind, str) or not kind:
            raise _fail(source, f"employment_types.{group}", "must be a non-empty string")
        employment.append((group, kind))

    aliases: dict[str, str] = {}
    raw_states = data.get("states") or {}
    if not isinstance(raw_states, dict):
        raise _fail(source, "states", "must be a mapping of spelling -> two-letter state code")
    for alias, code in raw_states.items():
        if not isinstance(code, str) or code.upper() not in VALID_CODES:
            raise _fail(source, f"states.{alias}", f"{code!r} is not a US state code")
        aliases[str(alias)] = code.upper()

    return RbacPolicy(
        acl_groups=known,
        slack_usergroups=_group_map(slack.get("usergroups"), source, "slack.usergroups", known),
        aad_groups=_group_map(teams.get("aad_groups"), source, "teams.aad_groups", known),
        employment_types=tuple(employment),
        state_aliases=aliases,
        source=source,
    )


def load_policy(path: Path | str) -> RbacPolicy:
    """Read and validate the policy file; :class:`RbacPolicyError` names the file and key on failure."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise RbacPolicyError(f"{path}: RBAC policy file not found (set RBAC_POLICY_FILE)") from exc
    except OSError as exc:
        raise RbacPolicyError(f"{path}: cannot read RBAC policy file: {exc}") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise RbacPolicyError(f"{path}: invalid YAML: {exc}") from exc
    return parse_policy(data, str(path))
