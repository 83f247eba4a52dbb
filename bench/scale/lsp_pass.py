#!/usr/bin/env python3
"""The language server's first full pass on a tree: time from `initialized` to the end of the
`alisio-ls/scan` work-done progress (the client accepts progress), then resident memory
(VmRSS, and the peak VmHWM) right after, and again after a quiet second.
Usage: lsp_pass.py TREE -- SERVER_COMMAND...   Prints one JSON object. Standard library only."""

import json
import os
import queue
import subprocess
import sys
import threading
import time


def rss(pid):
    out = {}
    with open(f"/proc/{pid}/status") as st:
        for line in st:
            if line.startswith(("VmRSS:", "VmHWM:")):
                k, v = line.split(":")
                out[k] = round(int(v.split()[0]) / 1024, 1)
    return out


def main():
    ws = os.path.abspath(sys.argv[1])
    cmd = sys.argv[sys.argv.index("--") + 1:]
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
        "initializationOptions": {"trusted": True, "watcher": "off"}}})
    while q.get(timeout=120).get("id") != 1:
        pass
    t0 = time.monotonic()
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    files = 0
    while True:
        m = q.get(timeout=600)
        if m.get("method") == "textDocument/publishDiagnostics":
            files += 1
        if m.get("method") == "$/progress" and m["params"]["value"].get("kind") == "end":
            break
    elapsed = time.monotonic() - t0
    after = rss(p.pid)
    time.sleep(1.0)
    later = rss(p.pid)
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    send({"jsonrpc": "2.0", "method": "exit", "params": None})
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
    print(json.dumps({"first_pass_s": round(elapsed, 2), "published": files,
                      "rss_mb_after_pass": after.get("VmRSS"), "rss_mb_1s_later": later.get("VmRSS"),
                      "peak_rss_mb": later.get("VmHWM")}))


if __name__ == "__main__":
    main()
