#!/usr/bin/env bash
# Reproduces the list of agnix rules that concern files alisio-ls reads (issue 23 "Done means";
# ../shared/research/agnix-gap.md §1): every rule id embedded in the agnix binary is passed to
# `agnix explain ID --format json`; the ids that resolve are the catalogue (702 in 0.59.3, the
# others are retired rules or CWE labels). Each explanation is written to $out/ID.json, and the
# ids of the families alisio covers are printed, minus those about file types alisio never reads
# (the list in tests/agnix/unread.txt). The result must equal the first column of
# tests/agnix/rules.tsv (tests/cli/agnix.rs checks it).
#
# usage: tests/agnix/catalogue.sh [AGNIX_BINARY] [OUT_DIR]
# Runs agnix without network (`unshare -n`) when the kernel allows it; agnix's telemetry is
# opt-in and off anyway.
set -euo pipefail
cd "$(dirname "$0")/../.."
agnix="${1:-${AGNIX:-target/agnix-venv/bin/agnix}}"
out="${2:-target/agnix/explain}"
if ! [ -x "$agnix" ]; then
  agnix=$(command -v agnix || true)
fi
if [ -z "$agnix" ]; then
  echo "catalogue: agnix not found (run .ci/setup-agnix.sh)" >&2
  exit 2
fi
# pip's `bin/agnix` is the Rust binary itself in the wheel; a Python shim would hold no ids.
bin="$agnix"
run=()
if unshare -n true 2>/dev/null; then
  run=(unshare -n)
fi
mkdir -p "$out"
ids=$(grep -aoE '\b[A-Z]{2,5}(-[A-Z]{2,4})?-[0-9]{3}\b' "$bin" | sort -u)
resolved=0
for id in $ids; do
  if "${run[@]}" "$agnix" explain "$id" --format json >"$out/$id.json" 2>/dev/null \
      && grep -q '"id"' "$out/$id.json"; then
    resolved=$((resolved + 1))
  else
    rm -f "$out/$id.json"
  fi
done
echo "catalogue: $resolved rules resolve ($(echo "$ids" | wc -l) ids in the binary)" >&2
# The families of agnix-gap.md §2: skills (AS, CC-SK, XP-SK, CX-SK, CP-SK, CR-SK), AGENTS.md
# (AGM, CDX-AG), Codex core config (CDX-000…), CLAUDE.md (CC-MEM), Copilot (COP), Cursor (CUR),
# Gemini (GM, not GM-AG/GM-CMD), cross-file (XP), PE, REF, XML.
fam='^(AS|CC-SK|XP-SK|CX-SK|CP-SK|CR-SK|AGM|CDX-AG|CDX|CC-MEM|COP|CUR|GM|XP|PE|REF|XML)-[0-9]{3}$'
ls "$out" | sed 's/\.json$//' | grep -E "$fam" | sort | grep -vxF -f tests/agnix/unread.txt
