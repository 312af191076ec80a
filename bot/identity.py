"""Who is asking, as the edge resolved it, and the signed tokens the core requires.

An :class:`Identity` with no ACL group has no access: the edge answers it with a no-access
abstention itself and never asks the core with an empty scope.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass

from rag_core.access import mint_token


@dataclass(frozen=True)
class Identity:
    platform: str  # "slack" | "teams"
    user_id: str  # platform user id (Slack U..., AAD object id)
    acl_groups: frozenset[str]
    state: str | None
    employment_type: str = "employee"

    @property
    def has_access(self) -> bool:
        return bool(self.acl_groups)

    @property
    def scope(self) -> tuple[tuple[str, ...], str | None, str]:
        """What the core filters on; two identities with the same scope see the same documents."""
        return (tuple(sorted(self.acl_groups)), self.state, self.employment_type)

    def sees_everything_of(self, other: Identity) -> bool:
        """True when every document ``other`` may see is visible to this identity too.

        Documents are visible to any of their ACL groups, so a superset of groups sees a
        superset of documents; jurisdiction filters differ unless the state is the same.
        """
        return other.acl_groups <= self.acl_groups and self.state == other.state


def user_ref(secret: str, platform: str, user_id: str) -> str:
    """A stable, non-reversible reference to a user for logs and store keys."""
    digest = hmac.new(secret.encode(), f"{platform}:{user_id}".encode(), hashlib.sha256).hexdigest()
    return digest[:16]


def scope_hash(asker: Identity, audience: Sequence[Identity] = ()) -> str:
    """Hash of everything that decides which documents an answer may use."""
    payload = {
        "asker": list(asker.scope),
        "audience": sorted(json.dumps(list(m.scope)) for m in audience),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]


def mint_for(key: str, identity: Identity, subject: str, ttl_s: int, *, language: str | None = None) -> str:
    """The signed token the core requires; ``language`` restricts answers to documents in it."""
    return mint_token(
        key,
        subject=subject,
        acl_groups=identity.acl_groups,
        state=identity.state,
        employment_type=identity.employment_type,
        ttl_s=ttl_s,
        language=language,
    )


def distinct_scopes(members: Sequence[Identity]) -> list[Identity]:
    """One representative per distinct scope, in a stable order (one token each is enough)."""
    seen: dict[tuple[tuple[str, ...], str | None, str], Identity] = {}
    for member in members:
        seen.setdefault(member.scope, member)
    return [seen[k] for k in sorted(seen, key=lambda s: json.dumps(list(s)))]
