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
