#!/bin/sh
# Governor benchmarks, as ratios in one run (issue 4):
#  1. `governor analyze --json` over the whole transcript corpus vs `jq -c .` merely parsing it;
#  2. governing request N+1 after request N on a 10,000-message history vs from scratch.
# Needs hyperfine and jq. Usage: bench/governor.sh [corpus dir]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$here/../shared/corpus/transcripts}
cargo build --release --quiet --manifest-path "$here/Cargo.toml" -p alisio-ls
bin=$here/target/release/alisio-ls
mkdir -p "$here/bench/out"
find "$corpus" -type f \( -name '*.jsonl' -o -name '*.traj.json' \) | sort > "$here/bench/out/files.txt"
echo "files: $(wc -l < "$here/bench/out/files.txt"), bytes: $(xargs cat < "$here/bench/out/files.txt" | wc -c)"
hyperfine --warmup 2 --runs 10 --export-markdown "$here/bench/out/analyze.md" \
  -n "alisio-ls governor analyze --json (policy 2, two baselines)" "xargs $bin --json governor analyze --baseline mask:5 --baseline mask:10 < $here/bench/out/files.txt > /dev/null" \
  -n "jq -c ." "xargs jq -c . < $here/bench/out/files.txt > /dev/null"
cargo run --release --quiet --manifest-path "$here/Cargo.toml" -p alisio-ls --example governor_bench
