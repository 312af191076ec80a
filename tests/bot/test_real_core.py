"""The chat edge on the real core: the sample corpus ingested, asked through Slack over HTTP.

Same harness as the fake-core scenario tests; only the answer service differs. It proves the
production ``CoreAnswerService`` (warm-up in a thread, index version for the cache, readiness)
and that the audience rule holds with real retrieval: executive-only content never reaches an
employee or a mixed channel.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core_service import CoreAnswerService
from bot.reply import PRIVATE_NOTE
from tests.bot.harness import CON, EMP, EXEC, make_settings, start_slack, stop_slack
from tests.bot.sample_core import core_overrides
from tests.fakes.slack_api import message_text

pytestmark = [pytest.mark.integration, pytest.mark.slow]

EXEC_QUESTION = "What is the executive financial and tax planning allowance?"
EXEC_MARKERS = ("7,500", "executive-compensation-2026", "Executive Benefits Program")


def _core_settings(data_dir: Path):  # type: ignore[no-untyped-def]
    return make_settings(**core_overrides(data_dir))


@pytest.fixture(scope="module")
def corpus_index(sample_index: Path) -> Path:
    return sample_index


def _leaks(text: str) -> list[str]:
    return [m for m in EXEC_MARKERS if m in text]


async def test_slack_on_the_real_core(corpus_index: Path) -> None:
    settings = _core_settings(corpus_index)
    service = CoreAnswerService.from_settings(settings)
    h = await start_slack(core_overrides(corpus_index), service=service)  # type: ignore[arg-type]
    try:
        await service.start()
        # (The shorter "How much is the dental deductible?" abstains since the reader gate: a known
        # miss listed in README "Known limitations".)
        await h.send_event(h.dm(EMP, "What is the individual deductible for the Basic dental tier?"))
        await h.drain()
        dental = message_text(h.fake.answers(f"D{EMP}")[-1])
        assert "deductible" in dental.lower() and "dental-plan-2026" in dental and "[1]" in dental

        ready = await (await h.client.get("/readyz")).json()
        assert ready["ready"] is True and ready["checks"]["index"]["detail"].startswith("index ")

        await h.send_event(h.dm(EXEC, EXEC_QUESTION))
        await h.drain()
        assert _leaks(message_text(h.fake.answers(f"D{EXEC}")[-1]))

        await h.send_event(h.dm(EMP, EXEC_QUESTION))
        await h.drain()
        assert _leaks(message_text(h.fake.answers(f"D{EMP}")[-1])) == []

        await h.send_event(h.mention(EXEC, EXEC_QUESTION, channel="CEMPEXEC"))
        await h.drain()
        public = message_text(h.fake.answers("CEMPEXEC")[-1])
        assert _leaks(public) == []
        assert PRIVATE_NOTE in public
        [private] = h.fake.posts("chat.postEphemeral", "CEMPEXEC")
        assert private.args["user"] == EXEC and _leaks(message_text(private))
    finally:
        await stop_slack(h)
        await service.close()


async def test_the_ai_app_on_the_real_core(corpus_index: Path) -> None:
    """The default suggested prompts are answered from the sample corpus (streamed, with sources and
    native feedback), and a question only next year's 401(k) plan answers names that plan's date."""
    settings = _core_settings(corpus_index)
    service = CoreAnswerService.from_settings(settings)
    h = await start_slack(
        {"BENEFITSBOT_DATA_DIR": str(corpus_index), "QDRANT_URL": None, "OPENAI_API_KEY": None,
         "COHERE_API_KEY": None, "EMBEDDING_PROVIDER": "local", "GENERATOR": "extractive",
         "BENEFITSBOT_TODAY": "2026-11-30"},
        service=service,  # type: ignore[arg-type]
    )  # fmt: skip
    try:
        await service.start()
        for prompt in h.settings.suggested_prompts:
            await h.send_event(h.dm(EMP, prompt))
            await h.drain()
            answer = h.fake.answers(f"D{EMP}")[-1]
            assert answer.streamed and "[1]" in answer.text, (prompt, answer.text)
            assert any(b["type"] == "context_actions" for b in answer.blocks)
        await h.send_event(h.dm(EMP, "What is the company 401(k) match?"))
        await h.drain()
        text = message_text(h.fake.answers(f"D{EMP}")[-1])
        assert "won't guess" in text and "401(k) Savings Plan Summary 2027" in text and "January 1, 2027" in text
        assert "6%" not in text  # named, never quoted before it takes effect
    finally:
        await stop_slack(h)
        await service.close()


async def test_another_states_policy_through_slack(corpus_index: Path) -> None:
    """The headline question from an employee whose Slack profile says New York: the core abstains
    other_jurisdiction and the DM names the California policy with what to do; a contractor (whose
    groups may see no parental-leave policy) asking the same never hears of it."""
    settings = _core_settings(corpus_index)
    service = CoreAnswerService.from_settings(settings)
    h = await start_slack(core_overrides(corpus_index), service=service)  # type: ignore[arg-type]
    question = "How many weeks of paid parental leave do I get in California?"
    try:
        await service.start()
        h.fake.add_user("UEMPNY", state="New York")
        h.fake.set_membership("S0EMP", [EMP, "UEMPNY"])
        await h.send_event(h.dm("UEMPNY", question))
        await h.drain()
        text = message_text(h.fake.answers("DUEMPNY")[-1])
        assert "Fabrikam California Parental Leave Policy 2026" in text and "ask HR to update your record" in text
        assert "16 weeks" not in text and "12 weeks" not in text  # neither state's answer is given

        await h.send_event(h.dm(CON, question))
        await h.drain()
        assert "California Parental Leave" not in message_text(h.fake.answers(f"D{CON}")[-1])
    finally:
        await stop_slack(h)
        await service.close()
