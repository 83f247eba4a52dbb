#!/usr/bin/env bash
# Creates the virtual environment of the pytest-lsp real-client suite (pinned versions).
# Usage: tests/clients/setup-pytest.sh [VENV]   (default: target/venv-clients)
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="${1:-target/venv-clients}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check "pytest-lsp==1.0.1" "pytest==9.2.0" "pytest-asyncio==1.5.0"
