"""Core commands of the ``benefitsbot`` CLI: ingest, ask, eval. (``serve`` lives in bot/.)"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from rag_core.console import index_location, quiet_model_loading, show_progress
from rag_core.errors import BenefitsBotError, IndexUnavailable, InvalidInput
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
    ingest.add_argument(
        "--json",
        action="store_true",
        help="print the summary as JSON, with each file's status, chunks and unsearchable pages",
    )
    ingest.add_argument("--no-progress", action="store_true", help="no progress bar (never shown off a terminal)")
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
            summary = await Ingestor.from_settings(index, settings, progress=show_progress(args.no_progress)).run(
                args.path
            )
        finally:
            await index.aclose()
        print(json.dumps(summary.to_json(), indent=2) if args.json else summary.render())
        return 1 if summary.failed else 0

    return asyncio.run(run())


def _state_code(value: str | None) -> str | None:
    """``--state``: a two-letter US state code (any case), or an error listing the valid ones; a
    typo must not silently become "no state" (US-wide documents only)."""
    from rag_core.jurisdictions import STATE_CODES

    if value is None:
        return None
    code = value.strip().upper()
    if code not in STATE_CODES:
        raise InvalidInput(f"--state {value!r} is not a US state code; valid codes: {', '.join(sorted(STATE_CODES))}")
    return code


def cmd_ask(args: argparse.Namespace) -> int:
    from rag_core.access import mint_token
    from rag_core.pipeline import build_pipeline

    settings = _settings(args)
    warn_placeholder_contact(settings)
    state = _state_code(args.state)
    groups = [g.strip() for g in (args.groups or ",".join(DEFAULT_CLI_GROUPS)).split(",") if g.strip()]
    token = mint_token(
        settings.rbac_signing_key.get_secret_value(),
        subject=DEFAULT_CLI_SUBJECT,
        acl_groups=groups,
        state=state,
        language=args.language,
    )

    async def run() -> int:
        pipeline = build_pipeline(settings)
        try:
            answer = await pipeline.answer(args.question, token, as_of=args.as_of)
        finally:
            await pipeline.aclose()
        if args.json:
            print(json.dumps(answer.to_public_dict(), indent=2))
        else:
            print(render_text(answer, getattr(args, "abstention_help", None)))
        return 0

    return asyncio.run(run())


def warn_placeholder_contact(settings: CoreSettings) -> None:
    if settings.hr_contact_is_placeholder:
        print(
            f"warning: HR_CONTACT_URL is the placeholder {settings.hr_contact_url}; set it to your HR "
            "contact page (every answer links to it)",
            file=sys.stderr,
        )


def render_text(answer: Any, abstention_help: Callable[[Any], list[str]] | None = None) -> str:
    """The answer as plain text. ``abstention_help``: the sentences an abstention's detail adds (the
    chat edge writes them, ``bot.reply.abstention_help``; ``benefitsbot`` passes it in, as the core
    never imports the edge)."""
    lines = [answer.answer]
    if answer.abstained and abstention_help is not None:
        lines.extend(abstention_help(answer.abstain_detail))
    for notice in answer.notices:
        lines.append(f"Note: {notice}")
    if answer.citations:
        lines.append("")
        lines.append("Sources:")
        for citation in answer.citations:
            lines.append(f"  [^{citation.chunk_id}] {citation.title}, page {citation.page} — {citation.source_uri}")
    lines.append(f"HR contact: {answer.hr_contact}")
    return "\n".join(lines)


def add_verbose_flags(parser: argparse.ArgumentParser) -> None:
    """``-v`` on every command (``benefitsbot ask "..." -v``): model loading bars and INFO logs;
    ``-vv``: DEBUG."""
    verbose_help = "show model loading progress and more log lines (-vv: debug)"
    parser.add_argument("-v", "--verbose", action="count", default=0, help=verbose_help)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS, help=verbose_help)


def configure_logging(args: argparse.Namespace) -> None:
    """Commands print their results; logs are for problems unless -v (``serve`` logs at INFO: it is
    a service). LOG_LEVEL, when set, wins."""
    verbose = int(getattr(args, "verbose", 0))
    if verbose == 0:
        quiet_model_loading()
    default = getattr(args, "log_level", "WARNING")
    level = "DEBUG" if verbose >= 2 else ("INFO" if verbose == 1 else default)
    service_format = "%(asctime)s %(levelname)s %(name)s: %(message)s"
    logging.basicConfig(
        level=os.environ.get("LOG_LEVEL", level), format="%(message)s" if default == "WARNING" else service_format
    )
    if verbose == 0 and default == "WARNING":
        # The per-question record (and its error line) is the service's log; the CLI prints the outcome.
        logging.getLogger("benefitsbot.query").setLevel(logging.CRITICAL)


def run_cli(parser: argparse.ArgumentParser, argv: list[str] | None = None) -> int:
    add_verbose_flags(parser)
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 2
    configure_logging(args)
    try:
        return int(args.handler(args))
    except IndexUnavailable as exc:
        print(
            f"error: {exc}\n  index: {index_location(_settings(args), getattr(args, 'data_dir', None))}",
            file=sys.stderr,
        )
        return 2
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
