"""The playground over HTTP: open in dev mode, never open in production, and on the real core:
answers with their citations, abstentions with the deciding stage, the asker's access filter, and
document text escaped everywhere."""

from __future__ import annotations

from collections.abc import AsyncIterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
import pytest_asyncio

from bot.core_service import CoreAnswerService
from bot.errors import ConfigError
from bot.playground.views import EXAMPLES
from bot.report.recorder import day_key
from bot.settings import MIN_ADMIN_TOKEN_CHARS
from tests.bot.dev_harness import NO_CREDENTIALS, PROD, DevApp, basic, start_dev
from tests.bot.harness import make_settings
from tests.bot.sample_core import TODAY, core_overrides, ingest_async
from tests.fakes.answer_service import FakeAnswerService

pytestmark = pytest.mark.integration

ADMIN_TOKEN = "playground-admin-token-0123456789abcdef"
STAGES = (
    "scope",
    "rewrite",
    "embed",
    "retrieve",
    "gate",
    "rerank",
    "context",
    "precedence",
    "generate",
    "validate",
    "amounts",
)


def fake() -> FakeAnswerService:
    return FakeAnswerService(key="test-rbac-signing-key")


# ----- who may use it ------------------------------------------------------------------------------
async def test_dev_playground_is_open_and_locked_down_by_headers() -> None:
    dev = await start_dev(fake())
    try:
        resp = await dev.client.get("/")
        assert resp.status == 200
        page = await resp.text()
        for group in ("employees", "contractors", "executives", "hr-admins"):
            assert f'value="{group}"' in page
        csp = resp.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
        assert resp.headers["X-Frame-Options"] == "DENY" and resp.headers["Cache-Control"] == "no-store"
        script = await dev.client.get("/playground/static/playground.js")
        assert script.status == 200 and script.headers["Content-Type"].startswith("text/javascript")
        assert (await dev.client.get("/playground/static/..%2Fviews.py")).status == 404
    finally:
        await dev.close()


async def test_production_without_an_admin_credential_has_no_playground() -> None:
    prod = await start_dev(fake(), **PROD)
    try:
        for path in ("/", "/report", "/report.json", "/playground/static/playground.js"):
            assert (await prod.client.get(path)).status == 404, path
        assert (await prod.post_form("/playground/ask", {"question": "dental?"})).status in (404, 405)
    finally:
        await prod.close()


async def test_production_playground_requires_the_admin_credential() -> None:
    prod = await start_dev(fake(), **PROD, PLAYGROUND_ADMIN_TOKEN=ADMIN_TOKEN)
    try:
        anonymous = await prod.client.get("/")
        assert anonymous.status == 401 and anonymous.headers["WWW-Authenticate"].startswith("Basic ")
        assert (await prod.client.get("/", headers=basic("not-the-token"))).status == 401
        assert (await prod.client.get("/report.json", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})).status == 401
        assert (await prod.client.get("/", headers=basic(ADMIN_TOKEN))).status == 200
        assert (await prod.client.get("/report.json", headers=basic(ADMIN_TOKEN))).status == 200
        refused = await prod.post_form("/playground/ask", {"question": "dental?"}, {"Origin": "https://x.example"})
        assert refused.status == 401  # the credential comes first
    finally:
        await prod.close()


def test_production_refuses_a_short_admin_credential() -> None:
    from bot.app import create_app

    with pytest.raises(ConfigError, match=f"at least {MIN_ADMIN_TOKEN_CHARS} characters"):
        create_app(make_settings(**{**NO_CREDENTIALS, **PROD, "PLAYGROUND_ADMIN_TOKEN": "short"}), fake())


async def test_a_cross_site_post_is_refused() -> None:
    dev = await start_dev(fake())
    try:
        resp = await dev.post_form("/playground/ask", {"question": "dental?"}, {"Origin": "https://evil.example"})
        assert resp.status == 403
    finally:
        await dev.close()


# ----- asking on the real core ------------------------------------------------------------------------
@pytest_asyncio.fixture(loop_scope="session")
async def sample(sample_index: Path) -> AsyncIterator[DevApp]:
    settings = make_settings(**{**NO_CREDENTIALS, **core_overrides(sample_index), "BENEFITSBOT_TODAY": TODAY})
    service = CoreAnswerService.from_settings(settings)
    dev = await start_dev(service, **core_overrides(sample_index), BENEFITSBOT_TODAY=TODAY)
    try:
        yield dev
    finally:
        await dev.close()
        await service.close()


class TextOf(HTMLParser):
    """The readable text inside the element with a given id."""

    VOID = {"br", "hr", "img", "input", "meta", "link", "col", "wbr"}

    def __init__(self, element_id: str) -> None:
        super().__init__()
        self.element_id = element_id
        self.depth = 0
        self.found = False
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth:
            self.depth += tag not in self.VOID
        elif dict(attrs).get("id") == self.element_id:
            self.depth, self.found = 1, True

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.parts.append(data)


def text_of(markup: str, element_id: str) -> str:
    parser = TextOf(element_id)
    parser.feed(markup)
    assert parser.found, f"no #{element_id}"
    return " ".join(" ".join(parser.parts).split())


@pytest.mark.slow
async def test_an_answer_as_both_surfaces_with_sources_and_why(sample: DevApp) -> None:
    fragment = await sample.ask("What's the PPO deductible?")
    assert 'data-outcome="answered"' in fragment
    dental = "https://hr.fabrikam.example/policies/medical-plan-2026.pdf#page="
    slack = fragment.split('id="slack-view"', 1)[1].split('id="teams-view"', 1)[0]
    teams = fragment.split('id="teams-view"', 1)[1].split('id="sources"', 1)[0]
    for surface in (slack, teams):
        assert f'<a href="{dental}' in surface and "[1]" in surface and "Contact HR" in surface
    assert "Fabrikam Medical Plan Summary 2026, page" in text_of(fragment, "sources")
    assert "no stage abstained" in text_of(fragment, "decided-by")
    for stage in STAGES:
        assert f"<th>{stage}</th>" in fragment
    assert fragment.count('class="cited"') >= 1 and "medical-plan-2026_p" in fragment


