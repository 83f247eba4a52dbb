#!/usr/bin/env bash
# The work of action.yml: install alisio-ls (scripts/install.sh into $RUNNER_TEMP), then
# `alisio-ls check --format github` from the working directory, with the action's args.
#   ALISIO_ACTION_ARGS  extra arguments for check (split on spaces, like a command line)
#   ALISIO_ACTION_CWD   the directory to check from (default .)
#   ALISIO_LS_BIN       an alisio-ls binary to use instead of installing (tests, pinned builds)
# The exit code is check's: 0 clean, 1 findings, 2 usage or configuration error.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${ALISIO_LS_BIN:-}
if [ -z "$bin" ]; then
  root="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/alisio-ls"
  echo "::group::install alisio-ls"
  bash "$here/install.sh" "$root" >&2
  echo "::endgroup::"
  bin="$root/bin/alisio-ls"
fi
"$bin" --version
read -r -a extra <<<"${ALISIO_ACTION_ARGS:-}"
cd "${ALISIO_ACTION_CWD:-.}"
exec "$bin" check --format github "${extra[@]}"
