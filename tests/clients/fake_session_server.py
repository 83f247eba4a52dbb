#!/usr/bin/env python3
"""A scripted stand-in for alisio-ls's agent-session surface (interfaces.md §3.1), used to test
the editor clients' chat, approval and report views before the real sessions exist.

It speaks LSP over stdio and answers: initialize/shutdown/exit; `alisio/runSession` by
streaming the `alisio/sessionEvent` envelopes of sessions.md §8 for one write call, asking
`alisio/approve` for it and completing with the user's decision in the answer text;
`alisio/contextReport` with the governor.md §6.5 example report; `alisio/contextExplain`,
`alisio/skillCatalog` and `alisio/setSkillEnabled` with the interfaces.md §1.1/§1.2 examples. Every message it receives is
appended as one JSON line to $FAKE_LOG (when set), so tests can check what the client sent.
Arguments (e.g. `serve --stdio`) are ignored.
"""
import json
import os
import sys

LOG = os.environ.get("FAKE_LOG")
stdin = sys.stdin.buffer
stdout = sys.stdout.buffer


def log(msg):
    if LOG:
        with open(LOG, "a") as f:
            f.write(json.dumps(msg) + "\n")


def read():
    length = None
    while True:
        line = stdin.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    msg = json.loads(stdin.read(length))
    log(msg)
    return msg


def send(msg):
    body = json.dumps(msg).encode()
    stdout.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stdout.flush()


def report(sid):
    return {
        "mode": "on", "measured": True, "sessionId": sid, "policyVersion": 1, "request": 7,
        "settings": {"minAgeTurns": 2, "epochMessages": 32, "maxChars": 4000},
        "messages": 70, "eligibleMessages": 64, "compacted": False,
        "segments": [
            {"index": 0, "kind": "system", "origin": "system", "tokens": 812, "criticality": "pinned", "reason": "system_prompt"},
            {"index": 9, "kind": "tool_result", "origin": "src/a.ts", "message": 4, "tool": "read_file", "callId": "c1",
             "tokens": 1000, "criticality": "low", "reason": "elided", "used": "used",
             "elided": {"reason": "superseded_read", "by": "c2", "tokensSaved": 986}},
        ],
        "segmentsOmitted": 0,
        "totals": {"segments": 97, "tokensBefore": 40210, "tokensAfter": 39224, "tokensSaved": 986, "elided": 1,
                   "byReason": {"superseded_read": 1, "stale_bg_output": 0, "duplicate_search": 0},
                   "byCriticality": {"pinned": 6, "high": 9, "normal": 81, "low": 1}},
        "invariants": {"sent": False, "total": 0, "byKind": {"instruction": 0, "goal": 0, "plan": 0, "criterion": 0, "grant": 0}, "omitted": 0},
        "usage": {"perTool": {"read_file": {"seen": 12, "used": 7, "reread": 2}}, "notAttributable": 20},
    }


def explain(uri):
    return {
        "path": "src/lsp/handlers.rs", "workspace": "/abs/path/of/workspace", "host": "alisio", "maxBytes": 32768,
        "files": [
            {"path": "/home/u/.config/alisio/AGENTS.md", "scope": "global", "kind": "agents", "bytes": 900, "keptBytes": 0, "truncation": "dropped"},
            {"path": "AGENTS.md", "scope": "project", "kind": "agents", "bytes": 30000, "keptBytes": 22768, "truncation": "beginning"},
            {"path": "src/AGENTS.override.md", "scope": "project", "kind": "override", "bytes": 10000, "keptBytes": 10000, "truncation": "none"},
        ],
        "omittedBytes": 8132,
        "notice": "[truncated: 8132 bytes of farther instruction files omitted to stay within 32768 bytes; closest files kept]",
    }


CATALOG = [
    {"id": "pdf-tools", "name": "pdf-tools", "displayId": "pdf-tools",
     "description": "Extract text and tables from PDF files. Use when the user asks about a PDF.",
     "scope": "project", "source": "project", "file": ".agents/skills/pdf-tools/SKILL.md",
     "enabled": True, "effective": True, "shadowedBy": None, "approximateTokens": 412},
    {"id": "user:pdf-tools", "name": "pdf-tools", "displayId": "user:pdf-tools",
     "description": "An older copy.", "scope": "user", "source": "user", "file": "/home/u/.agents/skills/pdf-tools/SKILL.md",
     "enabled": True, "effective": False, "shadowedBy": "pdf-tools", "approximateTokens": 30},
]

