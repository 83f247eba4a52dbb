#!/bin/sh
# Checkpoint cost (spec/sessions.md §13, docs/sessions.md "Checkpoints"): a 5,000-file git
# workspace (50 directories of 100 text files of about 2 KB, plus 1,000 ignored build files),
# a 10-turn session where each turn writes 2 files (20 files in all), release build, script
# provider. Reports, per turn, the time of the checkpoint snapshot and of the marks after the
# calls (read from the runner's debug log), and the bytes the snapshots keep on disk.
# Usage: bench/checkpoints.sh   (from the repository root; about 30 s after the build)
# ALISIO_LS_BIN=path runs that binary instead of building one (`CARGO_TARGET_DIR` is honoured).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${ALISIO_LS_BIN:-}" ]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p alisio-ls
  bin="${CARGO_TARGET_DIR:-$root/target}/release/alisio-ls"
else
  bin=$ALISIO_LS_BIN
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A step that fails says what it was and shows its log (the trap removes the directory).
fail() {
  echo "bench/checkpoints.sh: $1" >&2
  [ -f "$tmp/log" ] && sed -n '1,40p' "$tmp/log" >&2
  [ -f "$tmp/out" ] && tail -c 1500 "$tmp/out" >&2
  exit 1
}
export ALISIO_STATE_HOME="$tmp/state" ALISIO_CONFIG_HOME="$tmp/config" HOME="$tmp"
ws="$tmp/ws"
mkdir -p "$ws" "$tmp/config"
python3 - "$ws" <<'PY'
import os, sys
ws = sys.argv[1]
for d in range(50):
    os.makedirs(f"{ws}/src/d{d}", exist_ok=True)
    for f in range(100):
        with open(f"{ws}/src/d{d}/f{f}.txt", "w") as o:
            o.write("".join(f"line {i} of file {d}/{f}: some ordinary source text\n" for i in range(40)))
os.makedirs(f"{ws}/target", exist_ok=True)
for f in range(1000):
    with open(f"{ws}/target/o{f}.bin", "w") as o:
        o.write("x" * 2048)
with open(f"{ws}/.gitignore", "w") as o:
    o.write("target/\n*.jsonl\n")
PY
(cd "$ws" && git init -q && git add . && git -c user.name=b -c user.email=b@b commit -qm init)
files=$(cd "$ws" && git ls-files | wc -l)
bytes=$(du -sb "$ws/src" | cut -f1)
echo "workspace: $files tracked files, $bytes bytes under src/"
sid=""
turn=1
log="$tmp/log"
while [ $turn -le 10 ]; do
  a="src/d$turn/f1.txt"; b="src/d$turn/f2.txt"
  ha=$(sha256sum "$ws/$a" | cut -d' ' -f1); hb=$(sha256sum "$ws/$b" | cut -d' ' -f1)
  # printf, not echo: dash's echo (sh on Debian and Ubuntu) turns the JSON's `\n` into a line
  # break, which broke the script's lines and ended the benchmark after its first line.
  {
    printf '%s\n' '{"alisioScript":1}'
    printf '%s\n' "{\"toolCalls\":[{\"name\":\"write_file\",\"arguments\":{\"path\":\"$a\",\"content\":\"turn $turn\\n\",\"expectedHash\":\"$ha\"}}]}"
    printf '%s\n' "{\"toolCalls\":[{\"name\":\"write_file\",\"arguments\":{\"path\":\"$b\",\"content\":\"turn $turn\\n\",\"expectedHash\":\"$hb\"}}]}"
    printf '%s\n' '{"text":"done"}'
  } > "$ws/turn.jsonl"
  set -- run --json --cwd "$ws" --allow write --script turn.jsonl
  [ -n "$sid" ] && set -- "$@" --session "$sid"
  ALISIO_LOG=alisio_session=debug "$bin" "$@" "turn $turn" > "$tmp/out" 2> "$log" ||
    fail "turn $turn: alisio-ls run exited with $?"
  [ -z "$sid" ] && sid=$(head -1 "$tmp/out" | sed 's/.*"sessionId":"\([^"]*\)".*/\1/')
  grep -q 'snapshot checkpoint' "$log" || fail "turn $turn: no 'snapshot checkpoint' line in the debug log"
  cp=$(grep 'snapshot checkpoint' "$log" | sed 's/.* \([0-9]*\) us.*/\1/')
  marks=$(grep 'snapshot mark' "$log" | sed 's/.* \([0-9]*\) us.*/\1/' | paste -sd+ - | bc)
  read_n=$(grep 'snapshot checkpoint' "$log" | sed 's/.* files, \([0-9]*\) read.*/\1/')
  echo "turn $turn: checkpoint $((cp / 1000)) ms ($read_n files read), 2 marks $((${marks:-0} / 1000)) ms"
  turn=$((turn + 1))
done
echo "snapshots on disk: $(du -sb "$ALISIO_STATE_HOME/snapshots" | cut -f1) bytes ($(find "$ALISIO_STATE_HOME/snapshots" -type f | wc -l) blobs); sessions.db $(du -sb "$ALISIO_STATE_HOME/sessions.db" | cut -f1) bytes"
t0=$(date +%s%N)
"$bin" sessions rewind "$sid" --to 1 --cwd "$ws" > "$tmp/rw" 2>&1
t1=$(date +%s%N)
echo "rewind to checkpoint 1: $(grep -c '^restore ' "$tmp/rw") files restored in $(( (t1 - t0) / 1000000 )) ms (the whole command)"
