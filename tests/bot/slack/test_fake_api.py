"""The fake Slack Web API rejects what real Slack rejects, through the real slack_sdk client, so a
test cannot pass with a request Slack would refuse."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.blocks import feedback_block
from tests.fakes.slack_api import FakeSlackApi

pytestmark = pytest.mark.integration


@pytest_asyncio.fixture
async def api() -> AsyncIterator[tuple[FakeSlackApi, AsyncWebClient]]:
    fake = FakeSlackApi()
    await fake.start()
    try:
        yield fake, AsyncWebClient(token="xoxb-test", base_url=fake.api_url)
    finally:
        await fake.close()


async def _error(call: Any) -> str:
    with pytest.raises(SlackApiError) as caught:
        await call
    return str(caught.value.response["error"])


async def test_a_stream_must_be_started_and_still_streaming(api: tuple[FakeSlackApi, AsyncWebClient]) -> None:
    fake, client = api
    assert await _error(client.chat_appendStream(channel="D1", ts="1.2", markdown_text="x")) == "message_not_found"
    started = await client.chat_startStream(channel="D1", thread_ts="1.1", markdown_text="Hello")
    await client.chat_appendStream(channel="D1", ts=started["ts"], markdown_text=" world")
    await client.chat_stopStream(channel="D1", ts=started["ts"], blocks=[feedback_block("q1")])
    for late in (
        client.chat_appendStream(channel="D1", ts=started["ts"], markdown_text="!"),
        client.chat_stopStream(channel="D1", ts=started["ts"]),
    ):
        assert await _error(late) == "message_not_in_streaming_state"
    [message] = fake.messages()
    assert message.text == "Hello world" and message.blocks[0]["type"] == "context_actions"


async def test_stream_arguments_and_limits(api: tuple[FakeSlackApi, AsyncWebClient]) -> None:
    _, client = api
    assert await _error(client.chat_startStream(channel="D1", thread_ts="", markdown_text="x")) == "invalid_arguments"
    assert await _error(client.chat_startStream(channel="C1", thread_ts="1.1", markdown_text="x")) == (
        "missing_recipient_user_id"
    )
    assert (
        await _error(client.chat_startStream(channel="C1", thread_ts="1.1", markdown_text="x", recipient_user_id="U1"))
        == "missing_recipient_team_id"
    )
    assert (
        await _error(client.chat_startStream(channel="D1", thread_ts="1.1", markdown_text="x" * 12_001))
        == "msg_too_long"
    )


@pytest.mark.parametrize(
    "blocks",
    [
        [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}],
        [{"type": "context", "elements": [{"type": "mrkdwn", "text": "x"}]}] * 51,
        [{"type": "context_actions", "elements": []}],
        [{"type": "context_actions", "elements": [{"type": "button", "text": {"type": "plain_text", "text": "x"}}]}],
        [
            {
                "type": "context_actions",
                "elements": [
                    {
                        "type": "feedback_buttons",
                        "action_id": "f",
                        "positive_button": {"text": {"type": "plain_text", "text": "y"}, "value": "up"},
                    }
                ],
            }
        ],
        [
            {
                "type": "actions",
                "elements": [
                    {
                        "type": "button",
                        "action_id": "b",
                        "value": "v" * 2001,
                        "text": {"type": "plain_text", "text": "x"},
                    }
                ],
            }
        ],
    ],
)
async def test_invalid_blocks_are_refused(api: tuple[FakeSlackApi, AsyncWebClient], blocks: list[Any]) -> None:
    _, client = api
    assert await _error(client.chat_postMessage(channel="D1", text="x", blocks=blocks)) == "invalid_blocks"


async def test_assistant_thread_arguments(api: tuple[FakeSlackApi, AsyncWebClient]) -> None:
    _, client = api
    five = [{"title": str(i), "message": str(i)} for i in range(5)]
    assert await _error(client.assistant_threads_setSuggestedPrompts(channel_id="D1", prompts=five)) == (
        "invalid_arguments"
    )
    assert await _error(client.assistant_threads_setStatus(channel_id="D1", thread_ts="", status="x")) == (
        "invalid_arguments"
    )
    await client.assistant_threads_setSuggestedPrompts(channel_id="D1", prompts=five[:4])
    await client.assistant_threads_setStatus(channel_id="D1", thread_ts="1.1", status="")  # clears it
