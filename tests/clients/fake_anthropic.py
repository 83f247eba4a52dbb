#!/usr/bin/env python3
# Fake Anthropic Messages server on 127.0.0.1: records each request body, answers "ok" (SSE).
import json, sys, os, http.server, threading
OUT = sys.argv[2]
os.makedirs(OUT, exist_ok=True)
n = [0]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_HEAD(self):
        self.send_response(200); self.end_headers()
    def do_GET(self):
        self.send_response(200); self.send_header('content-type','application/json'); self.end_headers(); self.wfile.write(b'{}')
    def do_POST(self):
        l = int(self.headers.get('content-length') or 0)
        body = self.rfile.read(l)
        n[0] += 1
        with open(os.path.join(OUT, 'req-%03d.json' % n[0]), 'wb') as f: f.write(body)
        if 'count_tokens' in self.path:
            self.send_response(200); self.send_header('content-type','application/json'); self.end_headers()
            self.wfile.write(b'{"input_tokens": 10}'); return
        try: req = json.loads(body)
        except Exception: req = {}
        model = req.get('model', 'claude-sonnet-4-5')
        if not req.get('stream'):
            resp = {"id":"msg_1","type":"message","role":"assistant","model":model,"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":None,"usage":{"input_tokens":10,"output_tokens":1}}
            b = json.dumps(resp).encode()
            self.send_response(200); self.send_header('content-type','application/json'); self.send_header('content-length', str(len(b))); self.end_headers(); self.wfile.write(b); return
        self.send_response(200); self.send_header('content-type','text/event-stream'); self.end_headers()
        def ev(t, d): self.wfile.write(('event: %s\ndata: %s\n\n' % (t, json.dumps(d))).encode())
        ev('message_start', {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":model,"content":[],"stop_reason":None,"stop_sequence":None,"usage":{"input_tokens":10,"output_tokens":1}}})
        ev('content_block_start', {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})
        ev('content_block_delta', {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}})
        ev('content_block_stop', {"type":"content_block_stop","index":0})
        ev('message_delta', {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":None},"usage":{"output_tokens":1}})
        ev('message_stop', {"type":"message_stop"})
        self.wfile.flush()
srv = http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H)
srv.serve_forever()
