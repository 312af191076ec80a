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
            offenders += [f"{path.relative_to(REPO)}: {n}" for n in names if n == "bot" or n.startswith("bot.")]
    assert offenders == []


def test_renderers_import_only_the_reply_model() -> None:
    """Block Kit and Adaptive Card rendering depend on the reply model and shared text helpers,
    never on how a question was decided (answering, guards, the core service)."""
    allowed = {"bot.reply", "bot.render"}
    for path in (REPO / "bot/slack/blocks.py", REPO / "bot/teams/cards.py", REPO / "bot/teams/ai_message.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert {m for m in imported if m == "bot" or m.startswith("bot.")} <= allowed, path


def test_the_read_path_never_imports_ingestion() -> None:
    """Serving questions loads the answer pipeline, the edge and the manifest reader, never the
    ingestion code (PDF parsing, chunking): checked in a fresh interpreter."""
    import subprocess
    import sys

    probe = (
        "import sys, bot.app, bot.core_service, rag_core.pipeline, rag_core.index.manifest, rag_core.eval.harness; "
        "print([m for m in sys.modules if m.startswith('rag_core.ingest')])"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.integration
async def test_debug_logging_does_not_leak_questions(slack: SlackHarness, caplog: pytest.LogCaptureFixture) -> None:
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
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "print"]
        assert calls == [], path
