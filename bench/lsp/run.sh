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
# The issue's goals are alisio-ls / agnix-lsp (memory <= 0.9, edit latency < 1): that ratio first.
for k in a:
    x, y = a[k], b.get(k)
    if isinstance(x, (int, float)) and isinstance(y, (int, float)) and x and y:
        print(f"{k}: alisio-ls / agnix-lsp = {x / y:.2f} (agnix-lsp / alisio-ls = {y / x:.2f}x)")
    else:
        print(f"{k}: n/a (alisio-ls {x}, agnix-lsp {y})")
PY
else
  echo "agnix-lsp not found ($AGNIX); install it with: cargo install --root /work/bench-tools agnix-lsp"
fi
