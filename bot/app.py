"""The application factory: one aiohttp app hosting Slack, Teams, health and metrics.

Everything external is injectable (answer service, store, Slack client, Teams credentials,
Graph tokens, index probe) so tests drive the real app over HTTP against local fakes, and the
production defaults are built only when nothing is injected.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from aiohttp import web
from botframework.connector.auth import ServiceClientCredentialsFactory
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot import startup
from bot.answering import Answerer
from bot.core_service import AnswerService, CoreAnswerService, IndexAware, Lifecycle
from bot.devmode import DevDirectory, uses_dev_identity
from bot.errors import ConfigError, IdentityLookupError
from bot.health import Health, IndexProbe
from bot.log_privacy import protect_logs
from bot.observability import Metrics
from bot.playground import mount_playground, playground_served
from bot.rbac import RbacPolicy, load_policy
from bot.report import ReportRecorder, vocabulary_of
from bot.settings import BotSettings
from bot.slack.app import SlackEdge
from bot.slack.dev import DevSlackResponder
from bot.slack.directory import SlackDirectory
from bot.store import RedisStore, Store, create_store
from bot.tasks import BackgroundTasks
from bot.teams.bot import TeamsEdge
from bot.teams.directory import TeamsDirectory
from bot.teams.graph import GraphClient, GraphTokenProvider, MsalGraphTokenProvider

log = logging.getLogger(__name__)


@dataclass
class BotComponents:
    """What the app is made of; tests reach in here to drain background work."""

    settings: BotSettings
    answerer: Answerer
    store: Store
    metrics: Metrics
    tasks: BackgroundTasks
    policy: RbacPolicy
    slack: SlackEdge | None = None
    teams: TeamsEdge | None = None
    platforms: dict[str, str] = field(default_factory=dict)


COMPONENTS = web.AppKey("benefitsbot", BotComponents)


class _NoGraphCredentials:
    async def token(self) -> str:
        raise IdentityLookupError(
            "Graph credentials are not configured (MICROSOFT_APP_ID, MICROSOFT_APP_PASSWORD, MICROSOFT_APP_TENANT_ID)"
        )


def check_startup(settings: BotSettings) -> RbacPolicy:
    """Refuse unsafe configurations (prod) and load the RBAC policy; raise :class:`ConfigError`."""
    problems = settings.startup_problems()
    if problems:
        raise ConfigError(problems)
    return load_policy(settings.rbac_policy_file)


def default_slack_client(settings: BotSettings) -> AsyncWebClient:
    return AsyncWebClient(
        token=settings.slack_bot_token_value,
        base_url=settings.slack_api_base_url,
        timeout=10,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(),
            AsyncRateLimitErrorRetryHandler(max_retry_count=2),
        ],
    )


def default_graph_tokens(settings: BotSettings) -> GraphTokenProvider:
    if settings.microsoft_app_id and settings.microsoft_app_password_value and settings.microsoft_app_tenant_id:
        return MsalGraphTokenProvider(
            settings.microsoft_app_id, settings.microsoft_app_password_value, settings.microsoft_app_tenant_id
        )
    return _NoGraphCredentials()


def create_app(
    settings: BotSettings,
    answer_service: AnswerService | None = None,
    store: Store | None = None,
    *,
    policy: RbacPolicy | None = None,
    slack_client: AsyncWebClient | None = None,
    teams_credentials_factory: ServiceClientCredentialsFactory | None = None,
    graph_token_provider: GraphTokenProvider | None = None,
    index_probe: IndexProbe | None = None,
) -> web.Application:
    """Build the service. Raises :class:`ConfigError` for configurations that must not serve traffic."""
    loaded_policy = check_startup(settings)
    protect_logs(settings.log_queries)
    policy = policy or loaded_policy
    owns_store = store is None
    store = store or create_store(settings.redis_url, retry_interval_s=settings.redis_retry_interval_s)
    service: AnswerService = answer_service or CoreAnswerService.from_settings(settings)
    metrics = Metrics()
    if isinstance(store, RedisStore):
        store.on_state_change = lambda up: metrics.store_up.set(1 if up else 0)
    tasks = BackgroundTasks()
    answerer = Answerer(settings, service, store, metrics, ReportRecorder(store, settings, vocabulary_of(service)))
    parts = BotComponents(settings, answerer, store, metrics, tasks, policy)
    app = web.Application()
    app[COMPONENTS] = parts
    slack_dev = DevDirectory.from_settings("slack", settings, policy) if uses_dev_identity(settings, "slack") else None
    teams_dev = DevDirectory.from_settings("teams", settings, policy) if uses_dev_identity(settings, "teams") else None

    if settings.slack_enabled and slack_dev is not None:
        responder = DevSlackResponder(answerer, slack_dev, settings.slack_signing_secret_value)
        app.router.add_post("/slack/events", responder.handle_http)
        parts.platforms["slack"] = "dev: answered in the HTTP response as the dev identity"
    elif settings.slack_enabled and settings.slack_bot_token_value:
        client = slack_client or default_slack_client(settings)
        directory = SlackDirectory(
            client,
            policy,
            store,
            ttl_s=settings.group_cache_ttl_s,
            state_field=settings.slack_state_profile_field,
            max_members=settings.audience_max_members,
        )
        parts.slack = SlackEdge(settings, answerer, directory, store, metrics, tasks, client)
        protect_logs(settings.log_queries)  # bolt created its loggers just now
        if settings.slack_http_active:
            app.router.add_post("/slack/events", parts.slack.handle_http)
            parts.platforms["slack_http"] = "on"
        else:  # said once at start-up (bot.startup)
            parts.platforms["slack_http"] = "off: no signing secret"
        if settings.slack_socket_mode_active:
            slack_edge = parts.slack

            async def start_socket_mode(_: web.Application) -> None:
                await slack_edge.start_socket_mode()

            async def stop_socket_mode(_: web.Application) -> None:
                await slack_edge.stop_socket_mode()

            app.on_startup.append(start_socket_mode)
            app.on_shutdown.append(stop_socket_mode)
            parts.platforms["slack_socket_mode"] = "on"
    else:
        parts.platforms["slack"] = "off"

    graph: GraphClient | None = None
    if settings.teams_enabled:
        graph = GraphClient(settings.graph_api_base_url, graph_token_provider or default_graph_tokens(settings))
        teams_directory = teams_dev or TeamsDirectory(
            graph, policy, store, ttl_s=settings.group_cache_ttl_s, max_members=settings.audience_max_members
        )
        parts.teams = TeamsEdge(
            settings,
            answerer,
            teams_directory,
            store,
            metrics,
            tasks,
            credentials_factory=teams_credentials_factory,
        )
        app.router.add_post("/api/messages", parts.teams.handle_http)
        parts.platforms["teams"] = "on" if settings.teams_auth_enabled else "on: authentication off (dev)"
    else:
        parts.platforms["teams"] = "off"

    if index_probe is None:
        if isinstance(service, IndexAware):
            index_probe = service.ready
        else:

            async def index_probe() -> tuple[bool, str]:
                return True, "answer service has no readiness probe"

    health = Health(store, index_probe, metrics, parts.platforms)
    app.router.add_get("/healthz", health.healthz)
    app.router.add_get("/readyz", health.readyz)
    app.router.add_get("/metrics", health.metrics)
    served = playground_served(settings)
    if served:
        mount_playground(app, parts, service)
    startup.announce(app, settings, service, slack_dev=slack_dev, teams_dev=teams_dev, playground=served)

    if isinstance(service, Lifecycle):
        lifecycle: Lifecycle = service

        async def start_service(_: web.Application) -> None:
            await lifecycle.start()

        app.on_startup.append(start_service)

    async def cleanup(_: web.Application) -> None:
        await tasks.close()
        if isinstance(service, Lifecycle):
            await service.close()
        if graph is not None:
            await graph.close()
        if owns_store:
            await store.close()

    app.on_cleanup.append(cleanup)
    return app
