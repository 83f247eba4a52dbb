#!/usr/bin/env bash
# Installs the pinned Claude Code the skill-listing conformance cases run (tests/cli/skills_listing_real.rs).
# Usage: tests/clients/setup-claude-code.sh [DIR]   (default: target/clients/claude-code)
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR="${1:-target/clients/claude-code}"
mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || npm init -y >/dev/null
npm install --no-audit --no-fund --silent @anthropic-ai/claude-code@2.1.332
echo "$(pwd)/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
