#!/usr/bin/env bash
# Incremental rebuild after a one-line change in each layer (issue 25 §5): appends a comment
# line to one file of the layer, times `cargo build` (the binary) and `cargo test --workspace
# --no-run` (what a developer rebuilds before running tests), then restores the file.
#   bench/rebuild.sh [TREE]     TREE defaults to this repository; it must have been built once.
# Works on the single-crate tree before the split too (the paths of the layers are looked up).
set -euo pipefail
tree=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$tree"
pick() { for f in "$@"; do [ -f "$f" ] && { echo "$f"; return; }; done; }
layers=(
  "base:$(pick crates/alisio-base/src/text.rs server/src/text.rs)"
  "rules:$(pick crates/alisio-rules/src/skills/mod.rs server/src/skills/mod.rs)"
  "governor:$(pick crates/alisio-governor/src/lib.rs server/src/governor/mod.rs)"
  "session:$(pick crates/alisio-session/src/lib.rs server/src/session/mod.rs)"
  "lsp:server/src/lsp/mod.rs"
)
cargo build -q 2>/dev/null; cargo test -q --workspace --no-run 2>/dev/null
echo "tree: $tree  (load: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-9s %-40s %10s %14s\n' layer file build test-no-run
for l in "${layers[@]}"; do
  name=${l%%:*}; file=${l#*:}
  cp -p "$file" "$file.bak"   # -p: the restored file keeps its old mtime, so the next build
                              # does not rebuild this layer again (a comment changes no code)
  echo "// rebuild probe" >> "$file"
  t0=$(date +%s.%N); cargo build -q 2>/dev/null; t1=$(date +%s.%N)
  cargo test -q --workspace --no-run 2>/dev/null; t2=$(date +%s.%N)
  mv "$file.bak" "$file"
  printf '%-9s %-40s %9.1fs %13.1fs\n' "$name" "$file" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
done