pending = []  # messages read while waiting for a response


def wait_response(rid):
    while True:
        msg = read()
        if msg.get("id") == rid and "method" not in msg:
            return msg
        pending.append(msg)


def run_session(req):
    params = req.get("params") or {}
    sid = params.get("sessionId") or "s-1"
    seq = [0]

    def event(kind, data):
        seq[0] += 1
        ev = {"schemaVersion": 1, "runId": "r-1", "sessionId": sid, "seq": seq[0], "type": kind,
              "timestamp": "2026-11-29T00:00:00Z", "data": data}
        if kind != "text_delta":
            ev["eventId"] = str(seq[0])
        send({"jsonrpc": "2.0", "method": "alisio/sessionEvent", "params": {"sessionId": sid, "event": ev}})

    event("run_started", {"model": "fake", "provider": "script", "governor": "on", "resumed": False, "messages": 0, "cwd": "/ws"})
    event("text_delta", {"turn": 1, "text": "I will write "})
    event("text_delta", {"turn": 1, "text": "the file."})
    event("tool_started", {"id": "c1", "name": "write_file", "arguments": "{\"path\":\"a.txt\",\"content\":\"hello\"}", "effect": "write"})
    ask = {"sessionId": sid, "callId": "c1", "tool": "write_file", "effect": "write", "summary": "Write a.txt (5 bytes)", "paths": ["a.txt"]}
    event("approval_requested", {k: v for k, v in ask.items() if k != "sessionId"})
    send({"jsonrpc": "2.0", "id": "approve-1", "method": "alisio/approve", "params": ask})
    reply = wait_response("approve-1")
    decision = (reply.get("result") or {}).get("decision", "deny") if "error" not in reply else "deny"
    event("approval_resolved", {"callId": "c1", "decision": decision, "source": "user"})
    denied = decision == "deny"
    event("tool_completed", {"id": "c1", "name": "write_file", "isError": denied, "outcome": "denied" if denied else "ok",
                             "durationMs": 2, "preview": "Denied: the user did not approve this call." if denied else "Wrote 5 bytes"})
    event("context_governed", {"mode": "on", "policyVersion": 1, "request": 2, "recovery": False, "failed": False,
                               "messages": 4, "eligibleMessages": 4, "segments": 8, "elided": 1,
                               "byReason": {"superseded_read": 1, "stale_bg_output": 0, "duplicate_search": 0},
                               "tokensBefore": 40210, "tokensAfter": 39224, "tokensSaved": 986, "newlyElided": ["c1"], "newlyElidedMore": 0})
    text = f"Decision: {decision}."
    event("text_delta", {"turn": 2, "text": text})
    event("run_completed", {"text": text, "turns": 2, "tokens": 120, "usage": {}, "truncated": False})
    send({"jsonrpc": "2.0", "id": req["id"], "result": {"sessionId": sid, "status": "completed", "text": text, "report": report(sid)}})


def main():
    while True:
        msg = pending.pop(0) if pending else read()
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"capabilities": {"textDocumentSync": 2}, "serverInfo": {"name": "fake-alisio-ls"}}})
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": rid, "result": None})
        elif method == "exit":
            sys.exit(0)
        elif method == "alisio/runSession":
            run_session(msg)
        elif method == "alisio/contextReport":
            send({"jsonrpc": "2.0", "id": rid, "result": report((msg.get("params") or {}).get("sessionId", "s-1"))})
        elif method == "alisio/contextExplain":
            send({"jsonrpc": "2.0", "id": rid, "result": explain((msg.get("params") or {}).get("uri"))})
        elif method == "alisio/skillCatalog":
            send({"jsonrpc": "2.0", "id": rid, "result": CATALOG})
        elif method == "alisio/setSkillEnabled":
            p = msg.get("params") or {}
            entry = next((dict(e) for e in CATALOG if e["id"] == p.get("id")), None)
            if entry is None:
                send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "unknown skill"}})
            else:
                entry["enabled"] = bool(p.get("enabled"))
                send({"jsonrpc": "2.0", "id": rid, "result": entry})
        elif rid is not None and method is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})


main()
