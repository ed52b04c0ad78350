#!/usr/bin/env python3
"""A local stand-in for ntfy (#34's push tests): every POST is appended to LOG as one JSON
line (path, Title, Tags, body); the file exists once the server listens. Paths decide the answer: /fail-once/... answers 500 the first
time and 200 after; /broken/... always 500; /slow/... never answers; anything else 200.
    push_endpoint.py PORT LOG"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, log = int(sys.argv[1]), sys.argv[2]
seen = set()
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode("utf-8", "replace")
        with lock:
            with open(log, "a", encoding="utf-8") as f:
                f.write(json.dumps({"path": self.path, "title": self.headers.get("Title"), "tags": self.headers.get("Tags"), "body": body}) + "\n")
            first = self.path not in seen
            seen.add(self.path)
        if self.path.startswith("/slow/"):
            time.sleep(3600)
            return
        status = 500 if self.path.startswith("/broken/") or (self.path.startswith("/fail-once/") and first) else 200
        self.send_response(status)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


ThreadingHTTPServer.daemon_threads = True
server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
open(log, "a").close()  # listening: the test may send
server.serve_forever()
