#!/usr/bin/env bash
# Benchmark: `alisio-ls check` on a generated monorepo against `rg --files` over the same tree,
# measured in one run (hyperfine when available, else a loop). Prints the ratio of the means.
#
# Usage: bench/instructions/run.sh [OUT_DIR]   (default bench/out/instructions, gitignored)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${1:-$repo/bench/out/instructions}"
tree="$out/monorepo"

command -v rg >/dev/null || { echo "ripgrep (rg) is required: apt-get install -y ripgrep" >&2; exit 2; }

if [ ! -f "$tree/.generated" ]; then
  rm -rf "$tree"
  python3 - "$tree" <<'PY'
import os, sys
root = sys.argv[1]
os.makedirs(os.path.join(root, ".git"), exist_ok=True)
def w(p, n, ch="x"):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        line = (ch * 79) + "\n"
        f.write(line * (n // 80) + ch * (n % 80))
w(os.path.join(root, "AGENTS.md"), 20000, "r")
with open(os.path.join(root, ".gitignore"), "w") as f:
    f.write("dist/\n*.log\n")
files = dirs = 0
for p in range(40):
    pkg = os.path.join(root, "packages", f"p{p:02d}")
    w(os.path.join(pkg, "AGENTS.md"), 8000, "p")
    w(os.path.join(pkg, "package.json"), 200)
    w(os.path.join(pkg, "dist", "bundle.js"), 100)          # ignored
    w(os.path.join(pkg, "node_modules", "dep", "i.js"), 100)  # skipped
    for m in range(10):
        mod = os.path.join(pkg, "src", f"m{m}")
        if m % 3 == 0:
            w(os.path.join(mod, "AGENTS.md"), 6000, "m")
        if m == 4:
            w(os.path.join(mod, "AGENT.md"), 300, "l")
        for s in range(5):
            d = os.path.join(mod, f"s{s}")
            os.makedirs(d, exist_ok=True)
            dirs += 1
            for i in range(25):
                w(os.path.join(d, f"f{i}.ts"), 60)
                files += 1
print(f"generated {files} source files in {dirs} leaf directories", file=sys.stderr)
PY
  touch "$tree/.generated"
fi
# GENERATE_ONLY=1: make the tree and stop (bench/same_output.sh uses it).
[ "${GENERATE_ONLY:-}" = 1 ] && exit 0
(cd "$repo" && cargo build --release --quiet)
bin="$repo/target/release/alisio-ls"

nfiles=$(rg --files "$tree" | wc -l)
ndirs=$(find "$tree" -type d -not -path '*/.git*' -not -path '*/node_modules*' -not -path '*/dist*' | wc -l)
echo "tree: $tree ($nfiles files listed by rg, $ndirs directories walked)"
echo "check summary: $("$bin" check --cwd "$tree" | tail -1)"

if command -v hyperfine >/dev/null; then
  hyperfine --warmup 3 --runs 30 -N -i --export-json "$out/hyperfine.json" \
    "$bin check --cwd $tree" "rg --files $tree" >&2
  python3 - "$out/hyperfine.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
a, b = r[0]["mean"], r[1]["mean"]
print(f"alisio-ls check: {a*1000:.1f} ms, rg --files: {b*1000:.1f} ms, ratio {a/b:.2f}x")
PY
else
  t() { local s e; s=$(date +%s%N); for _ in $(seq 20); do "$@" >/dev/null || true; done; e=$(date +%s%N); echo $(( (e - s) / 20000 )); }
  a=$(t "$bin" check --cwd "$tree"); b=$(t rg --files "$tree")
  echo "alisio-ls check: ${a} us, rg --files: ${b} us, ratio $(python3 -c "print(f'{$a/$b:.2f}')")x"
fi
