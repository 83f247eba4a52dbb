#!/usr/bin/env bash
# Builds a release into dist/ (docs/install.md "Releasing"):
#   dist/alisio-ls-<version>-<rust host triple>.tar.gz   the binary, README and licences
#   dist/alisio-ls-<version>-<vscode platform>.vsix      the VS Code extension with the server inside
#   dist/SHA256SUMS                                      `sha256sum -c SHA256SUMS` checks both
# Needs cargo, Node.js/npm (the extension's locked devDependencies, `npm ci`) and sha256sum.
# ALISIO_SKIP_VSIX=1 builds the binary archive only. ALISIO_LS_BIN=path packs that binary instead
# of building one, ALISIO_DIST=dir writes there instead of dist/ (both for tests/cli/ship.rs).
# Idempotent: dist/ is rebuilt each run.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
target_dir=${CARGO_TARGET_DIR:-$repo/target}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
triple=$(rustc -vV | sed -n 's/^host: //p')
dist=${ALISIO_DIST:-$repo/dist}
rm -rf "$dist"
mkdir -p "$dist"

if [ -n "${ALISIO_LS_BIN:-}" ]; then
  bin=$ALISIO_LS_BIN
else
  echo "== cargo build --release --locked -p alisio-ls ($triple)"
  cargo build --release --locked -p alisio-ls
  bin=$target_dir/release/alisio-ls
fi
"$bin" --version

name=alisio-ls-$version-$triple
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$bin" README.md LICENSE-MIT LICENSE-APACHE "$stage/$name/"
tar -C "$stage" -czf "$dist/$name.tar.gz" "$name"

if [ "${ALISIO_SKIP_VSIX:-}" != "1" ]; then
  echo "== VS Code extension (platform VSIX with the server inside)"
  (
    cd editors/vscode
    platform=$(node -p 'process.platform + "-" + process.arch')
    npm ci --no-audit --no-fund --loglevel=error
    npm run --silent build
    ALISIO_LS_BIN=$bin node scripts/bundle-server.mjs
    npx --no-install vsce package --no-dependencies --target "$platform" \
      --out "$dist/alisio-ls-$version-$platform.vsix"
  )
fi

(cd "$dist" && shopt -s nullglob && sha256sum -- *.tar.gz *.vsix >SHA256SUMS)
echo "== dist/"
cat "$dist/SHA256SUMS"
