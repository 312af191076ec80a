"""The playground's pages: ask as anyone and see both renderings and the why; the report page.

Server-rendered with Jinja2 (autoescaping on: document text is untrusted); one small script
(``static/playground.js``) posts the form and swaps in the server's HTML fragment, and the form
works without it too.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from aiohttp import web
from jinja2 import Environment, FileSystemLoader, select_autoescape
from multidict import MultiDictProxy

from bot.answering import Answerer
from bot.core_service import AnswerService, CoreAnswerService
from bot.identity import Identity
from bot.jurisdictions import US_STATES
from bot.playground.surfaces import slack_html, teams_html
from bot.playground.trace import AskAs, Trace, trace
from bot.rbac import RbacPolicy
from bot.render import number_citations
from bot.report import build_report
from bot.settings import BotSettings
from bot.slack.blocks import render as slack_render
from bot.startup import IndexStatus, index_status, index_where
from bot.store import Store
from bot.teams.cards import reply_activity
from rag_core.errors import BenefitsBotError

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
STATIC_FILES = {"playground.css": "text/css", "playground.js": "text/javascript", "favicon.svg": "image/svg+xml"}
FRAGMENT_HEADER = "X-Playground-Fragment"
# Offered to someone trying the bot: questions the default answers from the sample corpus, and one it
# refuses (tests/bot/playground/test_playground.py asks each on the real core).
EXAMPLES = (
    "What's the PPO deductible?",
    "How many weeks of paid parental leave do I get?",
    "Is pet insurance covered?",
)
MAX_REPORT_DAYS = 400


class FormError(ValueError):
    """A playground form field the page can name back to the user."""


@dataclass(frozen=True)
class Preset:
    label: str
    groups: tuple[str, ...]


def presets(policy: RbacPolicy) -> list[Preset]:
    """One preset per distinct grant in the RBAC policy (named after the platform group that grants
    it), plus an asker in no mapped group."""
    seen: dict[tuple[str, ...], str] = {}
    for name, groups in [*policy.slack_usergroups.items(), *policy.aad_groups.items()]:
        seen.setdefault(tuple(sorted(groups)), str(name))
    found = [Preset(label, groups) for groups, label in seen.items()]
    return [*found, Preset("no mapped group", ())]


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["ms"] = lambda v: f"{v:,.1f}"
    return env


class Playground:
    def __init__(
        self, settings: BotSettings, policy: RbacPolicy, service: AnswerService, answerer: Answerer, store: Store
    ) -> None:
        self.settings = settings
        self.policy = policy
        self.service = service
        self.answerer = answerer
        self.store = store
        self.templates = _environment()
        self.states = sorted(US_STATES.items())

    # ----- helpers ------------------------------------------------------------------------------------
    def _today(self) -> date:
        return self.settings.today or date.today()

    async def _index_status(self) -> IndexStatus:
        where = index_where(self.settings)
        if not isinstance(self.service, CoreAnswerService):
            return IndexStatus(False, where, problem="the playground needs the real answer pipeline")
        ready, detail = await self.service.ready()
        if not ready and "loading" in detail:
            return IndexStatus(False, where, problem=f"{detail}…")
        return await index_status(self.settings, self.service)

    def _page(self, template: str, **context: Any) -> web.Response:
        body = self.templates.get_template(template).render(
            env=self.settings.env, admin=bool(self.settings.playground_admin_token_value), **context
        )
        return web.Response(text=body, content_type="text/html", charset="utf-8")

    def parse(self, form: MultiDictProxy[Any]) -> AskAs:
        question = str(form.get("question", "")).strip()
        if not question:
            raise FormError("Type a question first.")
        if len(question) > self.settings.max_question_chars:
            raise FormError(f"The question is longer than {self.settings.max_question_chars} characters.")
        groups = frozenset(str(g) for g in form.getall("groups", []))
        unknown = sorted(groups - self.policy.acl_groups)
        if unknown:
            raise FormError(f"Unknown ACL group(s): {', '.join(unknown)}.")
        raw_state = str(form.get("state", "")).strip()
        state = self.policy.state_code(raw_state) if raw_state else None
        if raw_state and state is None:
            raise FormError(f"{raw_state!r} is not a US state.")
        raw_day = str(form.get("as_of", "")).strip()
        try:
            as_of = date.fromisoformat(raw_day) if raw_day else None
        except ValueError:
            raise FormError(f"{raw_day!r} is not a date (YYYY-MM-DD).") from None
        language = str(form.get("language", "")).strip().lower() or None
        if language is not None and (len(language) != 2 or not language.isalpha()):
            raise FormError("The language is a two-letter code such as en or es.")
        identity = Identity(
            platform="playground",
            user_id="playground",
            acl_groups=groups,
            state=state,
            employment_type=self.policy.employment_type(groups),
        )
        return AskAs(question, identity, as_of, language)

    async def _trace(self, ask: AskAs) -> Trace:
        assert isinstance(self.service, CoreAnswerService)
        pipeline = await self.service.pipeline()
        return await trace(
            pipeline,
            ask,
            signing_key=self.settings.rbac_key,
            ttl_s=self.settings.rbac_token_ttl_s,
            reply_for=self.answerer.reply_for,
        )

    def _views(self, result: Trace) -> dict[str, Any]:
        fallback, blocks = slack_render(result.reply)
        activity = reply_activity(result.reply).serialize()
        _, sources = number_citations(result.answer) if result.reply.shows_sources else ("", [])
        return {
            "slack": slack_html(blocks),
            "slack_fallback": fallback,
            "slack_json": json.dumps(blocks, indent=2, ensure_ascii=False),
            "teams": teams_html(activity),
            "teams_json": json.dumps(activity, indent=2, default=str, ensure_ascii=False),
            "sources": sources,
        }

    # ----- handlers ------------------------------------------------------------------------------------
    def _form_context(self, values: dict[str, Any] | None = None) -> dict[str, Any]:
        defaults = {
            "question": "",
            "groups": sorted(self.policy.acl_groups & {"employees"}),
            "state": "",
            "as_of": self._today().isoformat(),
            "language": "",
        }
        return {
            "form": {**defaults, **(values or {})},
            "acl_groups": sorted(self.policy.acl_groups),
            "states": self.states,
            "presets": presets(self.policy),
            "examples": EXAMPLES,
        }

    async def index(self, request: web.Request) -> web.Response:
        return self._page("index.html", page="ask", index=await self._index_status(), **self._form_context())

    async def ask(self, request: web.Request) -> web.Response:
        form = await request.post()
        values = {
            "question": form.get("question", ""),
            "groups": form.getall("groups", []),
            "state": form.get("state", ""),
            "as_of": form.get("as_of", ""),
            "language": form.get("language", ""),
        }
        context: dict[str, Any] = {}
        try:
            ask = self.parse(form)
            if not isinstance(self.service, CoreAnswerService):
                raise FormError("The playground needs the real answer pipeline (CoreAnswerService).")
            result = await self._trace(ask)
            context = {"trace": result, **self._views(result)}
            log.info(
                "playground question query_id=%s groups=%s state=%s outcome=%s decided_by=%s",
                result.answer.query_id,
                ",".join(sorted(ask.identity.acl_groups)) or "-",
                ask.identity.state or "-",
                "abstained" if result.abstained else "answered",
                result.decided_by or "-",
            )
        except FormError as exc:
            context = {"problem": str(exc)}
        except BenefitsBotError as exc:
            context = {"problem": f"The core could not answer: {type(exc).__name__}: {exc}"}
        if request.headers.get(FRAGMENT_HEADER):
            return self._page("result.html", **context)
        return self._page(
            "index.html", page="ask", index=await self._index_status(), **self._form_context(values), **context
        )

    async def _report(self, request: web.Request) -> Any:
        try:
            days = int(request.query.get("days", "7"))
        except ValueError:
            days = 7
        days = min(max(days, 1), MAX_REPORT_DAYS, self.settings.report_retention_days)
        report = await build_report(
            self.store, days=days, today=self._today(), questions_stored=self.settings.report_store_questions
        )
        return days, report

    async def report(self, request: web.Request) -> web.Response:
        days, result = await self._report(request)
        return self._page("report.html", page="report", days=days, report=result, settings=self.settings)

    async def report_json(self, request: web.Request) -> web.Response:
        _, result = await self._report(request)
        return web.json_response(result.to_json())

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC_FILES:
            raise web.HTTPNotFound()
        return web.Response(
            body=(HERE / "static" / name).read_bytes(), content_type=STATIC_FILES[name], charset="utf-8"
        )
