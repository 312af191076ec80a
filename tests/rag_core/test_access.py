"""Signed RBAC tokens: only a genuine, unexpired token gets in, and a bad one never reaches the index."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest

from rag_core.access import mint_token, verify_token
from rag_core.errors import AccessDenied
from tests.rag_core.conftest import SIGNING_KEY, FixtureCorpus, generator_of, token

KEY = "unit-test-signing-key"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _sign(body: str, key: str = KEY) -> str:
    return _b64(hmac.new(key.encode(), f"v1.{body}".encode(), hashlib.sha256).digest())


def _claims(tok: str) -> dict[str, object]:
    body = tok.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))


def _with_claims(tok: str, **changes: object) -> str:
    """Rewrite the claims and keep the original signature (what a tampering client would do)."""
    claims = {**_claims(tok), **changes}
    body = _b64(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode())
    return f"v1.{body}.{tok.split('.')[2]}"


# -- unit ------------------------------------------------------------------------------------------


@pytest.mark.unit
def test_round_trip_keeps_every_claim() -> None:
    now = time.time()
    tok = mint_token(
        KEY,
        subject="alice@fabrikam.example",
        acl_groups=["executives", "employees", "employees"],
        state="ca",
        employment_type="employee",
        ttl_s=120,
        language="es",
        now=now,
    )
    claims = verify_token(KEY, tok, now=now + 60)
    assert claims.subject == "alice@fabrikam.example"
    assert claims.acl_groups == frozenset({"employees", "executives"})
    assert claims.state == "CA"  # normalised
    assert claims.jurisdictions == ("US-ALL", "US-CA")
    assert claims.language == "es"
    assert claims.employment_type == "employee"
    assert claims.expires_at == int(now) + 120


@pytest.mark.unit
def test_no_state_means_us_all_only() -> None:
    claims = verify_token(KEY, mint_token(KEY, subject="bob", acl_groups=["employees"], state=None))
    assert claims.state is None
    assert claims.jurisdictions == ("US-ALL",)
    assert claims.language is None


@pytest.mark.unit
def test_forged_signature_is_denied() -> None:
    tok = mint_token(KEY, subject="mallory", acl_groups=["employees"], state=None)
    version, body, _ = tok.split(".")
    forged = f"{version}.{body}.{_b64(b'x' * 32)}"
    with pytest.raises(AccessDenied, match="signature"):
        verify_token(KEY, forged)
    # Also a signature made with another key over the exact same body.
    with pytest.raises(AccessDenied, match="signature"):
        verify_token(KEY, f"{version}.{body}.{_sign(body, key='attacker-key')}")


@pytest.mark.unit
@pytest.mark.parametrize(
    "changes",
    [
        {"groups": ["employees", "executives"]},  # privilege escalation
        {"state": "CA"},  # jurisdiction swap
        {"exp": 4102444800},  # extend the expiry (year 2100)
        {"sub": "ceo@fabrikam.example"},  # impersonation
    ],
)
def test_tampered_claims_are_denied(changes: dict[str, object]) -> None:
    tok = mint_token(KEY, subject="mallory", acl_groups=["employees"], state="NY")
    with pytest.raises(AccessDenied, match="signature"):
        verify_token(KEY, _with_claims(tok, **changes))


@pytest.mark.unit
@pytest.mark.parametrize("suffix", ["==", "=", "!!", " ", "\n", "%3D", "+", "/"])
def test_signature_must_be_strict_base64url(suffix: str) -> None:
    """A genuine signature with padding or junk appended is another spelling of the same bytes to a
    lenient decoder; the token format allows exactly one."""
    good = token(["employees"])
    assert verify_token(SIGNING_KEY, good).acl_groups == frozenset({"employees"})
    with pytest.raises(AccessDenied):
        verify_token(SIGNING_KEY, good + suffix)


def test_non_canonical_base64url_is_denied() -> None:
    """Flipping the unused low bits of the last character decodes to the same bytes: refused."""
    version, body, signature = token(["employees"]).split(".")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(signature[-1])
    twin = signature[:-1] + alphabet[last ^ 1]  # 43 chars: the last one carries 2 spare bits
    assert base64.urlsafe_b64decode(twin + "=") == base64.urlsafe_b64decode(signature + "=")
    with pytest.raises(AccessDenied):
        verify_token(SIGNING_KEY, f"{version}.{body}.{twin}")


def test_wrong_key_is_denied() -> None:
    tok = mint_token("some-other-deployment-key", subject="alice", acl_groups=["employees"], state=None)
    with pytest.raises(AccessDenied):
        verify_token(KEY, tok)


@pytest.mark.unit
def test_expired_token_is_denied() -> None:
    issued = time.time() - 3600
    tok = mint_token(KEY, subject="alice", acl_groups=["employees"], state=None, ttl_s=300, now=issued)
    with pytest.raises(AccessDenied, match="expired"):
        verify_token(KEY, tok)
    # The same token was fine while it was fresh, and is refused one second after its expiry.
    assert verify_token(KEY, tok, now=issued + 299).subject == "alice"
    with pytest.raises(AccessDenied, match="expired"):
        verify_token(KEY, tok, now=issued + 301)


@pytest.mark.unit
@pytest.mark.parametrize(
    "bad",
    [
        "",
        "not-a-token",
        "v1.onlytwo",
        "v1.a.b.c",
        "v2.e30.c2ln",  # unknown version
        "v1.!!!notbase64!!!.AAAA",
        f"v1.{_b64(b'not json')}.{_sign(_b64(b'not json'))}",
        None,
        12345,
    ],
)
def test_malformed_tokens_are_denied(bad: object) -> None:
    with pytest.raises(AccessDenied):
        verify_token(KEY, bad)  # type: ignore[arg-type]


@pytest.mark.unit
@pytest.mark.parametrize(
    "claims",
    [
        {"sub": "x", "groups": "employees", "exp": 4102444800},  # groups not a list
        {"sub": "x", "groups": ["employees", 7], "exp": 4102444800},  # non-string group
        {"sub": "x", "groups": ["employees"], "exp": "4102444800"},  # exp not an int
        {"sub": "x", "groups": ["employees"]},  # no exp at all
    ],
)
def test_signed_but_malformed_claims_are_denied(claims: dict[str, object]) -> None:
    body = _b64(json.dumps(claims).encode())
    with pytest.raises(AccessDenied):
        verify_token(KEY, f"v1.{body}.{_sign(body)}")


@pytest.mark.unit
@pytest.mark.parametrize("payload", [b"[]", b'"employees"', b"42"])
def test_signed_non_object_claims_are_denied(payload: bytes) -> None:
    body = _b64(payload)
    with pytest.raises(AccessDenied):
        verify_token(KEY, f"v1.{body}.{_sign(body)}")


# -- through the pipeline ------------------------------------------------------------------------------


def _bad_tokens() -> dict[str, str]:
    good = token(["employees"])
    version, body, _ = good.split(".")
    return {
        "forged": f"{version}.{body}.{_b64(b'f' * 32)}",
        "tampered": _with_claims(good, groups=["employees", "executives", "hr-admins"]),
        "wrong_key": token(["employees", "executives"], key="attacker-key"),
        "expired": token(["employees"], now=time.time() - 3600, ttl_s=60),
        "malformed": "Bearer employees",
    }


@pytest.mark.integration
@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize("kind", sorted(_bad_tokens()))
async def test_engine_denies_bad_token_before_any_index_read(fixture_corpus: FixtureCorpus, kind: str) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    bad = _bad_tokens()[kind]
    with pytest.raises(AccessDenied):
        await pipeline.answer("What is the executive car allowance?", bad)
    assert spy.queries == [] and spy.counts == []
    assert generator_of(pipeline).calls == []


@pytest.mark.integration
@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize("kind", sorted(_bad_tokens()))
async def test_engine_denies_bad_audience_token(fixture_corpus: FixtureCorpus, kind: str) -> None:
    """A channel answer with one bad audience token is refused outright, not answered for the rest."""
    pipeline, spy = fixture_corpus.pipeline()
    with pytest.raises(AccessDenied):
        await pipeline.answer(
            "What is the medical plan deductible?",
            token(["employees"]),
            audience_tokens=[token(["employees"]), _bad_tokens()[kind]],
        )
    assert spy.touched == 0


@pytest.mark.integration
@pytest.mark.asyncio(loop_scope="session")
async def test_engine_accepts_the_same_token_when_genuine(fixture_corpus: FixtureCorpus) -> None:
    """Control for the denial tests: the spy does see queries for a good token."""
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer("What is the medical plan deductible?", token(["employees"]))
    assert not answer.abstained
    assert len(spy.queries) == 1
    assert SIGNING_KEY == pipeline.settings.rbac_signing_key.get_secret_value()
