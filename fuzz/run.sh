#!/usr/bin/env bash
# Runs fuzz targets one after another, single job (the machine is shared), and prints one
# summary line per target: exec count, seconds, corpus size, and whether it found a crash.
#   fuzz/run.sh SECONDS [target...]
# Needs cargo-fuzz and a nightly toolchain (`rustup toolchain install nightly`); with only a
# stable toolchain, RUSTC_BOOTSTRAP=1 lets cargo fuzz use -Zsanitizer (see docs/security.md).
# Exit status: 0 no finding, 1 a target found something, 3 the build failed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
secs=${1:-20}; shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(document_edits line_index config_layer lsp_framing instruction_tree skill_frontmatter transcripts governor_history provider_stream)
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then tc=(+nightly); else tc=(); export RUSTC_BOOTSTRAP=1; fi
cd "$here"
mkdir -p "$here/artifacts"; : > "$here/artifacts/findings"
"$here/seed.sh" "${targets[@]}" >/dev/null
# Build once (NO_BUILD=1 reuses the binaries as they are), then run the binaries directly so
# edits made while a campaign runs never trigger a rebuild between targets.
if [ "${NO_BUILD:-0}" != 1 ]; then
  cargo "${tc[@]}" fuzz build >"$here/artifacts-build.log" 2>&1 || { tail -20 "$here/artifacts-build.log"; exit 3; }
fi
bin="$here/target/x86_64-unknown-linux-gnu/release"
status=0
for t in "${targets[@]}"; do
  log="$here/artifacts/$t.log"; mkdir -p "$here/artifacts/$t"
  max_len=65536; [ "$t" = transcripts ] && max_len=262144
  "$bin/$t" "corpus/$t" -max_total_time="$secs" -rss_limit_mb=4096 -timeout=60 \
    -max_len=$max_len -print_final_stats=1 -artifact_prefix="$here/artifacts/$t/" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1)
  [ -z "$runs" ] && runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1)
  printf '%s %-18s rc=%s %s corpus=%s\n' "$(date -u +%FT%TZ)" "$t" "$rc" "${runs:-?}" "$(ls "corpus/$t" | wc -l)"
  # A finding is recorded at once, so a caller that stops this script later still sees it.
  [ $rc -ne 0 ] && { status=1; echo "$t" >> "$here/artifacts/findings"; grep -m3 -E 'ERROR|panicked|deadly signal|Test unit written' "$log"; }
done
exit $status
