"""Package boundaries and log privacy that no single feature test would notice breaking."""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import pytest

from tests.bot.harness import EMP, REPO, SlackHarness

pytestmark = pytest.mark.unit


def test_rag_core_never_imports_bot() -> None:
    offenders = []
    for path in (REPO / "rag_core").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [
                f"{path.relative_to(REPO)}: {n}" for n in names if n == "bot" or n.startswith("bot.")
            ]
    assert offenders == []


@pytest.mark.integration
async def test_debug_logging_does_not_leak_questions(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture
) -> None:
    secret_question = "Does my dental plan cover my HIV medication?"
    with caplog.at_level(logging.DEBUG):
        await slack.send_event(slack.dm(EMP, secret_question))
        await slack.drain()
    fake_slack = [r for r in caplog.records if r.name == "aiohttp.access" and " /api/" in r.getMessage()]
    logged = "\n".join(r.getMessage() for r in caplog.records if r not in fake_slack)  # ours only
    assert "HIV" not in logged
    assert EMP not in logged
    assert "xoxb-test" not in logged and "v1." not in logged


def test_bot_package_has_no_print_calls() -> None:
    for path in Path(REPO / "bot").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [
            n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "print"
        ]
        assert calls == [], path
