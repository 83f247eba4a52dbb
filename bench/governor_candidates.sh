#!/bin/sh
# The replay over the corpus transcripts of every format, with and without the recovery model
# (spec/governor.md §11.10; a model of recovery, not measured behaviour), as fractions of `off`.
# Usage: bench/governor_candidates.sh [BIN] [governor analyze flags...]
#   e.g. bench/governor_candidates.sh target/debug/alisio-ls --spill-threshold-chars 4000
# Prints one line per format and one for all: sessions, then governed input / cost without
# recovery, with recovery, mask:5 and mask:10 with recovery (input / cost), the number of
# sessions whose governed cost with recovery is above their off cost, and the number whose running
# governed cost without recovery passes off's at some request (spec/governor.md §2.7, the bank).
# DIGITS=N prints the fractions to N decimals (default 3).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/target/debug/alisio-ls}
[ $# -gt 0 ] && shift
corpus=${CORPUS:-$here/../shared/corpus/transcripts}
[ -d "$corpus" ] || corpus=/work/shared/corpus/transcripts
tmp=$(mktemp -d)
for fmt in mini-swe-agent claude-code codex; do
  # A corpus may hold some formats only (the held-out runs: bench/governor_heldout.sh).
  ls -d "$corpus"/$fmt* > /dev/null 2>&1 || continue
  find "$corpus"/$fmt* -type f \( -name '*.jsonl' -o -name '*.traj.json' \) | sort > "$tmp/$fmt.txt"
  xargs "$bin" --json governor analyze --baseline mask:5 --baseline mask:10 "$@" < "$tmp/$fmt.txt" \
    | jq -c --arg fmt "$fmt" '.[] | select(.replay) | {fmt: $fmt, r: .replay}' >> "$tmp/all.jsonl"
done
jq -rs --argjson scale "$(awk -v d="${DIGITS:-3}" 'BEGIN { print 10 ^ d }')" '
  def f: (. * $scale | round) / $scale | tostring;
  def line($name; $xs):
    ($xs | map(.r)) as $r
    | ($r | map(.off.inputTokens) | add) as $oi | ($r | map(.off.cost) | add) as $oc
    | [$name, ($r | length | tostring),
       (($r | map(.governed.inputTokens) | add) / $oi | f) + " / " + (($r | map(.governed.cost) | add) / $oc | f),
       (($r | map(.recovery.governed.inputTokens) | add) / $oi | f) + " / " + (($r | map(.recovery.governed.cost) | add) / $oc | f),
       (($r | map(.recovery.baselines[0].inputTokens) | add) / $oi | f) + " / " + (($r | map(.recovery.baselines[0].cost) | add) / $oc | f),
       (($r | map(.recovery.baselines[1].inputTokens) | add) / $oi | f) + " / " + (($r | map(.recovery.baselines[1].cost) | add) / $oc | f),
       ($r | map(select(.recovery.governed.cost > .off.cost)) | length | tostring),
       ($r | map(select(
          def costs($s): [range(0; $s.inputTokens | length) as $i
            | 0.1 * $s.cachedTokens[$i] + 1.25 * ($s.inputTokens[$i] - $s.cachedTokens[$i])];
          (costs(.perRequest.off)) as $o | (costs(.perRequest.governed)) as $g
          | [foreach range(0; $o | length) as $i (0; . + $g[$i] - $o[$i]; .)] | any(. > 1e-6)))
        | length | tostring)]
    | join(" | ");
  "format | sessions | governed | governed+recovery | mask:5+recovery | mask:10+recovery | above off | running above off",
  (group_by(.fmt)[] | line(.[0].fmt; .)),
  line("all"; .)
' "$tmp/all.jsonl"
rm -rf "$tmp"
