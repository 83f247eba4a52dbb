#!/usr/bin/env bash
# `check` against `skills validate` on the same skills of a tree larger than the workspace walk's
# bound (20,000 directories, spec/instructions.md §5.1), such as the public agent-skills mirror
# (github.com/gabrielmoreira/agent-skills-mirror: 15,728 skills, 28,000 directories under
# mirrors/repos). On such a tree `check` stops at the bound and checks only part of the skills,
# so the plain ratio of bench/scale/run.sh compares unequal work. This script puts the tree's
# repositories into groups of fewer than 20,000 directories (hard links, no copy of the bytes),
# runs `check` on each group and `skills validate` on each group's skills (1,000 directories a
# process, the discovery bound of spec/skills.md §1.3), and sums: both tools then see every skill.
# Usage: bench/scale/groups.sh REPOS_DIR [RUNS] [OUT_DIR]
#   e.g. bench/scale/groups.sh /work/real-mirror/mirrors/repos 3
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
src="$(cd "$1" && pwd)"
runs="${2:-3}"
out="${3:-$repo/bench/out/scale-groups}"
(cd "$repo" && cargo build --release --quiet -p alisio-ls)
bin="$repo/target/release/alisio-ls"
rm -rf "$out" && mkdir -p "$out/groups"
python3 - "$src" "$out/groups" <<'PY'
import os, subprocess, sys
src, dst = sys.argv[1], sys.argv[2]
# Greedy in name order: a group takes repositories while it stays under 19,000 directories
# (the bound is 20,000; the margin is for the group's own directories).
limit, groups, cur, n = 19000, [], [], 0
for r in sorted(os.listdir(src)):
    d = sum(1 for _ in os.walk(os.path.join(src, r))) if os.path.isdir(os.path.join(src, r)) else 0
    if cur and n + d > limit:
        groups.append(cur); cur, n = [], 0
    cur.append(r); n += d
if cur:
    groups.append(cur)
for k, g in enumerate(groups):
    os.makedirs(os.path.join(dst, f"g{k}", "repos"))
    os.makedirs(os.path.join(dst, f"g{k}", ".git"))
    subprocess.run(["cp", "-al", *[os.path.join(src, r) for r in g], os.path.join(dst, f"g{k}", "repos")], check=True)
print(f"{len(groups)} groups: " + ", ".join(f"g{k} {len(g)} repositories" for k, g in enumerate(groups)))
PY
cfg="$out/config-home"; mkdir -p "$cfg"
export ALISIO_CONFIG_HOME="$cfg" HOME="$out" NO_COLOR=1
for g in "$out"/groups/g*; do
  (cd "$g" && find repos -name SKILL.md -printf '%h\n' | sort > "$g.skills")
  echo "$(basename "$g"): $(wc -l < "$g.skills") skills, $(find "$g" -type d | wc -l) directories; check: $(cd "$g" && "$bin" check 2>&1 | tail -1)"
done
time_of() { python3 "$here/time_of.py" "$@"; }
rows=()
for _ in $(seq "$runs"); do
  row=""
  for g in "$out"/groups/g*/; do
    g=${g%/}
    row="$row $(cd "$g" && time_of "$bin" check) $(cd "$g" && time_of xargs -n 1000 -a "$g.skills" "$bin" skills validate)"
  done
  rows+=("$row")
done
python3 - "${rows[@]}" <<'PY'
import statistics, sys
rows = [list(map(float, r.split())) for r in sys.argv[1:]]
# Per run: sum over the groups of check (wall, cpu) and of skills validate (wall, cpu).
sums = [[sum(r[0::4]), sum(r[1::4]), sum(r[2::4]), sum(r[3::4])] for r in rows]
cw, cc, vw, vc = [statistics.median(c) for c in zip(*sums)]
print(f"median of {len(rows)} runs, summed over the groups, wall (cpu) seconds: check {cw:.2f} ({cc:.2f}), skills validate of the same skills {vw:.2f} ({vc:.2f})")
print(f"check / skills validate: {cw / vw:.2f}x wall, {cc / vc:.2f}x cpu")
PY
