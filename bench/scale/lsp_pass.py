#!/usr/bin/env python3
"""The language server's first full pass on a tree: time from `initialized` to the end of the
`alisio-ls/scan` work-done progress (the client accepts progress), then resident memory
(VmRSS, and the peak VmHWM) right after, and again after a quiet second.

With --late SECONDS (issue 14, "no file is missed at start"): that long after `initialized`, a
bad SKILL.md (an invalid name, no description) is written into a new skill directory of the
first repository while the first pass runs; `late_s` is the time from the end of that write to
the first publishDiagnostics for the file that carries its `skill-name-format` diagnostic.
The file is removed at the end. --watcher picks the server's `watcher` option (default `off`;
`server` is the notify watcher a client without file watching gets, such as Neovim; `client`
accepts the server's registration and sends `workspace/didChangeWatchedFiles` after the write,
as VS Code does).

Usage: lsp_pass.py TREE [--late SECONDS] [--watcher MODE] -- SERVER_COMMAND...
Prints one JSON object. Standard library only."""

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse


def rss(pid):
    out = {}
    with open(f"/proc/{pid}/status") as st:
        for line in st:
            if line.startswith(("VmRSS:", "VmHWM:")):
                k, v = line.split(":")
                out[k] = round(int(v.split()[0]) / 1024, 1)
    return out


LATE_SKILL = "---\nname: Late--Bad\nlicense: MIT\n---\n\n# Late\n\nWritten while the first pass runs.\n"


def late_target(ws):
    repos = sorted(os.listdir(os.path.join(ws, "repos")))
    d = os.path.join(ws, "repos", repos[0], ".agents", "skills", "late-bad")
    return d, os.path.join(d, "SKILL.md")


def main():
    ws = os.path.abspath(sys.argv[1])
    opts = sys.argv[2:sys.argv.index("--")]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    late = float(opts[opts.index("--late") + 1]) if "--late" in opts else None
    watcher = opts[opts.index("--watcher") + 1] if "--watcher" in opts else "off"
    late_dir, late_file = late_target(ws)
    shutil.rmtree(late_dir, ignore_errors=True)
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ws)
    q = queue.Queue()
    lock = threading.Lock()

    def send(msg):
        data = json.dumps(msg).encode()
        with lock:
            p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
            p.stdin.flush()

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
            msg = json.loads(f.read(length))
            if "method" in msg and "id" in msg:
                send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                continue
            q.put(msg)

    threading.Thread(target=reader, daemon=True).start()
    uri = "file://" + ws
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": uri, "workspaceFolders": [{"uri": uri, "name": "ws"}],
        "capabilities": {"window": {"workDoneProgress": True}},
        "initializationOptions": {"trusted": True, "watcher": watcher}}})
    while q.get(timeout=120).get("id") != 1:
        pass
    t0 = time.monotonic()
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    written = []

    def write_late():
        time.sleep(late)
        os.makedirs(late_dir, exist_ok=True)
        with open(late_file, "w") as f:
            f.write(LATE_SKILL)
        written.append(time.monotonic())
        if watcher == "client":
            # What an editor's own file watcher reports (the server registered for it).
            send({"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles",
                  "params": {"changes": [{"uri": "file://" + late_file, "type": 1}]}})

    if late is not None:
        threading.Thread(target=write_late, daemon=True).start()
    late_uri = "file://" + late_file
    files = 0
    elapsed = None
    late_s = None
    after = None
    while elapsed is None or (late is not None and late_s is None):
        try:
            m = q.get(timeout=120)
        except queue.Empty:
            break
        if m.get("method") == "textDocument/publishDiagnostics":
            files += 1
            prm = m["params"]
            if (late_s is None and written and urllib.parse.unquote(prm["uri"]) == late_uri
                    and any(d.get("code") == "skill-name-format" for d in prm["diagnostics"])):
                late_s = round(time.monotonic() - written[0], 3)
        if (elapsed is None and m.get("method") == "$/progress"
                and m["params"]["value"].get("kind") == "end"):
            elapsed = time.monotonic() - t0
            after = rss(p.pid)
    time.sleep(1.0)
    later = rss(p.pid)
    shutil.rmtree(late_dir, ignore_errors=True)
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    send({"jsonrpc": "2.0", "method": "exit", "params": None})
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
    out = {"first_pass_s": round(elapsed, 2) if elapsed else None, "published": files,
           "rss_mb_after_pass": (after or {}).get("VmRSS"), "rss_mb_1s_later": later.get("VmRSS"),
           "peak_rss_mb": later.get("VmHWM")}
    if late is not None:
        out.update({"watcher": watcher, "late_written_s": round(written[0] - t0, 3) if written else None,
                    "late_s": late_s})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
