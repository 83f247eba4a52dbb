#!/usr/bin/env bash
# Installs agnix (PyPI `agnix`, the Rust linter alisio-ls is compared with, issue 23) at the
# version pinned in tests/agnix/pin.txt into a virtual environment under target/, for the agnix
# suite (tests/cli/agnix.rs, tests/agnix/catalogue.sh). Never fails the CI run: on any problem it
# says so, and the suite skips, printing why.
set -uo pipefail
cd "$(dirname "$0")/.."
venv="${1:-target/agnix-venv}"
version=$(tr -d ' \n' < tests/agnix/pin.txt)
if [ -x "$venv/bin/agnix" ] && [ "$("$venv/bin/agnix" --version 2>/dev/null)" = "agnix $version" ]; then
  echo "setup-agnix: agnix $version already installed"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "setup-agnix: python3 not found; the agnix suite will skip"
  exit 0
fi
if ! python3 -m venv "$venv" || ! "$venv/bin/pip" install --quiet "agnix==$version"; then
  echo "setup-agnix: installing agnix $version failed; the agnix suite will skip"
fi
exit 0
