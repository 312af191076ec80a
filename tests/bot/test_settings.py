"""BotSettings: the documented env names, and what production refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import check_startup, create_app
from bot.errors import ConfigError, RbacPolicyError
from bot.settings import DEV_RBAC_SIGNING_KEY, BotSettings
from rag_core.settings import CoreSettings
from tests.bot.harness import REPO, make_settings

pytestmark = pytest.mark.unit

EDGE_ENV_NAMES = [
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "SLACK_API_BASE_URL",
    "MICROSOFT_APP_ID",
    "MICROSOFT_APP_PASSWORD",
    "MICROSOFT_APP_TENANT_ID",
    "GRAPH_API_BASE_URL",
    "REDIS_URL",
    "RBAC_POLICY_FILE",
    "PORT",
    "BENEFITSBOT_ENV",
    "SLACK_STATE_PROFILE_FIELD",
    "RATE_LIMIT_PER_MINUTE",
    "GROUP_CACHE_TTL_S",
    "ANSWER_CACHE_TTL_S",
    "DEDUPE_TTL_S",
]


def test_is_the_one_settings_object() -> None:
    assert issubclass(BotSettings, CoreSettings)


def test_env_names_and_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    aliases = {f.alias for f in BotSettings.model_fields.values()}
    assert set(EDGE_ENV_NAMES) <= aliases
    for name in aliases:
        if name:
            monkeypatch.delenv(name, raising=False)
    s = BotSettings(_env_file=None)  # type: ignore[call-arg]
    assert s.slack_api_base_url == "https://slack.com/api/"
    assert s.graph_api_base_url == "https://graph.microsoft.com/v1.0"
    assert s.rbac_policy_file == Path("deploy/rbac.yaml")
    assert s.port == 3978 and s.env == "dev"


def test_reads_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_API_BASE_URL", "http://127.0.0.1:9/api/")
    monkeypatch.setenv("PORT", "8080")
    monkeypatch.setenv("BENEFITSBOT_ENV", "prod")
    monkeypatch.setenv("RATE_LIMIT_PER_MINUTE", "3")
    s = BotSettings(_env_file=None)  # type: ignore[call-arg]
    assert (s.slack_api_base_url, s.port, s.env, s.rate_limit_per_minute) == (
        "http://127.0.0.1:9/api/",
        8080,
        "prod",
        3,
    )


def test_env_must_be_dev_or_prod() -> None:
    with pytest.raises(ValueError):
        make_settings(BENEFITSBOT_ENV="staging")


def test_env_example_documents_every_edge_setting() -> None:
    text = (REPO / ".env.example").read_text()
    assert "# --- chat edge ---" in text
    section = text.split("# --- chat edge ---", 1)[1]
    own = {f.alias for n, f in BotSettings.model_fields.items() if n not in CoreSettings.model_fields}
    for name in own:
        assert f"\n{name}=" in section or f"\n# {name}=" in section, name


PROD_OK = dict(
    BENEFITSBOT_ENV="prod",
    RBAC_SIGNING_KEY="q7Vx2mN9pL4sR8tY1wZ6cB3dF5gH0jK2",
    REDIS_URL="redis://127.0.0.1:1/0",
    SLACK_BOT_TOKEN="xoxb-x",
    SLACK_SIGNING_SECRET="s",
    TEAMS_ENABLED=True,
    MICROSOFT_APP_ID="id",
    MICROSOFT_APP_PASSWORD="pw",
)


def test_prod_with_everything_passes() -> None:
    assert make_settings(**PROD_OK).startup_problems() == []


@pytest.mark.parametrize(
    "override, needle",
    [
        ({"SLACK_SIGNING_SECRET": None}, "SLACK_SIGNING_SECRET"),
        ({"SLACK_BOT_TOKEN": None}, "SLACK_BOT_TOKEN"),
        ({"MICROSOFT_APP_ID": None}, "MICROSOFT_APP_ID"),
        ({"MICROSOFT_APP_PASSWORD": None}, "MICROSOFT_APP_PASSWORD"),
        ({"REDIS_URL": None}, "REDIS_URL"),
        ({"RBAC_SIGNING_KEY": DEV_RBAC_SIGNING_KEY}, "RBAC_SIGNING_KEY"),
        ({"RBAC_SIGNING_KEY": "a"}, "RBAC_SIGNING_KEY is a placeholder"),
        ({"RBAC_SIGNING_KEY": "k3y-Short-9"}, "RBAC_SIGNING_KEY is shorter than 32"),
        ({"RBAC_SIGNING_KEY": "changeme"}, "RBAC_SIGNING_KEY is a placeholder"),
        ({"RBAC_SIGNING_KEY": "CHANGEME"}, "RBAC_SIGNING_KEY is a placeholder"),
        ({"RBAC_SIGNING_KEY": "replace-me-with-a-long-random-secret-value"}, "placeholder"),
        ({"RBAC_SIGNING_KEY": "a-real-secret"}, "shorter than 32"),
        ({"RBAC_SIGNING_KEY": "a" * 40}, "random"),
    ],
)
def test_prod_refuses_unsafe_settings(override: dict[str, object], needle: str) -> None:
    settings = make_settings(**{**PROD_OK, **override})
    with pytest.raises(ConfigError) as err:
        create_app(settings)
    assert needle in str(err.value)


def test_prod_can_disable_a_platform_explicitly() -> None:
    assert make_settings(**{**PROD_OK, "MICROSOFT_APP_ID": None, "TEAMS_ENABLED": False}).startup_problems() == []
    assert make_settings(**{**PROD_OK, "SLACK_SIGNING_SECRET": None, "SLACK_ENABLED": False}).startup_problems() == []


def test_dev_without_signing_secret_does_not_serve_slack_http() -> None:
    settings = make_settings(SLACK_SIGNING_SECRET=None)
    app = create_app(settings)
    assert not any(r.resource and r.resource.canonical == "/slack/events" for r in app.router.routes())


def test_missing_policy_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RbacPolicyError, match="not found"):
        check_startup(make_settings(RBAC_POLICY_FILE=str(tmp_path / "nope.yaml")))


def test_server_build_refuses_prod_without_app_id() -> None:
    from bot.server import build

    with pytest.raises(ConfigError, match="MICROSOFT_APP_ID"):
        build(make_settings(**{**PROD_OK, "MICROSOFT_APP_ID": None}))
