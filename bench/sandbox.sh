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
import os, resource, statistics, subprocess, time
bin, ws, tmpd, runs = os.environ["BIN"], os.environ["WS"], os.environ["TMPD"], int(os.environ["RUNS"])
args = ["sandbox-exec", "--mode", "workspace-write", "--write", tmpd, "--write", ws, "--"]
helpers = [("alisio-ls", [bin] + args)]
small = os.path.join(os.path.dirname(bin), "alisio-ls-sandbox")
if os.path.isfile(small):
    helpers.append(("alisio-ls-sandbox", [small] + args))
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
def measure(argv):
    """(median wall ms, mean CPU ms of the children) over `runs` starts."""
    for _ in range(5):
        subprocess.run(argv, cwd=ws, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    t = []
    c0 = cpu()
    for _ in range(runs):
        s = time.perf_counter()
        subprocess.run(argv, cwd=ws, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        t.append((time.perf_counter() - s) * 1000)
    return statistics.median(t), (cpu() - c0) * 1000 / runs
print(f"median of {runs} starts; the process tools use alisio-ls-sandbox when it is installed beside alisio-ls")
print("wall = median elapsed ms; cpu = mean user+sys ms of the started processes (steadier on a loaded machine)")
print(f"{'command':<12} {'helper':<18} {'wall direct':>11} {'sandboxed':>10} {'ratio':>6} {'cpu direct':>11} {'sandboxed':>10} {'ratio':>6}")
for name, argv in [("true", ["true"]), ("git status", ["git", "status", "--porcelain"])]:
    for hname, wrap in helpers:
        # Direct and sandboxed measured back to back, under the same load.
        (d, dc), (w, wc) = measure(argv), measure(wrap + argv)
        print(f"{name:<12} {hname:<18} {d:>11.2f} {w:>10.2f} {w / d:>6.2f} {dc:>11.2f} {wc:>10.2f} {wc / dc:>6.2f}")
EOF
