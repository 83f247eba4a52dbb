#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ at run time from the repository's tests and fixtures and, when
# present, from ../shared/corpus. Nothing from the shared corpus is ever committed: corpus/ is
# ignored by git. Usage: fuzz/seed.sh [target...]   (default: every target)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
shared="${ALISIO_SHARED_CORPUS:-$repo/../shared/corpus}"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(document_edits line_index config_layer lsp_framing instruction_tree skill_frontmatter transcripts governor_history provider_stream)

# copy FILE... into DIR, each under its content hash, skipping files over $max bytes.
put() {
  local dir=$1 max=$2; shift 2
  mkdir -p "$dir"
  for f in "$@"; do
    [ -f "$f" ] || continue
    [ "$(stat -c %s "$f")" -le "$max" ] || continue
    cp "$f" "$dir/$(sha1sum "$f" | cut -c1-16)"
  done
}
md_files() { find "$repo/tests" "$repo/examples" "$shared/agents-md" -name '*.md' -type f 2>/dev/null | head -400; }
skill_files() { find "$repo/tests" "$shared/skills" -name 'SKILL.md' -type f 2>/dev/null | head -400; }
transcript_files() { find "$repo/tests/fixtures/governor" "$shared/transcripts" -type f \( -name '*.jsonl' -o -name '*.json' -o -name '*.traj' \) 2>/dev/null | head -200; }

for t in "${targets[@]}"; do
  d="$here/corpus/$t"
  mkdir -p "$d"
  case $t in
    document_edits|line_index|instruction_tree)
      mapfile -t fs < <(md_files); put "$d" 65536 "${fs[@]}" ;;
    config_layer)
      mapfile -t fs < <(find "$repo/tests" "$repo/examples" "$repo/docs" -name '*.json' -type f 2>/dev/null | head -200); put "$d" 65536 "${fs[@]}"
      printf '{"context":{"maxBytes":4096,"claudeMdFallback":true,"governor":"on"},"skills":["~/s","rel"]}' > "$d/seed-keys"
      printf '\xef\xbb\xbf{"context":{"maxBytes":1023}}' > "$d/seed-bom"
      printf '{"a":[1,2,{"b":null}],"context":{"elide":{"minAgeTurns":-1}}}' > "$d/seed-nested" ;;
    lsp_framing)
      printf '\x05Content-Length: 52\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' > "$d/seed-init"
      printf '\xe3Content-Length: 2\r\n\r\n{}Content-Length: 5\r\nContent-Type: x\r\n\r\n[1,2]' > "$d/seed-two"
      printf '\x01content-length: 99999999999\r\n\r\nxx' > "$d/seed-huge"
      printf '\xe1Content-Length: 1' > "$d/seed-endless" ;;
    skill_frontmatter)
      mapfile -t fs < <(skill_files); put "$d" 65536 "${fs[@]}"
      printf -- '---\nname: a\ndescription: &x [*x, *x]\nk: &a [1,2]\nl: &b [*a,*a,*a]\nm: [*b,*b,*b]\n---\n' > "$d/seed-alias"
      printf -- '---\nname: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n---\n' > "$d/seed-deep" ;;
    provider_stream)
      # A chunking byte, then a recorded provider stream (tests/fixtures/sse).
      for f in "$repo"/tests/fixtures/sse/*.sse; do
        [ -f "$f" ] || continue
        { printf '\x07'; cat "$f"; } > "$d/$(basename "$f" .sse)"
      done
      printf '\x00{"model":"claude-x","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"read_file","input":{"path":"a"}}],"stop_reason":"tool_use"}' > "$d/seed-json" ;;
    transcripts|governor_history)
      mapfile -t fs < <(transcript_files); put "$d" 262144 "${fs[@]}" ;;
  esac
  echo "$t: $(ls "$d" | wc -l) seeds"
done
