"""The ``benefitsbot`` command: the core's ingest/ask/eval plus ``serve`` (the chat front door)."""

from __future__ import annotations

import argparse
import sys

from rag_core.cli import build_parser, run_cli


def cmd_serve(args: argparse.Namespace) -> int:
    from bot.server import run
    from bot.settings import BotSettings

    settings = BotSettings()
    if args.port:
        settings = settings.model_copy(update={"port": args.port})
    run(settings)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    serve = sub.add_parser("serve", help="run the Slack and Teams front door (aiohttp)")
    serve.add_argument("--port", type=int)
    serve.set_defaults(handler=cmd_serve)
    return run_cli(parser, argv)


if __name__ == "__main__":
    sys.exit(main())
