#!/usr/bin/env python3
"""Writes refactor.claude.jsonl: a synthetic Claude Code session (no real data) in which the
agent reads six source files, edits each, and reads it again, so earlier reads go stale.
`alisio-ls governor analyze examples/transcripts/refactor.claude.jsonl` shows what the governor
would have elided. Re-run this script to regenerate the file."""
import json

lines = []
n = 0
def add(kind, content, parent):
    global n
    n += 1
    uid = f"{kind[0]}{n}"
    lines.append({"parentUuid": parent, "isSidechain": False, "type": kind, "uuid": uid,
                  "sessionId": "demo-refactor", "cwd": "/repo", "timestamp": f"2026-11-01T10:{n // 60:02d}:{n % 60:02d}Z",
                  "message": ({"role": "user", "content": content} if kind == "user" else
                              {"id": f"msg{n}", "role": "assistant", "content": content})})
    return uid

def body(name, version):
    return "".join(f"{i + 1:>6}\tfn {name}_{i}() -> u32 {{ {i + version} }}\n" for i in range(120))

parent = add("user", "Rename the helper functions in every module to snake_case and keep the tests green.", None)
call = 0
for f in ["parser", "lexer", "eval", "types", "errors", "cli"]:
    path = f"/repo/src/{f}.rs"
    for version in (0, 1):
        call += 1
        tid = f"toolu_{call:03d}"
        parent = add("assistant", [{"type": "text", "text": f"Reading {f}.rs."},
                                   {"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": path}}], parent)
        parent = add("user", [{"type": "tool_result", "tool_use_id": tid, "content": body(f, version)}], parent)
        if version == 0:
            call += 1
            tid = f"toolu_{call:03d}"
            parent = add("assistant", [{"type": "tool_use", "id": tid, "name": "Edit",
                                        "input": {"file_path": path, "old_string": f"fn {f}_0", "new_string": f"fn {f}_zero"}}], parent)
            parent = add("user", [{"type": "tool_result", "tool_use_id": tid, "content": f"The file {path} has been updated."}], parent)
    call += 1
    tid = f"toolu_{call:03d}"
    parent = add("assistant", [{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": "cargo test -q"}}], parent)
    parent = add("user", [{"type": "tool_result", "tool_use_id": tid, "content": "test result: ok. 42 passed; 0 failed"}], parent)
add("assistant", [{"type": "text", "text": "All modules renamed; tests pass."}], parent)
with open("refactor.claude.jsonl", "w") as out:
    for l in lines:
        out.write(json.dumps(l) + "\n")
