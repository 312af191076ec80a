"""What ``benefitsbot serve`` tells the operator at start-up: one line per surface, on or off and why.

A fresh clone must not have to read /readyz to learn that Slack is not served or that answers come
from an empty index. The static lines are derived from the settings with the same predicates the
app is built from; the index line follows once the models are loaded and the index is open.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from urllib.parse import urlsplit

from aiohttp import web

from bot.core_service import AnswerService, CoreAnswerService
from bot.devmode import DevDirectory
from bot.settings import BotSettings
from rag_core.errors import BenefitsBotError

log = logging.getLogger("benefitsbot.startup")

_INDEX_TASK = web.AppKey("benefitsbot.index_announcement", asyncio.Task[None])


def slack_line(settings: BotSettings, dev: DevDirectory | None) -> str:
    if not settings.slack_enabled:
        return "slack: off (SLACK_ENABLED=false)"
    if dev is not None:
        signed = "signatures verified" if settings.slack_signing_secret_value else "unsigned: no SLACK_SIGNING_SECRET"
        return (
            f"slack: dev, no SLACK_BOT_TOKEN: POST /slack/events answers Slack-shaped requests in the HTTP "
            f"response as the dev identity ({dev.describe()}; {signed})"
        )
    parts = []
    if settings.slack_http_active:
        parts.append("POST /slack/events, signatures verified")
    else:
        parts.append("POST /slack/events NOT served: SLACK_SIGNING_SECRET is not set (signatures are always verified)")
    parts.append("Socket Mode on" if settings.slack_socket_mode_active else "Socket Mode off (no SLACK_APP_TOKEN)")
    return "slack: on, " + "; ".join(parts)


def teams_line(settings: BotSettings, dev: DevDirectory | None) -> str:
    if not settings.teams_enabled:
        return "teams: off (TEAMS_ENABLED=false)"
    auth = (
        "Bot Framework authentication on"
        if settings.teams_auth_enabled
        else "Bot Framework authentication OFF: no MICROSOFT_APP_ID (dev only; the Bot Framework Emulator "
        "works without an app id)"
    )
    who = (
        f"askers are the dev identity ({dev.describe()}): Graph credentials not set"
        if dev is not None
        else "identities from Microsoft Graph"
    )
    return f"teams: on, POST /api/messages; {auth}; {who}"


def store_line(settings: BotSettings) -> str:
    if settings.redis_url:
        url = urlsplit(settings.redis_url)
        where = f"{url.hostname}:{url.port or 6379}{url.path or ''}"  # never the password
        return f"store: redis at {where}"
    return "store: in-process memory (no REDIS_URL; dev only: nothing is shared between processes or kept)"


def playground_line(settings: BotSettings, served: bool) -> str:
    if not served:
        return "playground: off (prod without PLAYGROUND_ADMIN_TOKEN)"
    guard = (
        "admin credential required (PLAYGROUND_ADMIN_TOKEN)"
        if settings.playground_admin_token_value
        else "open: dev mode"
    )
    host = "localhost" if settings.host in ("0.0.0.0", "::", "") else settings.host
    return f"playground: http://{host}:{settings.port}/ ({guard}); report page /report"


def report_line(settings: BotSettings) -> str:
    questions = (
        f"question text kept {settings.report_question_days} days (REPORT_STORE_QUESTIONS=true)"
        if settings.report_store_questions
        else "topic words only, no question text"
    )
    return f"report: abstentions and thumbs-down by topic, kept {settings.report_retention_days} days; {questions}"


def warnings(settings: BotSettings) -> list[str]:
    found = []
    if settings.hr_contact_is_placeholder:
        found.append(
            f"HR_CONTACT_URL is the placeholder {settings.hr_contact_url}: every answer links to it. "
            "Set HR_CONTACT_URL to your HR contact page."
        )
    return found


def index_where(settings: BotSettings) -> str:
    if settings.qdrant_url:
        return f"Qdrant server {settings.qdrant_url}, collection {settings.qdrant_collection}"
    return f"embedded index in {settings.data_dir.resolve()}"


@dataclass(frozen=True)
class IndexStatus:
    """What the answers come from: the start-up line, and the playground's status bar."""

    ok: bool
    where: str
    documents: int = 0
    chunks: int = 0
    model: str = ""
    answers: str = ""
    problem: str = ""

    @property
    def summary(self) -> str:
        if not self.ok:
            return f"NOT READY: {self.problem}"
        return f"{self.documents} documents, {self.chunks} chunks, model {self.model}; answers: {self.answers}"

    @property
    def line(self) -> str:
        if not self.ok:
            return f"index: NOT READY ({self.where}): {self.problem}"
        return (
            f"index: {self.documents} documents, {self.chunks} chunks, model {self.model} ({self.where}); "
            f"answers: {self.answers}"
        )


async def index_status(settings: BotSettings, service: CoreAnswerService) -> IndexStatus:
    """Documents, chunks, model and generator once the pipeline is built, or why not."""
    where = index_where(settings)
    try:
        pipeline = await service.pipeline()
        manifest = await pipeline.corpus.manifest()
    except BenefitsBotError as exc:
        return IndexStatus(False, where, problem=str(exc))
    except Exception as exc:  # noqa: BLE001 - a model that fails to load: say so, the server keeps running
        return IndexStatus(False, where, problem=f"{type(exc).__name__}: {exc}")
    generator = getattr(pipeline.stage("generate"), "generator", None)
    return IndexStatus(
        True,
        where,
        len(manifest.documents),
        sum(len(r.chunk_ids) for r in manifest.documents.values()),
        manifest.embedding_model,
        str(getattr(generator, "model_name", "?")),
    )


def announce(
    app: web.Application,
    settings: BotSettings,
    service: AnswerService,
    *,
    slack_dev: DevDirectory | None,
    teams_dev: DevDirectory | None,
    playground: bool,
) -> None:
    """Register the start-up lines on ``app`` (logged when it starts, not when it is built)."""

    async def on_startup(_: web.Application) -> None:
        log.info("BenefitsBot %s mode", settings.env)
        for line in (
            slack_line(settings, slack_dev),
            teams_line(settings, teams_dev),
            store_line(settings),
            playground_line(settings, playground),
            report_line(settings),
        ):
            log.info("%s", line)
        for warning in warnings(settings):
            log.warning("%s", warning)
        if isinstance(service, CoreAnswerService):
            app[_INDEX_TASK] = asyncio.get_running_loop().create_task(_announce_index(service), name="announce-index")
        else:
            log.info("index: answer service %s (no index of its own)", type(service).__name__)

    async def _announce_index(core: CoreAnswerService) -> None:
        status = await index_status(settings, core)
        log.log(logging.INFO if status.ok else logging.ERROR, "%s", status.line)

    async def on_cleanup(_: web.Application) -> None:
        task = app.get(_INDEX_TASK)
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)
