"""The Teams app manifest's prompt starters: the configured default questions, within the schema's
limits (v1.16: at most 10 commands, title 32 characters, description 128)."""

from __future__ import annotations

import json

import pytest

from bot.settings import DEFAULT_SUGGESTED_PROMPTS
from tests.bot.harness import REPO

pytestmark = pytest.mark.unit


def test_prompt_starters_are_the_default_prompts() -> None:
    manifest = json.loads((REPO / "deploy" / "teams" / "manifest.json").read_text(encoding="utf-8"))
    [bot] = manifest["bots"]
    for command_list in bot["commandLists"]:
        commands = command_list["commands"]
        assert [c["title"] for c in commands] == list(DEFAULT_SUGGESTED_PROMPTS)
        assert len(commands) <= 10
        assert all(len(c["title"]) <= 32 and 0 < len(c["description"]) <= 128 for c in commands)
        assert set(command_list["scopes"]) <= {"personal", "team", "groupChat"}
