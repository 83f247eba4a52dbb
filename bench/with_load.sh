#!/bin/sh
# Runs a command beside a CPU-bound load of N processes (issue 25: "measured on a loaded
# machine, beside a CPU-bound load of two processes"), then stops the load. Each load process
# is `yes > /dev/null`: one core's worth of user time, no I/O, no memory.
# Usage: bench/with_load.sh N COMMAND [ARG...]   e.g. bench/with_load.sh 2 bash bench/lsp/run.sh 200
set -eu
n=$1
shift
pids=""
i=0
while [ "$i" -lt "$n" ]; do
  yes > /dev/null &
  pids="$pids $!"
  i=$((i + 1))
done
trap 'kill $pids 2>/dev/null || true' EXIT INT TERM
echo "with_load: $n CPU-bound processes ($pids ) beside: $*"
"$@"
