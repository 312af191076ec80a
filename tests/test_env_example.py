"""Every setting is documented in .env.example, and nothing there is unknown to the settings."""

import re
from pathlib import Path

import pytest

from bot.settings import BotSettings


@pytest.mark.unit
def test_env_example_matches_the_settings_object() -> None:
    text = (Path(__file__).resolve().parents[1] / ".env.example").read_text(encoding="utf-8")
    documented = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", text, re.MULTILINE))
    aliases = {field.alias or name.upper() for name, field in BotSettings.model_fields.items()}
    assert aliases - documented == set(), "settings missing from .env.example"
    assert documented - aliases == set(), ".env.example names no setting reads"


@pytest.mark.unit
def test_copying_env_example_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """`cp .env.example .env` must not turn anything on: every credential and external service is
    commented out, and every uncommented value is the default."""
    for field in BotSettings.model_fields.values():
        if field.alias:
            monkeypatch.delenv(field.alias, raising=False)
    example = Path(__file__).resolve().parents[1] / ".env.example"
    copied = BotSettings(_env_file=example)  # type: ignore[call-arg]
    defaults = BotSettings(_env_file=None)  # type: ignore[call-arg]
    assert copied.model_dump() == defaults.model_dump()
    assert not copied.slack_bot_token_value and not copied.redis_url and not copied.microsoft_app_id
