#!/usr/bin/env bash
# Output unchanged (issue 25): `check --json` of two binaries on the bench trees, compared byte
# for byte. Run it before merging a change to a hot path, with the binary of the base commit:
#   git worktree add /tmp/base main && (cd /tmp/base && cargo build --release -p alisio-ls)
#   bash bench/same_output.sh /tmp/base/target/release/alisio-ls target/release/alisio-ls
# Trees (generated once, gitignored under bench/out): the instructions monorepo of
# bench/instructions/run.sh, the LSP workspace of bench/lsp/gen.py and the 15,000-skill scale tree
# of bench/scale/gen.py. Exit 1 on the first difference, with a diff of its first lines.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
[ $# -eq 2 ] || { echo "usage: bench/same_output.sh BEFORE_BIN AFTER_BIN" >&2; exit 2; }
before="$(realpath "$1")" after="$(realpath "$2")"
out="$repo/bench/out"
GENERATE_ONLY=1 bash "$here/instructions/run.sh" "$out/instructions" >/dev/null
[ -f "$out/lsp/tree/.generated" ] || { python3 "$here/lsp/gen.py" "$out/lsp/tree" >/dev/null && touch "$out/lsp/tree/.generated"; }
[ -f "$out/scale/tree/.generated" ] || { python3 "$here/scale/gen.py" "$out/scale/tree" 2>/dev/null && touch "$out/scale/tree/.generated"; }
cfg=$(mktemp -d); trap 'rm -rf "$cfg"' EXIT
export ALISIO_CONFIG_HOME="$cfg" NO_COLOR=1
status=0
for tree in "$out/instructions/monorepo" "$out/lsp/tree" "$out/scale/tree"; do
  for flags in "" "--trust-project" "--host claude-code"; do
    # shellcheck disable=SC2086
    (cd "$tree" && "$before" --json $flags check > "$cfg/before.json" 2>/dev/null) || true
    # shellcheck disable=SC2086
    (cd "$tree" && "$after" --json $flags check > "$cfg/after.json" 2>/dev/null) || true
    if [ ! -s "$cfg/after.json" ]; then
      echo "NO OUTPUT: $tree ${flags:-(untrusted)}"; status=1
    elif cmp -s "$cfg/before.json" "$cfg/after.json"; then
      echo "same: $tree ${flags:-(untrusted)} ($(wc -c < "$cfg/after.json") bytes)"
    else
      echo "DIFFERENT: $tree ${flags:-(untrusted)}"
      diff <(head -c 4000 "$cfg/before.json" | tr ',' '\n') <(head -c 4000 "$cfg/after.json" | tr ',' '\n') | head -20 || true
      status=1
    fi
  done
done
exit $status
