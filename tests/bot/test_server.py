"""``bot.server.run`` as a real process: it serves health while the core loads, and stops on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.bot.harness import RBAC_FILE, REPO, SIGNING_SECRET

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_run_serves_and_stops_cleanly(tmp_path: Path) -> None:
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "MICROSOFT_", "REDIS_"))},
        "BENEFITSBOT_ENV": "dev",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "SLACK_BOT_TOKEN": "xoxb-test",
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_BASE_URL": "http://127.0.0.1:9/api/",
        "TEAMS_ENABLED": "false",
        "RBAC_POLICY_FILE": str(RBAC_FILE),
        "BENEFITSBOT_DATA_DIR": str(tmp_path / "empty-index"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "PYTHONPATH": str(REPO),
    }
    code = "from bot.server import run; from bot.settings import BotSettings; run(BotSettings())"
    proc = subprocess.Popen(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 60
        status = 0
        while time.monotonic() < deadline:
            try:
                status, _ = _get(f"http://127.0.0.1:{port}/healthz")
                break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
                time.sleep(0.2)
        assert status == 200
        ready, body = _get(f"http://127.0.0.1:{port}/readyz")
        assert ready == 503 and '"ready": false' in body  # still loading, or no index: not ready
        unsigned = urllib.request.Request(f"http://127.0.0.1:{port}/slack/events", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(unsigned, timeout=2)
        assert err.value.code == 401
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0
