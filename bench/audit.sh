#!/bin/sh
# `audit` on a large session file (issue 20 §3, docs/audit.md "Bounded memory"): generates a
# Claude Code v2.x session JSONL of SIZE_MB (default 200) megabytes — prompts with their
# instruction files re-sent, api-request records, Read calls with 4 to 40 KB results, nested
# attachments, a skill listing and a compaction every 500 turns — then runs
# `alisio-ls audit --json` on it under /usr/bin/time -v and prints the wall time and the peak
# RSS. The target: peak RSS under 200 MiB.
# Usage: bench/audit.sh            (release build; BIN=path/to/alisio-ls to use another build)
#        SIZE_MB=50 bench/audit.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
size=${SIZE_MB:-200}
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p alisio-ls
  BIN="$root/target/release/alisio-ls"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws/.git" "$tmp/ws/sub" "$tmp/home"
printf '@AGENTS.md\n' > "$tmp/ws/CLAUDE.md"
printf 'Use the tests.\n' > "$tmp/ws/AGENTS.md"
printf 'sub rules\n' > "$tmp/ws/sub/CLAUDE.md"
python3 - "$tmp/ws" "$tmp/big.jsonl" "$size" <<'PY'
import json, random, sys
ws, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3]) << 20
rnd = random.Random(20)
w = open(out, "w")
n = 0
def put(v):
    global n
    s = json.dumps(v, separators=(",", ":"))
    w.write(s + "\n")
    n += len(s) + 1
def rec(kind, extra):
    v = {"type": kind, "sessionId": "big", "uuid": "u%d" % n, "timestamp": "2026-01-01T10:00:00.000Z",
         "cwd": ws, "version": "2.1.332"}
    v.update(extra)
    return v
instr = {"attachment": {"type": "instructions", "files": [
    {"path": ws + "/CLAUDE.md", "type": "Project", "content": "@AGENTS.md"},
    {"path": ws + "/AGENTS.md", "type": "Project", "content": "Use the tests."}]}}
listing = {"attachment": {"type": "skill_listing", "content": "".join(
    "- skill%d: Does thing %d for the team, carefully.\n" % (i, i) for i in range(60))}}
turn, req, prev, count = 0, 0, None, 0
while n < size:
    turn += 1
    if turn % 500 == 0:
        put(rec("system", {"subtype": "compact_boundary", "compactMetadata": {"trigger": "auto", "preTokens": 150000}}))
        put(rec("user", {"isCompactSummary": True, "message": {"role": "user", "content": "Summary " * 200}}))
        put(rec("attachment", listing))
        prev, count = None, 0
    put(rec("user", {"message": {"role": "user", "content": "prompt %d" % turn}}))
    if turn % 500 == 1:
        put(rec("attachment", listing))
    put(rec("attachment", instr))
    for k in range(4):
        req += 1
        rid = "r%d" % req
        v = {"type": "api-request", "sessionId": "big", "id": rid, "timestamp": "2026-01-01T10:00:00.000Z",
             "shapeHash": "s", "params": {"model": "claude-sonnet-4-5"}, "keep": count, "tail": ["h", "h"]}
        if prev:
            v["base"] = prev
        put(v)
        prev, count = rid, count + 2
        path = ws + "/sub/f%d.txt" % rnd.randrange(1000)
        put(rec("assistant", {"requestRef": rid, "promptCacheRequested": "5m", "message": {"id": "m" + rid,
            "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "t" + rid, "name": "Read", "input": {"file_path": path}}],
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 500, "cache_read_input_tokens": 20000, "output_tokens": 50}}}))
        body = "".join("line %d of a file with some ordinary text in it\n" % i for i in range(rnd.randrange(80, 800)))
        put(rec("user", {"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t" + rid, "content": body}]}}))
        if k == 0:
            put(rec("attachment", {"attachment": {"type": "nested_memory", "path": ws + "/sub/CLAUDE.md",
                "content": {"path": ws + "/sub/CLAUDE.md", "type": "Project", "content": "sub rules\n"}}}))
w.close()
print("generated %d bytes, %d turns, %d requests" % (n, turn, req))
PY
ls -l "$tmp/big.jsonl" | awk '{print "file bytes:", $5}'
/usr/bin/time -v "$BIN" --cwd "$tmp/ws" audit --json "$tmp/big.jsonl" > "$tmp/out.json" 2> "$tmp/time.txt"
grep -E "Elapsed \(wall clock\)|Maximum resident set size" "$tmp/time.txt"
python3 - "$tmp/out.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sessions"][0]
c = s["cache"]
print("lines %d, skipped %d, deliveries %d, requests %d, hits %d, expected rebuilds %d, compactions %d"
      % (s["lines"], s["skippedLines"], len(s["deliveries"]), c["requests"], c["hits"], c["expectedRebuilds"], len(s["compactions"])))
PY
kb=$(awk '/Maximum resident set size/ {print $6}' "$tmp/time.txt")
echo "peak RSS: $((kb / 1024)) MiB (target < 200 MiB)"
[ "$kb" -lt $((200 * 1024)) ]
