#!/usr/bin/env bash
# A short run of every fuzz target (default 20 s each, single job), for .ci/run when time
# allows. Skips cleanly (exit 0, with a note) when cargo-fuzz cannot be installed, when the
# sanitizer build fails on this toolchain, or when the time budget runs out; fails only on a
# finding.
#   .ci/fuzz-smoke.sh [seconds-per-target] [budget-seconds]
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
budget=${2:-1800}
start=$(date +%s)
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  timeout "$budget" cargo install cargo-fuzz --locked >/dev/null 2>&1 || { echo "fuzz smoke: cargo-fuzz unavailable, skipped"; exit 0; }
fi
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then export RUSTC_BOOTSTRAP=1; fi
# A compile error in the fuzz targets (a missed rename) must fail, not pass as "this toolchain
# cannot build sanitizers": check them without sanitizers first.
if ! cargo check --quiet --manifest-path fuzz/Cargo.toml --bins 2>fuzz/artifacts-check.log; then
  echo "fuzz smoke: the fuzz targets do not compile:"; tail -30 fuzz/artifacts-check.log; exit 1
fi
left=$(( budget - ($(date +%s) - start) ))
[ "$left" -gt 60 ] || { echo "fuzz smoke: no time left in the budget, skipped"; exit 0; }
timeout "$left" fuzz/run.sh "$secs"
rc=$?
# Findings first: a target that found something fails the smoke even when the budget then ran out.
if [ -s fuzz/artifacts/findings ]; then
  echo "fuzz smoke: findings in $(tr '\n' ' ' < fuzz/artifacts/findings)(fuzz/artifacts/<target>/)"; exit 1
fi
case $rc in
  0) echo "fuzz smoke: every target ran ${secs}s without a finding" ;;
  3) echo "fuzz smoke: the sanitizer build failed on this toolchain (fuzz/artifacts-build.log), skipped"; rc=0 ;;
  124) echo "fuzz smoke: stopped at the ${budget}s budget; the targets listed above ran without a finding"; rc=0 ;;
esac
exit $rc
