#!/usr/bin/env bash
# The soak test's figures: 10,000 randomized edits and file events over 200 files driven
# through the language server over stdio (tests/hostile/soak.rs), in a release build.
# Prints request latency per fifth of the run and VmRSS every 500 events; the test itself
# asserts only that the final diagnostics equal `check --format json`.
#   bench/soak.sh [report-file]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-1}
ALISIO_SOAK_REPORT="$out" cargo test --release --test hostile soak -- --nocapture 2>&1 \
  | grep -E '^(soak:|requests at|VmRSS|test result)'
