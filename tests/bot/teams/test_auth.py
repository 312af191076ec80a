"""Bot Framework authentication on /api/messages: the 401 matrix, request-shape 4xx, dev/prod rules."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.app import create_app
from bot.errors import ConfigError
from tests.bot.harness import EMP, TeamsHarness, make_settings, start_teams, stop_teams

pytestmark = pytest.mark.integration


async def _nothing_sent(teams: TeamsHarness) -> None:
    await teams.drain()
    assert teams.connector.calls_to("send") == []
    assert teams.service.calls == []


async def test_valid_token_is_accepted_and_reply_recorded(teams: TeamsHarness) -> None:
    activity = teams.activity(EMP, "How much is the dental deductible?")
    resp = await teams.post(activity)
    assert resp.status == 200
    await teams.drain()
    [reply] = teams.connector.messages()
    assert reply.args["conversation"] == activity["conversation"]["id"]
    assert reply.args["reply_to"] == activity["id"]
    assert reply.headers["Authorization"] == "Bearer fake-outbound-bot-token"


async def test_no_authorization_header_is_401(teams: TeamsHarness) -> None:
    resp = await teams.post(teams.activity(EMP, "dental?"), auth=False)
    assert resp.status == 401
    await _nothing_sent(teams)


@pytest.mark.parametrize(
    "case",
    [
        "wrong_issuer",
        "wrong_audience",
        "expired",
        "service_url_mismatch",
        "unknown_key",
        "garbage",
        "not_bearer",
    ],
)
async def test_bad_tokens_are_401(teams: TeamsHarness, case: str) -> None:
    activity = teams.activity(EMP, "dental?")
    token = {
        "wrong_issuer": lambda: teams.token(issuer="https://evil.example.com"),
        "wrong_audience": lambda: teams.token(audience="00000000-0000-4000-8000-000000000000"),
        "expired": lambda: teams.token(expires_in=-3600),
        "service_url_mismatch": lambda: teams.token(service_url="https://attacker.example.com/"),
        "unknown_key": lambda: teams.token(
            key=rsa.generate_private_key(public_exponent=65537, key_size=2048), kid="other-key"
        ),
        "garbage": lambda: "not.a.jwt",
        "not_bearer": lambda: None,
    }[case]()
    if case == "not_bearer":
        resp = await teams.client.post("/api/messages", json=activity, headers={"Authorization": "Basic Zm9vOmJhcg=="})
    else:
        resp = await teams.post(activity, token=token)
    assert resp.status == 401
    await _nothing_sent(teams)


async def test_forged_signature_with_valid_kid_is_401(teams: TeamsHarness) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    resp = await teams.post(teams.activity(EMP, "dental?"), token=teams.token(key=other))  # our kid, wrong key
    assert resp.status == 401
    await _nothing_sent(teams)


async def test_missing_content_type_is_4xx_not_500(teams: TeamsHarness) -> None:
    resp = await teams.post(teams.activity(EMP, "dental?"), content_type=None)
    assert 400 <= resp.status < 500


@pytest.mark.parametrize("raw, status", [(b"{not json", 400), (b"[1, 2]", 400), (b'{"text": "no type"}', 400)])
async def test_malformed_bodies_are_400(teams: TeamsHarness, raw: bytes, status: int) -> None:
    resp = await teams.post(None, raw=raw)
    assert resp.status == status


@pytest.mark.unit
def test_prod_without_app_id_refuses_to_start() -> None:
    settings = make_settings(
        BENEFITSBOT_ENV="prod",
        TEAMS_ENABLED=True,
        MICROSOFT_APP_ID=None,
        SLACK_ENABLED=False,
        REDIS_URL="redis://127.0.0.1:1/0",
    )
    with pytest.raises(ConfigError) as err:
        create_app(settings)
    assert "MICROSOFT_APP_ID" in str(err.value)


async def test_dev_without_app_id_runs_with_auth_off() -> None:
    h = await start_teams(app_id=None)
    try:
        assert "authentication off" in h.parts.platforms["teams"]
        resp = await h.post(h.activity(EMP, "dental deductible?"), auth=False)
        assert resp.status == 200
        await h.drain()
        [reply] = h.connector.messages()
        assert reply.headers["Authorization"] == ""  # anonymous outbound in dev
    finally:
        await stop_teams(h)


async def test_new_app_never_trusts_keys_cached_for_the_same_url() -> None:
    """A key server restarted on the same URL with a new key (same kid) must be re-read."""
    from urllib.parse import urlparse

    from botbuilder.schema import Activity

    from bot.teams.auth import build_authentication
    from tests.bot.harness import APP_ID
    from tests.fakes.teams_connector import FakeBotFrameworkAuth, StaticTokenCredentialFactory

    service_url = "https://smba.example.com/"
    activity = Activity().deserialize(
        {
            "type": "message",
            "id": "1",
            "channelId": "msteams",
            "serviceUrl": service_url,
            "from": {"id": "29:u"},
            "recipient": {"id": f"28:{APP_ID}"},
            "conversation": {"id": "a:1"},
        }
    )
    first = FakeBotFrameworkAuth()
    await first.start()
    port = urlparse(first.metadata_url).port
    settings = make_settings(
        TEAMS_ENABLED=True,
        SLACK_BOT_TOKEN=None,
        MICROSOFT_APP_ID=APP_ID,
        TEAMS_OPENID_METADATA_URL=first.metadata_url,
        TEAMS_EMULATOR_OPENID_METADATA_URL=first.metadata_url,
    )
    auth = build_authentication(settings, StaticTokenCredentialFactory(APP_ID))
    token = first.token(audience=APP_ID, service_url=service_url)
    assert (await auth.authenticate_request(activity, f"Bearer {token}")).claims_identity.is_authenticated
    await first.close()

    second = FakeBotFrameworkAuth()
    second.kid = first.kid  # the worst case: same URL, same kid, different key
    await second.start(port=port)
    try:
        auth = build_authentication(settings, StaticTokenCredentialFactory(APP_ID))
        token = second.token(audience=APP_ID, service_url=service_url)
        assert (await auth.authenticate_request(activity, f"Bearer {token}")).claims_identity.is_authenticated
    finally:
        await second.close()
