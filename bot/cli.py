"""The ``benefitsbot`` command: the core's ingest/ask/eval plus ``serve`` (the chat front door and
the playground) and ``report`` (what the bot could not answer)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

from rag_core.cli import build_parser, run_cli


def _say(text: str, *, error: bool = False) -> None:
    """Command output (the service itself only logs)."""
    (sys.stderr if error else sys.stdout).write(text + "\n")


def _bot_settings(args: argparse.Namespace) -> Any:
    from bot.settings import BotSettings

    overrides: dict[str, Any] = {}
    if getattr(args, "data_dir", None):
        overrides["BENEFITSBOT_DATA_DIR"] = str(args.data_dir)
    if getattr(args, "port", None):
        overrides["PORT"] = args.port
    if getattr(args, "host", None):
        overrides["HOST"] = args.host
    return BotSettings(**overrides)


def cmd_serve(args: argparse.Namespace) -> int:
    from bot.server import run

    run(_bot_settings(args))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from bot.errors import StoreUnavailable
    from bot.report import build_report
    from bot.startup import store_line
    from bot.store import RedisStore

    settings = _bot_settings(args)
    if args.days < 1 or args.days > settings.report_retention_days:
        _say(
            f"error: --days must be between 1 and REPORT_RETENTION_DAYS ({settings.report_retention_days})", error=True
        )
        return 2
    if not settings.redis_url:
        _say(
            "error: the report is kept in the bot's store and REDIS_URL is not set, so it lives in the memory "
            f"of the running `benefitsbot serve`: open its report page, http://localhost:{settings.port}/report",
            error=True,
        )
        return 2

    async def run() -> int:
        store = RedisStore(settings.redis_url, retry_interval_s=0)
        try:
            try:
                await store.ping()
            except StoreUnavailable as exc:
                _say(f"error: cannot read the report: {exc} ({store_line(settings)})", error=True)
                return 2
            report = await build_report(
                store,
                days=args.days,
                today=settings.today or date.today(),
                questions_stored=settings.report_store_questions,
            )
        finally:
            await store.close()
        _say(json.dumps(report.to_json(), indent=2) if args.json else report.render())
        return 0

    return asyncio.run(run())


def add_bot_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    serve = sub.add_parser("serve", help="run the Slack and Teams front door and the playground (aiohttp)")
    serve.add_argument("--data-dir", type=Path, help="the index to answer from (default: BENEFITSBOT_DATA_DIR)")
    serve.add_argument("--host", help="address to listen on (default: HOST, 0.0.0.0)")
    serve.add_argument("--port", type=int, help="port to listen on (default: PORT, 3978)")
    serve.set_defaults(handler=cmd_serve, log_level="INFO")

    report = sub.add_parser("report", help="what the bot abstained on and what got thumbs-down, by topic")
    report.add_argument("--days", type=int, default=7, help="the last N days (default 7)")
    report.add_argument("--json", action="store_true")
    report.set_defaults(handler=cmd_report)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    add_bot_commands(sub)
    from bot.reply import abstention_help

    # `ask` prints an abstention's help as Slack and Teams show it ("… ask HR to update your record").
    sub.choices["ask"].set_defaults(abstention_help=abstention_help)
    return run_cli(parser, argv)


if __name__ == "__main__":
    sys.exit(main())
