"""The one settings object of a running BenefitsBot: the core's settings plus the chat edge's.

Every field reads the environment variable named by its alias (operators rely on these exact
names) and each one is documented in ``.env.example``. ``check_startup`` refuses unsafe
production configurations with one error listing every problem, so an operator fixes them in
one go instead of one restart at a time.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator

from rag_core.settings import CoreSettings

DEV_RBAC_SIGNING_KEY = "dev-only-rbac-key-change-me"
# An admin credential shorter than this is refused in prod: it guards "ask as anyone".
MIN_ADMIN_TOKEN_CHARS = 24
# Opt-in question text in the report is kept at most this long, whatever is configured.
MAX_REPORT_QUESTION_DAYS = 30
DEFAULT_ANSWER_FOOTER = (
    "AI-generated from the official plan documents; the plan documents govern — "
    "a summary is not a guarantee of coverage."
)
# Real questions the sample corpus answers for an ordinary employee (corpus/gold.jsonl has longer
# forms); each fits a Teams command title (32 characters) so the manifest can offer the same ones.
DEFAULT_SUGGESTED_PROMPTS = (
    "What's the PPO deductible?",
    "How long is paid parental leave?",
    "What's the eye exam copay?",
    "How big is the wellness stipend?",
)
MAX_SUGGESTED_PROMPTS = 4  # assistant.threads.setSuggestedPrompts takes at most four
MIN_RBAC_KEY_CHARS = 32  # an HMAC-SHA256 key: at least 32 characters of a random secret
# Values copied from docs and examples rather than generated (compared case-blind, also as substrings
# for the longer marker words, so "changeme-please-0123456789012345678" is refused too).
PLACEHOLDER_SECRETS = frozenset(
    {
        "",
        "a",
        "changeme",
        "change-me",
        "secret",
        "password",
        "test",
        "dev",
        "key",
        "replace-me",
        "replaceme",
        "xxx",
        DEV_RBAC_SIGNING_KEY,
    }
)
_PLACEHOLDER_MARKERS = (
    "changeme",
    "change-me",
    "change_me",
    "replace-me",
    "replaceme",
    "replace_me",
    "placeholder",
    "your-secret",
    "your_secret",
    "example",
    "dev-only",
    "<",
    "xxxx",
)


def weak_rbac_key(key: str) -> str | None:
    """Why ``key`` must not sign production tokens, or None."""
    lowered = key.strip().lower()
    if lowered in PLACEHOLDER_SECRETS or any(marker in lowered for marker in _PLACEHOLDER_MARKERS):
        return "is a placeholder value"
    if len(key) < MIN_RBAC_KEY_CHARS:
        return f"is shorter than {MIN_RBAC_KEY_CHARS} characters"
    if len(set(key)) < 8:
        return "repeats too few characters to be random"
    return None


def _secret(value: SecretStr | None) -> str:
    return value.get_secret_value() if value is not None else ""


class BotSettings(CoreSettings):
    """Core settings plus everything the Slack/Teams edge needs."""

    # Runtime
    env: Literal["dev", "prod"] = Field(default="dev", alias="BENEFITSBOT_ENV")
    host: str = Field(default="0.0.0.0", alias="HOST")
    port: int = Field(default=3978, alias="PORT")

    # Slack
    slack_enabled: bool = Field(default=True, alias="SLACK_ENABLED")
    slack_bot_token: SecretStr | None = Field(default=None, alias="SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = Field(default=None, alias="SLACK_SIGNING_SECRET")
    slack_app_token: SecretStr | None = Field(default=None, alias="SLACK_APP_TOKEN")
    slack_api_base_url: str = Field(default="https://slack.com/api/", alias="SLACK_API_BASE_URL")
    slack_state_profile_field: str | None = Field(default=None, alias="SLACK_STATE_PROFILE_FIELD")

    # Microsoft Teams / Bot Framework / Graph
    teams_enabled: bool = Field(default=True, alias="TEAMS_ENABLED")
    microsoft_app_id: str | None = Field(default=None, alias="MICROSOFT_APP_ID")
    microsoft_app_password: SecretStr | None = Field(default=None, alias="MICROSOFT_APP_PASSWORD")
    microsoft_app_tenant_id: str | None = Field(default=None, alias="MICROSOFT_APP_TENANT_ID")
    teams_openid_metadata_url: str = Field(
        default="https://login.botframework.com/v1/.well-known/openidconfiguration",
        alias="TEAMS_OPENID_METADATA_URL",
    )
    teams_emulator_openid_metadata_url: str = Field(
        default="https://login.microsoftonline.com/botframework.com/v2.0/.well-known/openid-configuration",
        alias="TEAMS_EMULATOR_OPENID_METADATA_URL",
    )
    teams_token_issuer: str = Field(default="https://api.botframework.com", alias="TEAMS_TOKEN_ISSUER")
    graph_api_base_url: str = Field(default="https://graph.microsoft.com/v1.0", alias="GRAPH_API_BASE_URL")

    # Identity and access
    rbac_policy_file: Path = Field(default=Path("deploy/rbac.yaml"), alias="RBAC_POLICY_FILE")
    audience_max_members: int = Field(default=500, alias="AUDIENCE_MAX_MEMBERS")

    # Redis and what it backs
    redis_url: str | None = Field(default=None, alias="REDIS_URL")
    redis_retry_interval_s: float = Field(default=5.0, alias="REDIS_RETRY_INTERVAL_S")
    rate_limit_per_minute: int = Field(default=10, alias="RATE_LIMIT_PER_MINUTE")
    group_cache_ttl_s: int = Field(default=300, alias="GROUP_CACHE_TTL_S")
    answer_cache_ttl_s: int = Field(default=600, alias="ANSWER_CACHE_TTL_S")
    dedupe_ttl_s: int = Field(default=3600, alias="DEDUPE_TTL_S")
    thread_memory_turns: int = Field(default=4, alias="THREAD_MEMORY_TURNS")
    thread_memory_ttl_s: int = Field(default=86400, alias="THREAD_MEMORY_TTL_S")
    feedback_ttl_s: int = Field(default=90 * 86400, alias="FEEDBACK_TTL_S")

    # Answering (MAX_QUESTION_CHARS is a core setting: the core enforces it for every caller)
    answer_timeout_s: float = Field(default=60.0, alias="ANSWER_TIMEOUT_S")

    # Dev mode: who is asking when no platform directory can say (never used in prod)
    dev_identity_groups: str = Field(default="employees", alias="DEV_IDENTITY_GROUPS")
    dev_identity_state: str | None = Field(default=None, alias="DEV_IDENTITY_STATE")

    # Playground (web page to ask as any identity) and its admin credential
    playground_admin_token: SecretStr | None = Field(default=None, alias="PLAYGROUND_ADMIN_TOKEN")

    # Unanswered-topics report
    report_retention_days: int = Field(default=90, ge=1, le=400, alias="REPORT_RETENTION_DAYS")
    report_store_questions: bool = Field(default=False, alias="REPORT_STORE_QUESTIONS")
    report_question_days: int = Field(default=7, ge=1, le=MAX_REPORT_QUESTION_DAYS, alias="REPORT_QUESTION_DAYS")

    # The answer as an AI assistant (both platforms)
    answer_footer: str = Field(default=DEFAULT_ANSWER_FOOTER, alias="ANSWER_FOOTER")
    suggested_prompts: list[str] = Field(
        default_factory=lambda: list(DEFAULT_SUGGESTED_PROMPTS), alias="SUGGESTED_PROMPTS"
    )
    slack_streaming: bool = Field(default=True, alias="SLACK_STREAMING")

    @field_validator("suggested_prompts")
    @classmethod
    def _few_real_prompts(cls, value: list[str]) -> list[str]:
        prompts = [p.strip() for p in value if p.strip()]
        if len(prompts) > MAX_SUGGESTED_PROMPTS:
            raise ValueError(f"SUGGESTED_PROMPTS: Slack shows at most {MAX_SUGGESTED_PROMPTS} prompts")
        return prompts

    # ----- derived views -------------------------------------------------------------
    @property
    def is_prod(self) -> bool:
        return self.env == "prod"

    @property
    def slack_bot_token_value(self) -> str:
        return _secret(self.slack_bot_token)

    @property
    def slack_signing_secret_value(self) -> str:
        return _secret(self.slack_signing_secret)

    @property
    def slack_app_token_value(self) -> str:
        return _secret(self.slack_app_token)

    @property
    def microsoft_app_password_value(self) -> str:
        return _secret(self.microsoft_app_password)

    @property
    def rbac_key(self) -> str:
        return self.rbac_signing_key.get_secret_value()

    @property
    def slack_http_active(self) -> bool:
        """Slack's HTTP endpoint is served only when its signatures can be verified."""
        return self.slack_enabled and bool(self.slack_bot_token_value) and bool(self.slack_signing_secret_value)

    @property
    def slack_socket_mode_active(self) -> bool:
        return self.slack_enabled and bool(self.slack_bot_token_value) and bool(self.slack_app_token_value)

    @property
    def teams_auth_enabled(self) -> bool:
        return bool(self.microsoft_app_id)

    @property
    def graph_configured(self) -> bool:
        """Microsoft Graph can be asked who a Teams user is (app id, secret and tenant all set)."""
        return bool(self.microsoft_app_id and self.microsoft_app_password_value and self.microsoft_app_tenant_id)

    @property
    def playground_admin_token_value(self) -> str:
        return _secret(self.playground_admin_token)

    @property
    def dev_groups(self) -> frozenset[str]:
        return frozenset(g.strip() for g in self.dev_identity_groups.split(",") if g.strip())

    def startup_problems(self) -> list[str]:
        """Every reason this configuration must not serve traffic (empty when it may)."""
        problems: list[str] = []
        if not self.is_prod:
            return problems
        weakness = weak_rbac_key(self.rbac_key)
        if weakness:
            problems.append(
                f"RBAC_SIGNING_KEY {weakness}: in prod it must be a random secret of at least "
                f"{MIN_RBAC_KEY_CHARS} characters (e.g. `python -c 'import secrets; print(secrets.token_urlsafe(48))'`)"
            )
        if not self.redis_url:
            problems.append("REDIS_URL is required in prod (the in-process store is for dev only)")
        if self.slack_enabled:
            if not self.slack_bot_token_value:
                problems.append("SLACK_BOT_TOKEN is required in prod (or set SLACK_ENABLED=false)")
            if not self.slack_signing_secret_value:
                problems.append(
                    "SLACK_SIGNING_SECRET is required in prod: Slack request signatures are always verified "
                    "(or set SLACK_ENABLED=false)"
                )
        if self.teams_enabled:
            if not self.microsoft_app_id:
                problems.append(
                    "MICROSOFT_APP_ID is required in prod: without it Bot Framework authentication is off, "
                    "which is allowed in dev only (or set TEAMS_ENABLED=false)"
                )
            elif not self.microsoft_app_password_value:
                problems.append("MICROSOFT_APP_PASSWORD is required in prod when MICROSOFT_APP_ID is set")
        token = self.playground_admin_token_value
        if token and len(token) < MIN_ADMIN_TOKEN_CHARS:
            problems.append(
                f"PLAYGROUND_ADMIN_TOKEN must be at least {MIN_ADMIN_TOKEN_CHARS} characters in prod "
                "(it lets its holder ask as any identity)"
            )
        return problems


@lru_cache(maxsize=1)
def get_bot_settings() -> BotSettings:
    return BotSettings()
