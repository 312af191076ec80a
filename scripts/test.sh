#!/usr/bin/env bash
# The whole test suite, with a real redis-server (installed from Debian when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if ! command -v redis-server >/dev/null 2>&1; then
  echo "==> installing redis-server"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; fi
fi
# One redis-server for the run (tests that kill Redis start their own).
port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis_dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$redis_dir" --daemonize yes \
  --pidfile "$redis_dir/redis.pid" >/dev/null
trap 'kill "$(cat "$redis_dir/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$redis_dir"' EXIT
export BENEFITSBOT_TEST_REDIS_URL="redis://127.0.0.1:$port/0"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/python -m pytest "$@"
