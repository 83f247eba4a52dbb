#!/usr/bin/env bash
# The pre-commit hook as a user meets it (docs/install.md): pre-commit from PyPI in a venv, then
# `pre-commit try-repo <this repository> alisio-ls-check --all-files` in a temporary git
# repository must fail (exit 1, the diagnostic in its output) with a bad SKILL.md and pass
# (exit 0) once it is fixed. try-repo builds the hook with `cargo install` (language: rust).
# Usage: .ci/pre-commit-smoke.sh [BUDGET_SECONDS]  (default 1500). A missing python3/git, no
# PyPI, or the budget skips with a reason (exit 0); a wrong result fails (exit 1).
set -uo pipefail
budget=${1:-1500}
deadline=$(( $(date +%s) + budget ))
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
skip() { echo "pre-commit smoke: skipped ($*)"; exit 0; }
fail() { echo "pre-commit smoke: FAILED ($*)"; exit 1; }
command -v python3 >/dev/null || skip "python3 is not installed"
command -v git >/dev/null || skip "git is not installed"
venv=$target/venv-precommit
if [ ! -x "$venv/bin/pre-commit" ]; then
  python3 -m venv "$venv" || skip "cannot create a venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "pre-commit==4.7.0" ||
    skip "pre-commit could not be installed from PyPI"
fi
pc=$venv/bin/pre-commit
echo "== pre-commit smoke: $("$pc" --version), hook from $repo (budget ${budget}s)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The hook's cargo build: its own target dir (kept between runs, so a rerun rebuilds only the
# alisio-ls crate), never the workspace's.
export CARGO_TARGET_DIR=$target/pre-commit-smoke
export PRE_COMMIT_HOME=$tmp/pre-commit-home
ws=$tmp/ws
mkdir -p "$ws/.agents/skills/pdf-tools"
cd "$ws"
git init -q . && git config user.email smoke@example.invalid && git config user.name smoke
printf -- '---\nname: PDF_Tools\ndescription: Fill and merge PDF forms.\n---\n\nUse pdftk.\n' \
  >.agents/skills/pdf-tools/SKILL.md
git add -A && git commit -qm bad

try() {
  local left=$(( deadline - $(date +%s) ))
  [ "$left" -gt 0 ] || skip "over the budget of ${budget}s"
  timeout "$left" "$pc" try-repo "$repo" alisio-ls-check --all-files >"$tmp/out" 2>&1
}
try
rc=$?
[ "$rc" -eq 124 ] && skip "try-repo did not finish within ${budget}s (the hook's cargo install)"
cat "$tmp/out"
[ "$rc" -eq 1 ] || fail "a bad SKILL.md gave exit $rc, expected 1"
grep -q 'skills/pdf-tools/SKILL.md' "$tmp/out" || fail "the diagnostic's file is not in the output"
grep -q 'name' "$tmp/out" || fail "the name diagnostic is not in the output"

sed -i 's/^name: PDF_Tools$/name: pdf-tools/' .agents/skills/pdf-tools/SKILL.md
git add -A && git commit -qm fixed
try
rc=$?
[ "$rc" -eq 124 ] && skip "try-repo did not finish within ${budget}s"
[ "$rc" -eq 0 ] || { cat "$tmp/out"; fail "the fixed SKILL.md gave exit $rc, expected 0"; }
echo "pre-commit smoke: ok (bad SKILL.md: exit 1 with its diagnostic; fixed: exit 0)"
