#!/usr/bin/env bash
# Language-server benchmark: alisio-ls against agnix-lsp on the same generated workspace, in one
# run. Reports time to first diagnostics, didChange -> publishDiagnostics latency (median, p95
# over EDITS edits) and resident memory, and the ratios agnix-lsp / alisio-ls.
# Usage: bench/lsp/run.sh [EDITS]   (agnix-lsp from crates.io: cargo install --root /work/bench-tools agnix-lsp)
set -euo pipefail
cd "$(dirname "$0")/../.."
EDITS="${1:-200}"
AGNIX="${AGNIX_LSP:-$(command -v agnix-lsp || echo /work/bench-tools/bin/agnix-lsp)}"
cargo build --release --quiet
WS="$(mktemp -d)/ws"
python3 bench/lsp/gen.py "$WS"
echo "workspace: $WS ($(find "$WS" -type f | wc -l) files)"
A=$(python3 bench/lsp/drive.py "$WS" "$EDITS" -- "$PWD/target/release/alisio-ls" serve)
echo "alisio-ls: $A"
if [ -x "$AGNIX" ]; then
  B=$(python3 bench/lsp/drive.py "$WS" "$EDITS" -- "$AGNIX")
  echo "agnix-lsp: $B"
  python3 - "$A" "$B" <<'PY'
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for k in a:
    print(f"{k}: agnix-lsp / alisio-ls = {b[k] / a[k]:.2f}x" if a[k] else f"{k}: n/a")
PY
else
  echo "agnix-lsp not found ($AGNIX); install it with: cargo install --root /work/bench-tools agnix-lsp"
fi
