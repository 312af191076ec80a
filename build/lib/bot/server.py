"""``benefitsbot serve``: build the app from settings and run it until stopped."""

from __future__ import annotations

import logging

from aiohttp import web

from bot.app import create_app
from bot.settings import BotSettings

log = logging.getLogger(__name__)


def build(settings: BotSettings) -> web.Application:
    """The production application (raises :class:`bot.errors.ConfigError` on unsafe settings)."""
    return create_app(settings)


def run(settings: BotSettings) -> None:
    """Serve Slack, Teams, /healthz, /readyz and /metrics on ``HOST:PORT`` (blocking)."""
    app = build(settings)
    log.info("BenefitsBot (%s) listening on %s:%s", settings.env, settings.host, settings.port)
    web.run_app(app, host=settings.host, port=settings.port, print=None)
