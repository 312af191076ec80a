"""The `benefitsbot` command line: serve's flags, quiet output (no bars off a terminal, none from
model loading without -v), errors that name the data directory, the placeholder HR contact."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main as cli
from rag_core.cli import add_verbose_flags, build_parser
from tests.bot.harness import REPO


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A folder with no .env and none of the settings in the environment."""
    for name in ("BENEFITSBOT_DATA_DIR", "HR_CONTACT_URL", "QDRANT_URL", "PORT", "HOST", "LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.unit
def test_serve_takes_data_dir_host_and_port(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    monkeypatch.setattr("bot.server.run", seen.append)
    assert cli(["serve", "--data-dir", "somewhere", "--port", "4000", "--host", "127.0.0.1"]) == 0
    [settings] = seen
    assert (settings.data_dir, settings.port, settings.host) == (Path("somewhere"), 4000, "127.0.0.1")


@pytest.mark.unit
def test_verbose_is_accepted_before_and_after_the_command() -> None:
    parser = build_parser()
    add_verbose_flags(parser)
    assert parser.parse_args(["ask", "q", "-v"]).verbose == 1
    assert parser.parse_args(["-vv", "ask", "q"]).verbose == 2
    assert parser.parse_args(["ask", "q"]).verbose == 0


@pytest.mark.integration
def test_an_empty_index_error_names_the_data_directory(clean_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = clean_env / "nothing-here"
    assert cli(["ask", "How much is the dental deductible?", "--data-dir", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "error: " in err and f"data directory {empty.resolve()} (from --data-dir)" in err
    assert "warning: HR_CONTACT_URL is the placeholder https://hr.example.com/contact" in err
    assert "Traceback" not in err and '"query_id"' not in err  # no log record, just the error


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, output to a pipe (not a terminal), stderr merged like a log."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HR_CONTACT_URL": "https://hr.fabrikam.example/contact",
    }
    for name in ("HF_HUB_DISABLE_PROGRESS_BARS", "TRANSFORMERS_VERBOSITY", "LOG_LEVEL", "BENEFITSBOT_DATA_DIR"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        cwd=cwd,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=600,
        check=False,
    )


@pytest.mark.integration
@pytest.mark.slow
def test_quiet_output_in_a_log(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "tuition.md").write_text(
        "# Tuition Assistance\n\nFabrikam reimburses up to **$6,000** a year for approved courses.\n", encoding="utf-8"
    )
    (corpus / "empty.md").write_text("", encoding="utf-8")
    data = tmp_path / "data"

    ingest = run("ingest", str(corpus), "--data-dir", str(data), cwd=tmp_path)
    assert ingest.returncode == 0, ingest.stdout
    assert "\r" not in ingest.stdout and "Loading weights" not in ingest.stdout and "%|" not in ingest.stdout
    lines = ingest.stdout.splitlines()
    assert lines[0] == "documents: 2 (1 ingested, 0 unchanged, 0 removed, 1 empty, 0 failed)"
    assert "EMPTY empty.md: the file has no text" in lines

    listed = run("ingest", str(corpus), "--data-dir", str(data), "--json", cwd=tmp_path)
    files = {f["file"]: f for f in json.loads(listed.stdout)["files"]}
    assert files["tuition.md"]["status"] == "unchanged" and files["tuition.md"]["chunks"] == 1
    assert files["empty.md"]["status"] == "empty"

    ask = run("ask", "How much tuition does Fabrikam reimburse?", "--data-dir", str(data), cwd=tmp_path)
    assert ask.returncode == 0, ask.stdout
    assert "Loading weights" not in ask.stdout and "%|" not in ask.stdout and "\r" not in ask.stdout
    assert ask.stdout.startswith("Fabrikam reimburses up to $6,000 a year")  # plain text, not **$6,000**
    assert "Tuition Assistance, page 1" in ask.stdout  # the heading is the title, not "tuition"


@pytest.mark.unit
def test_ask_prints_an_abstentions_help_as_the_chat_surfaces_do(monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import date

    from bot.reply import abstention_help
    from rag_core.cli import render_text
    from rag_core.types import AbstainDetail, AbstainReason, Answer, DocumentRef, OtherJurisdiction

    parsed: list[Any] = []
    monkeypatch.setattr("bot.cli.run_cli", lambda parser, argv: parsed.append(parser.parse_args(argv)) or 0)
    assert cli(["ask", "How many weeks of parental leave do I get in California?"]) == 0
    assert parsed[0].abstention_help is abstention_help  # the core's `ask` gets the edge's sentences

    ca = DocumentRef(document_id="ca", title="California Parental Leave 2026", effective_date=date(2026, 1, 1))
    answer = Answer(
        answer="I answer from the policies for your work location on file.",
        abstained=True,
        abstain_reason=AbstainReason.OTHER_JURISDICTION,
        abstain_detail=AbstainDetail(other_jurisdiction=OtherJurisdiction(state="California", document=ca)),
        hr_contact="https://hr.example.com/contact",
        model="extractive",
    )
    text = render_text(answer, abstention_help)
    assert "“California Parental Leave 2026” covers employees who work in California" in text
    assert "covers employees" not in render_text(answer)  # the core alone adds nothing
