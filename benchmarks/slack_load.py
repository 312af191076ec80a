"""Slack load benchmark (not a test): signed events at a steady rate against the real app.

Starts the real aiohttp app on loopback with a fake Slack Web API, sends signed Slack events at
``--rate`` per second for ``--duration`` seconds (a bounded count, loopback only, stops by
itself), and reports:

* ack latency p50/p95: HTTP request -> response (Slack's contract is 3 s),
* answer latency p50/p95: request sent -> the call that completes the answer reaching the fake
  Slack API (``chat.stopStream`` of the streamed answer, or the ``chat.update`` / ``chat.postMessage``
  of the fallback path),
* that no event was lost or answered twice (a fraction of events is re-delivered as Slack
  retries, with ``X-Slack-Retry-Num``).

The answer service is the real core when an index is available (``--service auto``, the
default), else the in-memory fake with a simulated latency. Prints a JSON summary.

    .venv/bin/python benchmarks/slack_load.py --rate 40 --duration 60
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import logging
import random
import socket
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bot.app import COMPONENTS, create_app  # noqa: E402
from bot.core_service import AnswerService, CoreAnswerService  # noqa: E402
from bot.settings import BotSettings  # noqa: E402
from tests.fakes.answer_service import FakeAnswerService  # noqa: E402
from tests.fakes.slack_api import FakeSlackApi  # noqa: E402


def completed_answers(slack: FakeSlackApi) -> list[tuple[str, float]]:
    """(question's thread ts, when its answer was complete) for every answer, whichever path
    delivered it: a stream's stop, a placeholder's update, or a direct post of the final answer."""
    thread_of: dict[str, str] = {}  # message ts (placeholder or stream) -> thread ts
    done: list[tuple[str, float]] = []
    for call in slack.calls:
        ok = call.result.get("ok")
        if call.method in ("chat.startStream", "chat.postMessage") and ok:
            thread_of[str(call.result.get("ts"))] = str(call.args.get("thread_ts"))
            if call.method == "chat.postMessage" and call.args.get("blocks"):  # a final answer, not a placeholder
                done.append((str(call.args.get("thread_ts")), call.at))
        elif call.method in ("chat.stopStream", "chat.update") and ok and str(call.args.get("ts")) in thread_of:
            done.append((thread_of[str(call.args["ts"])], call.at))
    return done


SECRET = "bench-signing-secret"
BOT_TOKEN = "xoxb-bench"
RBAC_KEY = "bench-rbac-key"
QUESTIONS = [
    "How much is the dental deductible?",
    "What does the vision plan cover?",
    "How many weeks of paid parental leave do I get in California?",
    "What is the 401k match?",
    "Is pet insurance covered?",
    "How do I enroll in the commuter benefit?",
]
USERS = [f"UBENCH{i:03d}" for i in range(50)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return round(ordered[index] * 1000, 1)


def _stats(values: list[float]) -> dict[str, Any]:
    return {
        "count": len(values),
        "p50_ms": _percentile(values, 50),
        "p95_ms": _percentile(values, 95),
        "max_ms": _percentile(values, 100),
    }


def _sign(body: str) -> dict[str, str]:
    ts = str(int(time.time()))
    digest = hmac.new(SECRET.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": f"v0={digest}",
    }


async def _choose_service(kind: str, settings: BotSettings, fake_delay_ms: float) -> tuple[AnswerService, str]:
    if kind in ("auto", "core"):
        core = CoreAnswerService.from_settings(settings)
        await core.start()
        deadline = time.monotonic() + 300
        ready, detail = await core.ready()
        while not ready and time.monotonic() < deadline and "loading" in detail:
            await asyncio.sleep(0.5)
            ready, detail = await core.ready()
        if ready:
            return core, f"core ({detail})"
        await core.close()
        if kind == "core":
            raise SystemExit(f"the real core is not ready: {detail}")
        logging.warning("real core not available (%s); using the fake answer service", detail)
    fake = FakeAnswerService(key=RBAC_KEY, delay_s=fake_delay_ms / 1000)
    return fake, f"fake ({fake_delay_ms:.0f} ms simulated latency)"


async def run(args: argparse.Namespace, questions: Iterator[str] | None = None) -> dict[str, Any]:
    """``questions``: a distinct question for each event (benchmarks/scale_bench.py); by default
    each event draws one of the few QUESTIONS above."""
    slack = FakeSlackApi(bot_token=BOT_TOKEN)
    await slack.start()
    for user in USERS:
        slack.add_user(user, state="California")
    slack.add_usergroup("S0ALL", "all-employees", USERS)
    slack.set_channel("CBENCH", [*USERS[:5], "UBOT"])

    values: dict[str, Any] = {
        "BENEFITSBOT_ENV": "dev",
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_BASE_URL": slack.api_url,
        "SLACK_STATE_PROFILE_FIELD": "Xf0STATE",
        "TEAMS_ENABLED": False,
        "REDIS_URL": args.redis_url,
        "RBAC_SIGNING_KEY": RBAC_KEY,
        "RBAC_POLICY_FILE": str(REPO / "deploy" / "rbac.yaml"),
        "RATE_LIMIT_PER_MINUTE": 1_000_000,
        "ANSWER_CACHE_TTL_S": 600 if args.cache else 0,
    }
    settings = BotSettings(_env_file=None, **values)  # type: ignore[call-arg]
    service, service_label = await _choose_service(args.service, settings, args.fake_delay_ms)
    app = create_app(settings, service)
    parts = app[COMPONENTS]
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = _free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    url = f"http://127.0.0.1:{port}/slack/events"

    total = int(args.rate * args.duration)
    rng = random.Random(7)
    sent_at: dict[str, float] = {}  # event ts -> monotonic send time
    acks: list[float] = []
    bad_acks: list[int] = []
    duplicates = 0
    tasks: list[asyncio.Task[None]] = []
    connector = aiohttp.TCPConnector(limit=200)

    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30)) as http:

        async def deliver(body: str, headers: dict[str, str], measure: bool) -> None:
            started = time.monotonic()
            try:
                async with http.post(url, data=body.encode(), headers=headers) as resp:
                    await resp.read()
                    status = resp.status
            except (aiohttp.ClientError, TimeoutError):
                status = 0
            if measure:
                acks.append(time.monotonic() - started)
            if status != 200:
                bad_acks.append(status)

        loop_start = time.monotonic()
        for i in range(total):
            target = loop_start + i / args.rate
            delay = target - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            ts = f"1720000000.{i:06d}"
            user = USERS[i % len(USERS)]
            text = next(questions) if questions is not None else rng.choice(QUESTIONS)
            if rng.random() < args.mention_fraction:
                event = {
                    "type": "app_mention",
                    "user": USERS[i % 5],
                    "text": f"<@UBOT> {text}",
                    "ts": ts,
                    "channel": "CBENCH",
                    "event_ts": ts,
                }
            else:
                event = {
                    "type": "message",
                    "channel_type": "im",
                    "channel": f"D{user}",
                    "user": user,
                    "text": text,
                    "ts": ts,
                    "event_ts": ts,
                }
            body = json.dumps(
                {
                    "type": "event_callback",
                    "team_id": "T0001",
                    "api_app_id": "A1",
                    "event_id": f"Ev{uuid.uuid4().hex[:12]}",
                    "event_time": int(time.time()),
                    "event": event,
                }
            )
            sent_at[ts] = time.monotonic()
            tasks.append(asyncio.create_task(deliver(body, _sign(body), True)))
            if rng.random() < args.retry_fraction:  # Slack re-delivers: must not be answered twice
                duplicates += 1
                retry_headers = {
                    **_sign(body),
                    "X-Slack-Retry-Num": "1",
                    "X-Slack-Retry-Reason": "http_timeout",
                }
                tasks.append(asyncio.create_task(deliver(body, retry_headers, False)))
        send_elapsed = time.monotonic() - loop_start
        await asyncio.gather(*tasks)

    # Wait (bounded) for every answer to reach the fake Slack API.
    def answered() -> int:
        return len(completed_answers(slack))

    deadline = time.monotonic() + args.settle_s
    try:
        await slack.wait_for(lambda: answered() >= total, within_s=args.settle_s)
    except AssertionError:
        pass  # reported below as lost events
    await parts.tasks.drain(within_s=max(1.0, deadline - time.monotonic()))

    answers_per_event: dict[str, int] = {}
    answer_latency: list[float] = []
    for event_ts, at in completed_answers(slack):
        answers_per_event[event_ts] = answers_per_event.get(event_ts, 0) + 1
        if answers_per_event[event_ts] == 1 and event_ts in sent_at:
            answer_latency.append(at - sent_at[event_ts])

    summary = {
        "service": service_label,
        "rate_per_s": args.rate,
        "duration_s": args.duration,
        "events_sent": total,
        "retries_sent": duplicates,
        "achieved_rate_per_s": round(total / send_elapsed, 1) if send_elapsed else None,
        "ack": {**_stats(acks), "non_200": len(bad_acks), "within_3s": sum(a < 3.0 for a in acks)},
        "answer": _stats(answer_latency),
        "lost": total - len(answers_per_event),
        "answered_twice": sum(1 for n in answers_per_event.values() if n > 1),
        "duplicates_dropped": parts.metrics.registry.get_sample_value(
            "benefitsbot_duplicate_deliveries_total", {"platform": "slack"}
        ),
        "ok": total == len(answers_per_event) and all(n == 1 for n in answers_per_event.values()) and not bad_acks,
    }
    await runner.cleanup()
    await slack.close()
    if isinstance(service, CoreAnswerService):
        await service.close()
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description="Slack load benchmark (loopback only).")
    parser.add_argument("--rate", type=float, default=40.0, help="events per second (max 200)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of sending (max 600)")
    parser.add_argument("--service", choices=["auto", "core", "fake"], default="auto")
    parser.add_argument("--fake-delay-ms", type=float, default=250.0, help="simulated core latency (fake service)")
    parser.add_argument("--mention-fraction", type=float, default=0.2, help="share of channel @-mentions")
    parser.add_argument("--retry-fraction", type=float, default=0.05, help="share of events re-delivered")
    parser.add_argument("--redis-url", default=None, help="use Redis (default: in-process store)")
    parser.add_argument("--cache", action="store_true", help="enable the answer cache")
    parser.add_argument("--settle-s", type=float, default=120.0, help="max wait for answers after sending")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON summary here")
    args = parser.parse_args()
    if not (0 < args.rate <= 200 and 0 < args.duration <= 600):
        parser.error("rate must be in (0, 200] and duration in (0, 600]")
    logging.basicConfig(level=logging.WARNING)
    summary = asyncio.run(run(args))
    text = json.dumps(summary, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    sys.exit(0 if summary["ok"] else 1)


if __name__ == "__main__":
    main()
