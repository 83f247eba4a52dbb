#!/usr/bin/env bash
# The main job of alisio-ls on the bundled examples: lint a monorepo's instruction files and
# skills, explain what an agent working in a nested directory receives, list the skill
# catalog, and show what the Context Governor would have saved on a recorded session.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/alisio-ls
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@" || true; }
step "$bin" check --cwd examples/monorepo --trust-project
step "$bin" context explain --cwd examples/monorepo services/api/src/main.rs
step "$bin" context explain --cwd examples/monorepo --host codex services/api/src/main.rs
step "$bin" skills list --cwd examples/monorepo --trust-project
step "$bin" governor analyze examples/transcripts/refactor.claude.jsonl
