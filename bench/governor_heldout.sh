#!/bin/sh
# The held-out mini-swe-agent runs (docs/governor.md, "Held out"): the 171 trajectories of
# mini-swe-agent's evaluation output that the corpus does not hold, laid out so that
# bench/governor_candidates.sh can replay them (CORPUS=OUT).
#
# Usage: bench/governor_heldout.sh CLONE OUT
#   CLONE: a git clone of the public SWE-agent/mini-swe-agent repository holding commit
#          ec0e8e849fea5b1619deb1753007201000904672 (from its pull request 816:
#          `git fetch origin pull/816/head`);
#   OUT:   a new directory, outside this repository (the runs are data for measuring, never
#          copied in: the corpus's licence notes apply to them too).
# Then: CORPUS=OUT sh bench/governor_candidates.sh target/debug/alisio-ls [flags...]
# The 12 corpus runs (../shared/corpus/MANIFEST.md, same commit) are left out by path; the one
# path whose blob the clone lacks is skipped and counted.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
clone=$1
out=$2
commit=ec0e8e849fea5b1619deb1753007201000904672
manifest=${MANIFEST:-$here/../shared/corpus/MANIFEST.md}
[ -f "$manifest" ] || { echo "no corpus manifest at $manifest (set MANIFEST)" >&2; exit 2; }
mkdir -p "$out/mini-swe-agent"
tmp=$(mktemp -d)
grep -o 'transcripts/mini-swe-agent/SWE-agent__mini-swe-agent/[^`]*traj\.json' "$manifest" \
  | sed 's|^transcripts/mini-swe-agent/SWE-agent__mini-swe-agent/||' | sort -u > "$tmp/corpus.txt"
git -C "$clone" ls-tree -r --name-only "$commit" -- output | grep '\.traj\.json$' | sort \
  | comm -23 - "$tmp/corpus.txt" > "$tmp/heldout.txt"
written=0
missing=0
while read -r p; do
  dest="$out/mini-swe-agent/$(echo "$p" | tr / _)"
  if git -C "$clone" show "$commit:$p" > "$dest" 2>/dev/null; then
    written=$((written + 1))
  else
    rm -f "$dest"
    missing=$((missing + 1))
  fi
done < "$tmp/heldout.txt"
left=$(wc -l < "$tmp/corpus.txt")
rm -rf "$tmp"
echo "corpus runs left out: $left; held-out runs written: $written; missing blobs: $missing"
