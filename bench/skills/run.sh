#!/usr/bin/env bash
# Benchmark: `alisio-ls skills validate` (release build) against skills-ref and agnix (both from
# PyPI), over the real corpus (../shared/corpus/skills) and over a generated tree of 5,000
# skills. Ratios are measured in one run on the same files, in wall and CPU time (user + sys).
# Usage: bash bench/skills/run.sh [RUNS] [--no-skills-ref]   (the latter times alisio-ls and agnix only)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
runs="${1:-5}"
shift || true
cd "$repo"
cargo build --release -q
venv="$repo/target/bench-skills-venv"
if [ ! -x "$venv/bin/agnix" ] || [ ! -x "$venv/bin/agentskills" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check skills-ref==0.1.1 agnix
fi
work="$repo/target/bench-skills"
rm -rf "$work" && mkdir -p "$work"
python3 "$here/generate.py" "$work/generated" 5000
mirror=()
if [ -d "$repo/../shared/corpus/skills" ]; then
  python3 "$here/mirror.py" "$repo/../shared/corpus/skills" "$work/mirror" 1500
  mirror=(--mirror "$work/mirror")
fi
exec python3 "$here/bench.py" --runs "$runs" --alisio "$repo/target/release/alisio-ls" --venv "$venv" \
  --driver "$repo/tests/fixtures/skills/skills_ref_verdicts.py" --corpus "$repo/../shared/corpus/skills" \
  --generated "$work/generated" --scratch "$work" "${mirror[@]}" "$@"
