#!/usr/bin/env bash
# Runs the real Claude Code once, offline: a new network namespace with only loopback up, the fake
# Anthropic server of fake_anthropic.py on 127.0.0.1, HOME=$CASE/home, cwd $CASE/ws.
# Usage: run-claude-offline.sh CLAUDE_BIN CASE_DIR [ENV=VALUE...] [-- CLAUDE_ARGS...]
set -euo pipefail
CLAUDE=$1; C=$2; shift 2
ENVS=(); ARGS=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; ARGS=("$@"); break; fi
  ENVS+=("$1"); shift
done
HERE=$(cd "$(dirname "$0")" && pwd)
CLAUDE_ARGS="${ARGS[*]:-}"
export C CLAUDE HERE CLAUDE_ARGS
unshare -n bash -c '
set -e
ip link set lo up
python3 "$HERE/fake_anthropic.py" 18080 "$C/req" & SP=$!
for i in $(seq 50); do python3 -c "import socket; socket.create_connection((\"127.0.0.1\", 18080))" 2>/dev/null && break; sleep 0.1; done
cd "$C/ws"
env HOME="$C/home" ANTHROPIC_BASE_URL=http://127.0.0.1:18080 ANTHROPIC_API_KEY=sk-test \
  DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "$@" \
  timeout 120 "$CLAUDE" -p hello $CLAUDE_ARGS --output-format json > "$C/out.json" 2> "$C/err.txt" || echo "rc=$?" >> "$C/err.txt"
kill $SP
' _ "${ENVS[@]}"
