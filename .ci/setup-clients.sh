#!/usr/bin/env bash
# Installs the real agent clients the conformance suite runs (tests/real, docs/spec/hosts.md §0)
# into target/clients at the versions pinned in tests/real/pins.txt: `npm install --prefix`.
# A package already installed at its pin is not fetched again. Never fails the CI run: on any
# problem it says so, and the suite skips the clients it cannot find, printing why.
set -uo pipefail
cd "$(dirname "$0")/.."
dest="${1:-target/clients}"
pins=tests/real/pins.txt
if ! command -v npm >/dev/null 2>&1; then
  echo "setup-clients: npm not found; the real-client suite will skip"
  exit 0
fi
mkdir -p "$dest"
want=()
while read -r pkg version; do
  [ -z "$pkg" ] && continue
  case "$pkg" in \#*) continue ;; esac
  have=$(node -p "require('./$dest/node_modules/$pkg/package.json').version" 2>/dev/null || true)
  if [ "$have" = "$version" ]; then
    echo "setup-clients: $pkg $version already installed"
  else
    want+=("$pkg@$version")
  fi
done < "$pins"
if [ "${#want[@]}" -eq 0 ]; then
  exit 0
fi
echo "setup-clients: installing ${want[*]}"
# --no-save keeps no package.json in target/clients; install scripts run (Claude Code's
# postinstall copies its native binary over the placeholder).
if ! npm install --prefix "$dest" --no-save --no-audit --no-fund --loglevel=error "${want[@]}"; then
  echo "setup-clients: npm install failed; the real-client suite will skip the missing clients"
fi
exit 0
