#!/usr/bin/env bash
# Scale benchmark (issue 14): 15,000 skills in 500 repositories with 1,500 instruction files.
# Measures, in one run on the same tree: `alisio-ls check` against `alisio-ls skills validate`
# of the same 15,000 skills (goal: check <= 2x), and the language server's first full pass
# (time, and resident memory after it; goal: <= 200 MiB), and the time a bad SKILL.md written
# 1 s after `initialized` takes to show its diagnostic (goal: <= 5 s).
# `skills validate` walks its PATHs with the 2,000-directory discovery bound of spec/skills.md §1.3,
# so the 15,000 skill directories are given 1,000 per process (15 processes, times summed by
# running them in sequence). Wall time on a shared machine wanders: CPU time (user + sys) is
# printed as well, and the ratio is given for both.
# Usage: bench/scale/run.sh [RUNS] [OUT_DIR]   (default 3 runs, bench/out/scale, gitignored)
# BENCH_SCALE_TREE=DIR measures an existing tree instead of the generated one, e.g. a checkout of
# the public mirror github.com/gabrielmoreira/agent-skills-mirror (15,728 skills; docs/skills.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
runs="${1:-3}"
out="${2:-$repo/bench/out/scale}"
tree="${BENCH_SCALE_TREE:-$out/tree}"
(cd "$repo" && cargo build --release --quiet -p alisio-ls)
bin="$repo/target/release/alisio-ls"
if [ -n "${BENCH_SCALE_TREE:-}" ]; then
  [ -d "$tree" ] || { echo "BENCH_SCALE_TREE=$tree is not a directory" >&2; exit 2; }
elif [ ! -f "$tree/.generated" ]; then
  rm -rf "$tree"
  python3 "$here/gen.py" "$tree"
  touch "$tree/.generated"
fi
cfg="$out/config-home"; mkdir -p "$cfg"
export ALISIO_CONFIG_HOME="$cfg" HOME="$out" NO_COLOR=1
(cd "$tree" && find repos -name SKILL.md -printf '%h\n' | sort > "$out/skill-dirs.txt")
echo "tree: $tree ($(wc -l < "$out/skill-dirs.txt") skills, $(find "$tree" -type f | wc -l) files)"
# "wall cpu" seconds of a command and its children (bench/scale/time_of.py).
time_of() { python3 "$here/time_of.py" "$@"; }
rows=()
for _ in $(seq "$runs"); do
  rows+=("$(cd "$tree" && time_of "$bin" check) $(cd "$tree" && time_of "$bin" check --trust-project) $(cd "$tree" && time_of xargs -n 1000 -a "$out/skill-dirs.txt" "$bin" skills validate)")
done
echo "check summary: $(cd "$tree" && "$bin" check 2>/dev/null | tail -1)"
echo "skills validate summary: $(cd "$tree" && xargs -n 1000 -a "$out/skill-dirs.txt" "$bin" skills validate 2>/dev/null | grep 'files checked' | awk '{n += $1} END {print n " files checked"}')"
python3 - "${rows[@]}" <<'PY'
import statistics, sys
rows = [list(map(float, r.split())) for r in sys.argv[1:]]
m = [statistics.median(col) for col in zip(*rows)]
cw, cc, tw, tc, vw, vc = m
print(f"median of {len(rows)} runs, wall (cpu) seconds: check {cw:.2f} ({cc:.2f}), "
      f"check --trust-project {tw:.2f} ({tc:.2f}), skills validate of the same skills {vw:.2f} ({vc:.2f})")
print(f"check / skills validate: {cw / vw:.2f}x wall, {cc / vc:.2f}x cpu; trusted: {tw / vw:.2f}x wall, {tc / vc:.2f}x cpu")
PY
echo "language server: $(python3 "$here/lsp_pass.py" "$tree" -- "$bin" serve)"
# Issue 14's goal: a bad SKILL.md written 1 s after `initialized` shows its diagnostic within
# 5 s (late_s, from the write to the publication), and at most 200 MiB resident after the pass.
for w in server client; do
  echo "language server, bad SKILL.md written 1 s after initialized, watcher $w: $(python3 "$here/lsp_pass.py" "$tree" --late 1 --watcher "$w" -- "$bin" serve)"
done
