"""The playground in a real headless browser (Debian's Chromium, driven by Playwright for Python):
ask, wait for the answer, check the cited source, ask what the documents do not cover, check the
abstention; no script error, no dialog, no blocked resource. Saves the screenshot of the answer.

scripts/test.sh installs Chromium and sets BENEFITSBOT_REQUIRE_BROWSER=1, so CI fails rather than
skips when the browser is missing. Refresh the committed screenshot with
``BENEFITSBOT_SCREENSHOT=benchmarks/results/playground.png bash scripts/test.sh tests/bot/playground/test_browser.py``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.core_service import CoreAnswerService
from tests.bot.dev_harness import NO_CREDENTIALS, DevApp, start_dev
from tests.bot.harness import REPO, make_settings
from tests.bot.sample_core import TODAY, core_overrides

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Headless, and nothing that phones home or updates itself during a test.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOT = Path(os.environ.get("BENEFITSBOT_SCREENSHOT") or REPO / "benchmarks" / "out" / "playground.png")
ANSWER_TIMEOUT_MS = 120_000  # the first question waits for the model to load


def _require_browser() -> None:
    missing = None
    if not Path(CHROMIUM).exists():
        missing = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    else:
        try:
            import playwright.async_api  # noqa: F401
        except ImportError:
            missing = "playwright is not installed (pip install -e '.[dev]')"
    if missing and os.environ.get("BENEFITSBOT_REQUIRE_BROWSER"):
        pytest.fail(missing)
    if missing:
        pytest.skip(missing)


@pytest_asyncio.fixture(loop_scope="session")
async def served(sample_index: Path) -> AsyncIterator[DevApp]:
    overrides = {**core_overrides(sample_index), "BENEFITSBOT_TODAY": TODAY}
    service = CoreAnswerService.from_settings(make_settings(**{**NO_CREDENTIALS, **overrides}))
    dev = await start_dev(service, **overrides)
    try:
        await dev.ask("What's the PPO deductible?")  # models warm: the screenshot shows served timings
        yield dev
    finally:
        await dev.close()
        await service.close()


async def test_the_playground_in_a_browser(served: DevApp) -> None:
    _require_browser()
    from playwright.async_api import async_playwright

    problems: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("dialog", lambda d: problems.append(f"dialog: {d.message}"))
            page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))

            await page.goto(str(served.client.make_url("/")))
            assert "17 documents" in await page.inner_text("#index-status")

            await page.fill("#question", "How many weeks of paid parental leave do I get in California?")
            await page.select_option("#state", "CA")
            await page.click("#ask-button")
            await page.wait_for_selector("#verdict[data-outcome]", timeout=ANSWER_TIMEOUT_MS)
            assert await page.get_attribute("#verdict", "data-outcome") == "answered"
            link = page.locator("#slack-view a[href*='parental-leave-ca-2026.pdf#page=']").first
            assert await link.inner_text() == "Fabrikam California Parental Leave Policy 2026, p. 1"
            assert await page.locator("#teams-view a[href*='parental-leave-ca-2026.pdf#page=1']").count() >= 1
            assert "Fabrikam California Parental Leave Policy 2026, page 1" in await page.inner_text("#sources")
            assert "16 weeks" in await page.inner_text("#slack-view")
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(SCREENSHOT), full_page=True)

            await page.click("button.example:has-text('Is pet insurance covered?')")
            assert await page.input_value("#question") == "Is pet insurance covered?"
            await page.click("#ask-button")
            await page.wait_for_selector("#verdict[data-outcome=abstained]", timeout=ANSWER_TIMEOUT_MS)
            assert (await page.inner_text("#decided-by")).strip() == "answerable"
            assert "couldn't find this" in await page.inner_text("#slack-view")
            assert await page.locator("#sources").count() == 0

            await page.click("button.preset:has-text('executives')")
            checked = await page.eval_on_selector_all("input[name=groups]:checked", "boxes => boxes.map(b => b.value)")
            assert sorted(checked) == ["employees", "executives"]
        finally:
            await browser.close()
    assert problems == []
