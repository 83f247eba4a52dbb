#!/usr/bin/env bash
# Incremental rebuild after a one-line change in each layer (issue 25 §5): appends a comment
# line to one file of the layer, times `cargo build` (the binary) and `cargo test --workspace
# --no-run` (what a developer rebuilds before running tests), then restores the file.
#   bench/rebuild.sh [TREE]     TREE defaults to this repository; it must have been built once.
# Works on the single-crate tree before the split too (the paths of the layers are looked up).
# Prints wall seconds and CPU seconds (user + sys of cargo and rustc): on a shared machine the
# CPU figure is the steadier one; compare trees measured in the same run.
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
printf '%-9s %-40s %16s %18s\n' layer file 'build wall/cpu' 'test-build wall/cpu'
TIMEFORMAT='%R %U %S'
timed() { { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{printf "%.1fs/%.1fs", $1, $2 + $3}'; }
for l in "${layers[@]}"; do
  name=${l%%:*}; file=${l#*:}
  cp -p "$file" "$file.bak"   # -p: the restored file keeps its old mtime, so the next build
                              # does not rebuild this layer again (a comment changes no code)
  echo "// rebuild probe" >> "$file"
  b=$(timed cargo build -q)
  t=$(timed cargo test -q --workspace --no-run)
  mv "$file.bak" "$file"
  printf '%-9s %-40s %16s %18s\n' "$name" "$file" "$b" "$t"
done
