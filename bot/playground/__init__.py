"""The web playground: ask as any identity and see what Slack and Teams would show, and why.

``GET /`` (the form), ``POST /playground/ask``, ``GET /report`` (+ ``/report.json``), and the page's
own CSS and script. Mounted by ``create_app`` in dev mode, and in production only behind
``PLAYGROUND_ADMIN_TOKEN`` (see :mod:`bot.playground.guard`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

from bot.core_service import AnswerService
from bot.playground.guard import guarded, playground_served
from bot.playground.views import Playground

if TYPE_CHECKING:
    from bot.app import BotComponents

__all__ = ["mount_playground", "playground_served"]


def mount_playground(app: web.Application, parts: BotComponents, service: AnswerService) -> Playground:
    playground = Playground(parts.settings, parts.policy, service, parts.answerer, parts.store)
    settings = parts.settings
    app.router.add_get("/", guarded(settings, playground.index))
    app.router.add_post("/playground/ask", guarded(settings, playground.ask))
    app.router.add_get("/report", guarded(settings, playground.report))
    app.router.add_get("/report.json", guarded(settings, playground.report_json))
    app.router.add_get("/playground/static/{name}", guarded(settings, playground.static))
    return playground
