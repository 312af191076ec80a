"""Core commands of the ``benefitsbot`` CLI: ingest, ask, eval. (``serve`` lives in bot/.)"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from datetime import date
from pathlib import Path
from typing import Any

from rag_core.errors import BenefitsBotError
from rag_core.settings import CoreSettings

# The identity `ask` uses when no --groups is given: an ordinary employee with no state on file,
# so a new user gets an answer from the documents every employee may see.
DEFAULT_CLI_GROUPS = ("employees",)
DEFAULT_CLI_SUBJECT = "cli-user"


def _settings(args: argparse.Namespace) -> CoreSettings:
    overrides: dict[str, Any] = {}
    if getattr(args, "data_dir", None):
        overrides["BENEFITSBOT_DATA_DIR"] = str(args.data_dir)
    return CoreSettings(**overrides)


def add_core_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    ingest = sub.add_parser("ingest", help="ingest a folder of PDFs/markdown (with optional catalog.yaml)")
    ingest.add_argument("path", type=Path)
    ingest.add_argument("--data-dir", type=Path)
    ingest.add_argument("--json", action="store_true", help="print the summary as JSON")
    ingest.add_argument("--no-progress", action="store_true")
    ingest.set_defaults(handler=cmd_ingest)

    ask = sub.add_parser("ask", help="ask one question as a given identity")
    ask.add_argument("question")
    ask.add_argument("--groups", help=f"comma-separated ACL groups (default: {','.join(DEFAULT_CLI_GROUPS)})")
    ask.add_argument("--state", help="two-letter US state of the asker, e.g. CA")
    ask.add_argument("--language", help="only documents in this language (e.g. es)")
    ask.add_argument("--as-of", type=date.fromisoformat, help="answer as of this date (YYYY-MM-DD)")
    ask.add_argument("--data-dir", type=Path)
    ask.add_argument("--json", action="store_true")
    ask.set_defaults(handler=cmd_ask)

    from rag_core.eval.cli import add_eval_command

    add_eval_command(sub)


def cmd_ingest(args: argparse.Namespace) -> int:
    from rag_core.index import open_index
    from rag_core.ingest.pipeline import Ingestor

    settings = _settings(args)
    if not args.path.is_dir():
        print(f"error: {args.path} is not a folder", file=sys.stderr)
        return 2

    async def run() -> int:
        index = open_index(settings)
        try:
            summary = await Ingestor.from_settings(index, settings, progress=not args.no_progress).run(args.path)
        finally:
            await index.aclose()
        print(json.dumps(summary.to_json(), indent=2) if args.json else summary.render())
        return 1 if summary.failed else 0

    return asyncio.run(run())


def cmd_ask(args: argparse.Namespace) -> int:
    from rag_core.access import mint_token
    from rag_core.pipeline import build_pipeline

    settings = _settings(args)
    groups = [g.strip() for g in (args.groups or ",".join(DEFAULT_CLI_GROUPS)).split(",") if g.strip()]
    token = mint_token(settings.rbac_signing_key.get_secret_value(), subject=DEFAULT_CLI_SUBJECT,
                       acl_groups=groups, state=args.state, language=args.language)

    async def run() -> int:
        pipeline = build_pipeline(settings)
        try:
            answer = await pipeline.answer(args.question, token, as_of=args.as_of)
        finally:
            await pipeline.aclose()
        if args.json:
            print(json.dumps(answer.to_public_dict(), indent=2))
        else:
            print(render_text(answer))
        return 0

    return asyncio.run(run())


def render_text(answer: Any) -> str:
    lines = [answer.answer]
    for notice in answer.notices:
        lines.append(f"Note: {notice}")
    if answer.citations:
        lines.append("")
        lines.append("Sources:")
        for citation in answer.citations:
            lines.append(f"  [^{citation.chunk_id}] {citation.title}, page {citation.page} — {citation.source_uri}")
    lines.append(f"HR contact: {answer.hr_contact}")
    return "\n".join(lines)


def run_cli(parser: argparse.ArgumentParser, argv: list[str] | None = None) -> int:
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 2
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "WARNING"), format="%(message)s")
    try:
        return int(args.handler(args))
    except BenefitsBotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a missing or unreadable file named on the command line
        print(f"error: {exc}", file=sys.stderr)
        return 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="benefitsbot", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    add_core_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    return run_cli(build_parser(), argv)
