#!/usr/bin/env bash
# A short run of every fuzz target (default 20 s each, single job), for .ci/run when time
# allows. Skips cleanly when cargo-fuzz or a nightly-capable toolchain is missing.
#   .ci/fuzz-smoke.sh [seconds-per-target]
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked >/dev/null 2>&1 || { echo "fuzz smoke: cargo-fuzz unavailable, skipped"; exit 0; }
fi
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then export RUSTC_BOOTSTRAP=1; fi
fuzz/run.sh "$secs"
rc=$?
[ $rc -eq 0 ] && echo "fuzz smoke: every target ran ${secs}s without a finding"
exit $rc