@pytest.mark.slow
async def test_the_example_questions_do_what_they_show(sample: DevApp) -> None:
    """The playground offers its examples to someone trying the bot: each covered one is answered by the
    default reader on the sample corpus, and the uncovered one (pet insurance) is refused. ("How much is
    the dental deductible?", the first example until session 20, abstains with the benefits reader: the
    tier row never says "dental"; benchmarks/README.md "Sessions 19–20".)"""
    *covered, uncovered = EXAMPLES
    for question in covered:
        assert 'data-outcome="answered"' in await sample.ask(question), question
    assert 'data-outcome="abstained"' in await sample.ask(uncovered)


@pytest.mark.slow
async def test_an_abstention_names_the_stage_that_decided(sample: DevApp) -> None:
    fragment = await sample.ask("Is pet insurance covered?")
    assert 'data-outcome="abstained"' in fragment and "low_similarity, decided by the answerable stage" in fragment
    assert text_of(fragment, "decided-by").strip() == "answerable"
    assert "Words no visible document has" in fragment and "pet" in fragment
    assert 'id="sources"' not in fragment  # an abstention shows no sources


@pytest.mark.slow
async def test_the_identity_is_a_signed_token_under_the_access_filter(sample: DevApp) -> None:
    question = "What is the executive financial and tax planning allowance?"
    executive = ("executive-compensation-2026", "Executive Benefits Program")
    as_employee = await sample.ask(question, groups=("employees",))
    assert not [m for m in executive if m in as_employee]  # not in the answer, sources or candidates
    as_executive = await sample.ask(question, groups=("executives", "employees"))
    assert 'data-outcome="answered"' in as_executive and "$7,500" in text_of(as_executive, "slack-view")
    assert "Fabrikam Executive Benefits Program 2026" in text_of(as_executive, "sources")
    nobody = await sample.ask(question, groups=())
    assert "no_access, decided by the scope stage" in nobody and not [m for m in executive if m in nobody]


@pytest.mark.slow
async def test_as_of_date_and_state_change_the_answer(sample: DevApp) -> None:
    question = "How much does Fabrikam match on my 401(k)?"
    before = await sample.ask(question, as_of="2026-11-30")
    assert 'data-outcome="abstained"' in before and "6%" not in text_of(before, "slack-view")
    after = await sample.ask(question, as_of="2027-01-02")
    assert 'data-outcome="answered"' in after and "6%" in text_of(after, "slack-view")
    california = await sample.ask("How many weeks of paid parental leave do I get?", state="CA")
    assert "parental-leave-ca-2026" in california


@pytest.mark.slow
async def test_form_problems_are_named_and_playground_questions_are_not_reported(sample: DevApp) -> None:
    assert "Unknown ACL group(s): admins" in await sample.ask("dental?", groups=("admins",))
    assert "is not a date" in await sample.ask("dental?", as_of="tomorrow")
    assert "is not a US state" in await sample.ask("dental?", state="Atlantis")
    assert await sample.parts.store.hgetall(day_key(sample.parts.settings.today)) == {}  # type: ignore[arg-type]


XSS = """# Fabrikam Gym <script>alert('title')</script> Benefit

## Gym reimbursement <img src=x onerror=alert('heading')>

The gym reimbursement is $40 a month <script>alert('body')</script> for every employee.
Members get <img src=x onerror="alert('img')"> one free class <b onmouseover=alert(1)>a week</b>.
"""


@pytest_asyncio.fixture(loop_scope="session")
async def hostile(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[DevApp]:
    corpus = tmp_path_factory.mktemp("hostile-corpus")
    (corpus / "gym.md").write_text(XSS, encoding="utf-8")
    data_dir = tmp_path_factory.mktemp("hostile-index")
    await ingest_async(data_dir, corpus)
    settings = make_settings(**{**NO_CREDENTIALS, **core_overrides(data_dir)})
    service = CoreAnswerService.from_settings(settings)
    dev = await start_dev(service, **core_overrides(data_dir))
    try:
        yield dev
    finally:
        await dev.close()
        await service.close()


class Elements(HTMLParser):
    """Every element and attribute a browser would build from the markup."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def elements(markup: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Elements()
    parser.feed(markup)
    return parser.tags


@pytest.mark.slow
async def test_document_text_is_escaped_everywhere(hostile: DevApp) -> None:
    fragment = await hostile.ask("How much is the gym reimbursement?")
    assert 'data-outcome="answered"' in fragment
    page = await (
        await hostile.post_form("/playground/ask", {"question": "gym reimbursement?", "groups": "employees"})
    ).text()
    for markup in (fragment, page):  # what the script inserts, and the no-script full page
        built = elements(markup)
        assert not [tag for tag, _ in built if tag in ("img", "b", "iframe", "object")]
        scripts = [attrs.get("src") for tag, attrs in built if tag == "script"]
        assert scripts in ([], ["/playground/static/playground.js"])
        assert not [(tag, name) for tag, attrs in built for name in attrs if name.startswith("on")]
        assert "&lt;script&gt;alert(" in markup  # shown as the text it is
    assert "Fabrikam Gym &lt;script&gt;alert(" in fragment  # the title too (sources, cards, candidates)
