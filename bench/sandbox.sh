#!/bin/sh
# Process sandbox overhead (issue 15, docs/security.md "The process sandbox"): the same command
# started directly and through `alisio-ls sandbox-exec` (Landlock + seccomp, then exec), as the
# process tools start it, for `true` and for `git status` in a 100-file repository. Prints
# medians and the ratio sandboxed / unsandboxed. Needs python3 and git; Linux with Landlock.
# Usage: bench/sandbox.sh [runs]   (default 200; ALISIO_LS_BIN=path skips the release build)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-200}
if [ -n "${ALISIO_LS_BIN:-}" ]; then
  bin=$ALISIO_LS_BIN
else
  cargo build --release --quiet --manifest-path "$here/Cargo.toml" -p alisio-ls
  bin=$here/target/release/alisio-ls
fi
echo "binary: $bin ($(wc -c < "$bin") bytes)"
"$bin" sandbox-exec --probe >/dev/null || { echo "no sandbox on this machine"; exit 1; }
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
BIN=$bin WS=$work/ws TMPD=$work/tmp RUNS=$runs python3 - <<'EOF'
import os, statistics, subprocess, time
bin, ws, tmpd, runs = os.environ["BIN"], os.environ["WS"], os.environ["TMPD"], int(os.environ["RUNS"])
wrap = [bin, "sandbox-exec", "--mode", "workspace-write", "--write", tmpd, "--write", ws, "--"]
def median_ms(argv):
    for _ in range(5):
        subprocess.run(argv, cwd=ws, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    t = []
    for _ in range(runs):
        s = time.perf_counter()
        subprocess.run(argv, cwd=ws, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        t.append((time.perf_counter() - s) * 1000)
    return statistics.median(t)
print(f"{'command':<14} {'direct ms':>10} {'sandboxed ms':>13} {'ratio':>6}   (median of {runs})")
for name, argv in [("true", ["true"]), ("git status", ["git", "status", "--porcelain"])]:
    d = median_ms(argv)
    s = median_ms(wrap + argv)
    print(f"{name:<14} {d:>10.2f} {s:>13.2f} {s / d:>6.2f}")
EOF
