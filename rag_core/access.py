"""Signed RBAC tokens: the only way into the core.

The chat edge resolves who is asking into claims and signs them with ``RBAC_SIGNING_KEY``
(HMAC-SHA256). The core verifies the signature and expiry before anything touches the index,
so a bug or a forged request at the edge cannot widen what a user may see.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time
from dataclasses import dataclass, field

from rag_core.errors import AccessDenied

_VERSION = "v1"


@dataclass(frozen=True)
class AccessClaims:
    """Who is asking, as the core needs to know it."""

    subject: str
    acl_groups: frozenset[str]
    state: str | None  # two-letter US state, or None when unknown
    employment_type: str = "employee"
    expires_at: int = 0
    language: str | None = None  # ask for documents in this language only (e.g. "es")
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def jurisdictions(self) -> tuple[str, ...]:
        """US-ALL always applies; the user's state adds its own variants."""
        return ("US-ALL", f"US-{self.state}") if self.state else ("US-ALL",)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


_B64URL = re.compile(r"^[A-Za-z0-9_-]*$")


def _unb64(text: str) -> bytes:
    """Strict unpadded base64url: any other character, padding, or a non-canonical encoding (spare
    bits set) is an error, so one token has exactly one spelling (``sig==`` or ``sig!!`` is not ``sig``)."""
    if not _B64URL.match(text) or len(text) % 4 == 1:
        raise ValueError("not unpadded base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(data) != text:
        raise ValueError("non-canonical base64url")
    return data


def mint_token(
    key: str,
    *,
    subject: str,
    acl_groups: list[str] | tuple[str, ...] | frozenset[str],
    state: str | None,
    employment_type: str = "employee",
    ttl_s: int = 300,
    language: str | None = None,
    now: float | None = None,
) -> str:
    """Sign claims into a compact token: ``v1.<claims>.<hmac>``."""
    issued = int(now if now is not None else time.time())
    claims = {
        "sub": subject,
        "groups": sorted(set(acl_groups)),
        "state": state.upper() if state else None,
        "emp": employment_type,
        "exp": issued + ttl_s,
    }
    if language:
        claims["lang"] = language
    body = _b64(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode())
    signature = hmac.new(key.encode(), f"{_VERSION}.{body}".encode(), hashlib.sha256).digest()
    return f"{_VERSION}.{body}.{_b64(signature)}"


def verify_token(key: str, token: str, *, now: float | None = None) -> AccessClaims:
    """Return the claims of a genuine, unexpired token; raise ``AccessDenied`` otherwise."""
    if not isinstance(token, str) or token.count(".") != 2:
        raise AccessDenied("malformed access token")
    version, body, signature = token.split(".")
    if version != _VERSION:
        raise AccessDenied("unsupported access token version")
    expected = hmac.new(key.encode(), f"{version}.{body}".encode(), hashlib.sha256).digest()
    try:
        given = _unb64(signature)
        claims = json.loads(_unb64(body))
    except (ValueError, json.JSONDecodeError) as exc:
        raise AccessDenied("malformed access token") from exc
    if not hmac.compare_digest(expected, given):
        raise AccessDenied("access token signature is invalid")
    if not isinstance(claims, dict):
        raise AccessDenied("malformed access token")
    current = now if now is not None else time.time()
    if not isinstance(claims.get("exp"), int) or claims["exp"] < current:
        raise AccessDenied("access token has expired")
    groups = claims.get("groups")
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise AccessDenied("access token groups are malformed")
    return AccessClaims(
        subject=str(claims.get("sub", "")),
        acl_groups=frozenset(groups),
        state=claims.get("state"),
        employment_type=str(claims.get("emp", "employee")),
        expires_at=claims["exp"],
        language=claims.get("lang"),
    )
