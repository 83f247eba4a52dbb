#!/bin/sh
# Process sandbox overhead (issue 15, docs/security.md §8 "Overhead"): `true` and `git status`
# in a 100-file repository (one file modified), started directly, from the run's sandbox thread
# as the process tools start them (Landlock + seccomp inherited from the thread), and through
# the re-exec helper `alisio-ls sandbox-exec` (restrict, then exec: the old way). Prints the
# median wall time and the mean CPU (user+sys) per start and the ratios to direct
# (server/examples/sandbox_bench.rs). Needs git; Linux with Landlock.
# Usage: bench/sandbox.sh [runs [helper...]]   (default 200; each extra helper binary, e.g. an
# older build's alisio-ls-sandbox, is measured as `helper sandbox-exec … -- command` too)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-200}
[ $# -gt 0 ] && shift
extra=""
for h in "$@"; do extra="$extra --helper $h"; done
target=${CARGO_TARGET_DIR:-$here/target}
cargo build --release --quiet --manifest-path "$here/Cargo.toml" -p alisio-ls \
  --bin alisio-ls --example sandbox_bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ws" "$work/tmp"
cd "$work/ws"
git init -q .
i=0
while [ $i -lt 100 ]; do
  mkdir -p "d$((i % 10))"
  echo "file $i" > "d$((i % 10))/f$i.txt"
  i=$((i + 1))
done
git add . && git -c user.name=b -c user.email=b@example.com commit -qm files
echo "changed" > d0/f0.txt
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$target/release/examples/sandbox_bench" "$work/ws" "$work/tmp" "$runs" \
  --helper "$target/release/alisio-ls" $extra
