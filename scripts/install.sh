#!/usr/bin/env bash
# Installs alisio-ls from this repository into ROOT/bin (default: cargo's usual ~/.cargo/bin):
# exactly the README's install line, `cargo install --locked --path server`, plus `--root`.
# Used by the GitHub action (scripts/github-action.sh) and the CI install smoke
# (.ci/install-smoke.sh).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not on PATH; install a Rust toolchain (1.89 or newer) first" >&2
  exit 2
fi
args=(install --locked --path "$repo/server")
if [ "$#" -ge 1 ]; then
  args+=(--root "$1")
fi
cargo "${args[@]}"
