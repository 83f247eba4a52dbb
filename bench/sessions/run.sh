#!/bin/sh
# Session runner timings (release build, script provider, no network):
#   1. the README demo (19 model turns, governor on), 20 runs;
#   2. a long session: 300 turns of read_file + search_text, governor on, one run;
#   3. `sessions show --json` and `sessions report --json` of that long session.
# Usage: bench/sessions/run.sh   (from the repository root)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/alisio-ls"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ALISIO_STATE_HOME="$tmp/state"
now() { date +%s%N; }

t0=$(now)
i=0
while [ $i -lt 20 ]; do
  "$bin" run --json --cwd "$root/examples/demo" --governor on --script session.jsonl "Where is the greeting built?" > /dev/null
  i=$((i + 1))
done
t1=$(now)
echo "demo: $(( (t1 - t0) / 20000000 )) ms per run (19 turns, governor on)"

mkdir -p "$tmp/ws/.git" "$tmp/ws/src"
seq 1 400 | sed 's/^/line /' > "$tmp/ws/src/a.txt"
{
  echo '{"alisioScript":1}'
  n=0
  while [ $n -lt 150 ]; do
    echo '{"toolCalls":[{"name":"read_file","arguments":{"path":"src/a.txt","limit":50}}],"usage":{"input":1000,"output":10}}'
    echo '{"toolCalls":[{"name":"search_text","arguments":{"pattern":"line 1[0-9]","path":"src"}}],"usage":{"input":1000,"output":10}}'
    n=$((n + 1))
  done
  echo '{"text":"done"}'
} > "$tmp/ws/long.jsonl"
# No compaction and no budget stop: this measures the loop, the store and the governor.
echo '{"limits":{"maxContextChars":100000000,"maxTokens":100000000},"compaction":{"auto":false}}' > "$tmp/ws/cfg.json"
t0=$(now)
"$bin" run --json --cwd "$tmp/ws" --config cfg.json --governor on --max-turns 1000 --script long.jsonl "long" > "$tmp/long.out"
t1=$(now)
sid=$(head -1 "$tmp/long.out" | sed 's/.*"sessionId":"\([^"]*\)".*/\1/')
echo "long session: $(( (t1 - t0) / 1000000 )) ms for 301 turns ($(( (t1 - t0) / 301000 )) us per turn), db $(du -k "$tmp/state/sessions.db" | cut -f1) KiB + wal $(du -k "$tmp/state/sessions.db-wal" 2>/dev/null | cut -f1) KiB"
t0=$(now); "$bin" sessions show "$sid" --json --cwd "$tmp/ws" > /dev/null; t1=$(now)
echo "sessions show --json (603 messages): $(( (t1 - t0) / 1000000 )) ms"
t0=$(now); "$bin" sessions report "$sid" --json --cwd "$tmp/ws" > /dev/null; t1=$(now)
echo "sessions report --json (603 messages, governor on): $(( (t1 - t0) / 1000000 )) ms"
