#!/usr/bin/env bash
# `cargo install` as on a fresh machine (docs/install.md): a new CARGO_HOME (so every crate is
# fetched from crates.io again) and a temporary --root, via scripts/install.sh (the README's
# `cargo install --locked --path server`); then the installed binary must pass `--version` and
# the demo's `check` (examples/monorepo: exit 0 with its known warnings).
# Usage: .ci/install-smoke.sh [BUDGET_SECONDS]  (default 1500). Over the budget it stops and
# says so (exit 0: a skipped smoke, like the fuzz smoke). The build goes to target/install-smoke
# (a separate target dir, kept between runs; ALISIO_FRESH_TARGET=1 uses a temporary one).
set -uo pipefail
budget=${1:-1500}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CARGO_HOME=$tmp/cargo-home
mkdir -p "$CARGO_HOME"
if [ "${ALISIO_FRESH_TARGET:-}" = "1" ]; then
  export CARGO_TARGET_DIR=$tmp/target
else
  export CARGO_TARGET_DIR=$repo/target/install-smoke
fi
root=$tmp/root
echo "== install smoke: cargo install --locked --path server --root $root (CARGO_HOME=$CARGO_HOME, budget ${budget}s)"
log=$tmp/install.log
timeout "$budget" bash "$repo/scripts/install.sh" "$root" >"$log" 2>&1
rc=$?
if [ "$rc" -eq 124 ]; then
  tail -3 "$log"
  echo "install smoke: skipped (cargo install did not finish within ${budget}s)"
  exit 0
fi
if [ "$rc" -ne 0 ]; then
  tail -40 "$log"
  echo "install smoke: FAILED (cargo install exit $rc)"
  exit 1
fi
bin=$root/bin/alisio-ls
ver=$("$bin" --version) || { echo "install smoke: FAILED (--version)"; exit 1; }
want="alisio-ls $(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -1)"
if [ "$ver" != "$want" ]; then
  echo "install smoke: FAILED (--version printed '$ver', expected '$want')"
  exit 1
fi
# The demo's check (examples/demo.sh's first step): warnings only, so exit 0, with its known
# skill-name-directory-mismatch among the findings.
out=$("$bin" check --cwd "$repo/examples/monorepo" --trust-project --format json)
rc=$?
n=$(grep -o '"code":"[a-z-]*"' <<<"$out" | wc -l)
if [ "$rc" -ne 0 ] || [ "$n" -eq 0 ] || ! grep -q '"code":"skill-name-directory-mismatch"' <<<"$out"; then
  echo "$out" | head -20
  echo "install smoke: FAILED (demo check exit $rc with $n findings; expected exit 0 with its warnings, skill-name-directory-mismatch among them)"
  exit 1
fi
echo "install smoke: ok ($ver; the demo's check: exit 0, $n findings)"
