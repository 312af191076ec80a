#!/usr/bin/env bash
# The whole test suite, with a real redis-server (installed from Debian when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
apt_install() {
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null; fi
}
if ! command -v redis-server >/dev/null 2>&1; then
  echo "==> installing redis-server"
  apt_install redis-server
fi
# The playground's browser test drives Debian's Chromium with Playwright (never `playwright install`).
if ! command -v chromium >/dev/null 2>&1; then
  echo "==> installing chromium (for the playground's browser test)"
  apt_install chromium fonts-liberation fonts-noto-color-emoji
fi
export BENEFITSBOT_REQUIRE_BROWSER=1  # here the browser test fails rather than skips without Chromium
# One redis-server for the run (tests that kill Redis start their own).
port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis_dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$redis_dir" --daemonize yes \
  --pidfile "$redis_dir/redis.pid" >/dev/null
trap 'kill "$(cat "$redis_dir/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$redis_dir"' EXIT
export BENEFITSBOT_TEST_REDIS_URL="redis://127.0.0.1:$port/0"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/python -m pytest "$@"
