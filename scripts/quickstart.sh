#!/usr/bin/env bash
# Quick start: install, ingest the sample corpus into the embedded index, ask a question.
# No API keys and no servers: Qdrant Edge runs in process, bge-small embeds on the CPU (ONNX Runtime), and the
# extractive generator answers only with cited sentences of the documents.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export BENEFITSBOT_DATA_DIR="${BENEFITSBOT_DATA_DIR:-.data}"
# The sample corpus is the fictional Fabrikam Corp; its HR contact page:
export HR_CONTACT_URL="${HR_CONTACT_URL:-https://hr.fabrikam.example/contact}"
echo "==> ingesting corpus/ into $BENEFITSBOT_DATA_DIR"
.venv/bin/benefitsbot ingest corpus
echo
echo "==> benefitsbot ask 'How many weeks of paid parental leave do I get in California?' --state CA"
.venv/bin/benefitsbot ask "How many weeks of paid parental leave do I get in California?" --state CA
echo
echo "==> benefitsbot ask 'Is pet insurance covered?'   (not in the documents: the bot abstains)"
.venv/bin/benefitsbot ask "Is pet insurance covered?"
echo
echo "Next: .venv/bin/benefitsbot serve, then open http://localhost:3978/ (the playground: ask as anyone, see why)"
