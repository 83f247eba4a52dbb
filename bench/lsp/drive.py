#!/usr/bin/env python3
"""Drives a language server over stdio and measures, on one generated workspace:
  - time from `initialized` to the first publishDiagnostics of an opened SKILL.md,
  - didChange -> publishDiagnostics latency on that SKILL.md (median and p95 over N edits),
  - resident memory (VmRSS, and its anonymous and file-backed parts) once the first scan is done,
    its peak until then and its peak after the edits (VmHWM).
Usage: drive.py WORKSPACE EDITS -- SERVER_COMMAND...
Prints one JSON object. Standard library only."""

import json
import os
import statistics
import subprocess
import sys
import threading
import time
import queue


def main():
    ws = os.path.abspath(sys.argv[1])
    edits = int(sys.argv[2])
    cmd = sys.argv[sys.argv.index("--") + 1:]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ws)
    q: "queue.Queue[dict]" = queue.Queue()

    def reader():
        f = p.stdout
        while True:
            length = None
            while True:
                line = f.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = f.read(length)
            msg = json.loads(body)
            if "method" in msg and "id" in msg:
                # Answer server requests (registrations, progress, configuration) like an editor.
                result = [] if msg["method"] == "workspace/configuration" else None
                send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
                continue
            if msg.get("method") == "textDocument/publishDiagnostics":
                published.add(msg["params"]["uri"])
            if msg.get("method") == "$/progress":
                kind = msg["params"].get("value", {}).get("kind")
                progress[kind] = time.monotonic()
            q.put(msg)

    lock = threading.Lock()
    # Files with diagnostics published so far: read with the memory, it shows whether the
    # server's workspace pass had published (had ended) when VmRSS was read.
    published = set()
    # `$/progress` kinds seen, with when: a server that reports its workspace scan (alisio-ls
    # does, when the client supports work-done progress, as VS Code and Neovim do) is measured
    # once the scan has ended, not at a guessed moment.
    progress = {}

    def send(msg):
        data = json.dumps(msg).encode()
        with lock:
            p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
            p.stdin.flush()

    threading.Thread(target=reader, daemon=True).start()
    uri_ws = "file://" + ws
    skill = os.path.join(ws, "skills-root", ".agents", "skills", "skill-0", "SKILL.md")
    skill_uri = "file://" + skill
    text = open(skill).read()

    def wait(pred, timeout=120):
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message")
            m = q.get(timeout=left)
            if pred(m):
                return m

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": uri_ws, "workspaceFolders": [{"uri": uri_ws, "name": "ws"}],
        "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}},
                         "window": {"workDoneProgress": True}},
        "initializationOptions": {"trusted": True}}})
    wait(lambda m: m.get("id") == 1)
    t0 = time.monotonic()
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": skill_uri, "languageId": "markdown", "version": 1, "text": text}}})
    wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == skill_uri)
    first = time.monotonic() - t0
    time.sleep(2.0)  # let any background scan settle before reading memory
    end = time.monotonic() + 60
    while "begin" in progress and "end" not in progress and time.monotonic() < end:
        time.sleep(0.05)
    scan_ms = round((progress["end"] - t0) * 1000, 1) if "end" in progress else None
    status = {}
    with open(f"/proc/{p.pid}/status") as st:
        for line in st:
            k, _, v = line.partition(":")
            status[k] = v.split()
    kb = lambda k: int(status.get(k, ["0"])[0])
    rss_kb = kb("VmRSS")
    published_at_rss = len(published)
    lat = []
    lines = text.split("\n")
    desc_line = next(i for i, l in enumerate(lines) if l.startswith("description:"))
    for v in range(2, edits + 2):
        # Alternate between a valid and an invalid name so every edit changes the diagnostics.
        new = "Bad--Name" if v % 2 == 0 else "skill-0"
        old_len = len(lines[1]) - len("name: ")
        lines[1] = "name: " + new
        change = {"range": {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 6 + old_len}}, "text": new}
        # Drain stale notifications.
        while not q.empty():
            q.get_nowait()
        t = time.monotonic()
        send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": skill_uri, "version": v}, "contentChanges": [change]}})
        wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == skill_uri
             and m["params"].get("version", v) == v)
        lat.append(time.monotonic() - t)
    # The peak over the whole run, edits (and the passes they cause) included.
    with open(f"/proc/{p.pid}/status") as st:
        hwm_end_kb = next((int(l.split()[1]) for l in st if l.startswith("VmHWM:")), 0)
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    try:
        wait(lambda m: m.get("id") == 2, timeout=10)
        send({"jsonrpc": "2.0", "method": "exit", "params": None})
    except Exception:
        pass
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
    lat.sort()
    print(json.dumps({
        "first_diagnostics_ms": round(first * 1000, 1),
        "change_median_ms": round(statistics.median(lat) * 1000, 2),
        "change_p95_ms": round(lat[int(len(lat) * 0.95) - 1] * 1000, 2),
        "rss_mb": round(rss_kb / 1024, 1),
        # The high-water mark of the resident memory until then (the scan's peak).
        "rss_peak_mb": round(kb("VmHWM") / 1024, 1),
        "rss_peak_after_edits_mb": round(hwm_end_kb / 1024, 1),
        # What the resident memory is made of: heap and stacks (anonymous) and mapped files
        # (the binary's pages), and the threads then.
        "rss_anon_mb": round(kb("RssAnon") / 1024, 1),
        "rss_file_mb": round(kb("RssFile") / 1024, 1),
        "published_files_at_rss": published_at_rss,
        "scan_end_ms": scan_ms,
        "threads": kb("Threads"),
    }))


if __name__ == "__main__":
    main()
