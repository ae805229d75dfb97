#!/usr/bin/env python3
"""webhook_receiver.py — a webhook endpoint for tests: records every POST it gets.

    webhook_receiver.py PORT FILE

Listens on 127.0.0.1:PORT. Each POST body (any path) is appended to FILE as one JSON line
{"path": ..., "time": EPOCH, "body": <the body parsed as JSON, or the text when it is not JSON>},
flushed at once, and answered 200. GET answers 200 "ok" (readiness). Runs until killed.
Python 3 standard library only."""
import http.server
import json
import sys
import threading
import time

lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self._reply(b"ok\n")

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        line = json.dumps({"path": self.path, "time": time.time(), "body": body}, sort_keys=True)
        with lock, open(sys.argv[2], "a") as f:
            f.write(line + "\n")
        self._reply(b"")

    def _reply(self, data):
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    open(sys.argv[2], "a").close()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.serve_forever()


main()
