#!/usr/bin/env python3
"""webhook_receiver.py - a webhook receiver for the delivery tests (Python standard library only).

Records every POST: each attempt as one JSON line in --attempts (path, mode, time), and each POST it
answered with 2xx as one JSON line in --log (path, headers, parsed body, time). What it answers is
read from --control before every request, a JSON object that the test rewrites:

  {"mode": "ok"}                 200
  {"mode": "error", "status": N} N (default 500), body "receiver told to fail" (or "body": TEXT)
  {"mode": "slow", "delay": S}   waits S seconds, then 200
  {"mode": "hang"}               reads the request and never answers (until the client gives up)

A "paths" member maps a request path to its own such object ({"mode": "ok", "paths": {"/reject":
{"mode": "error", "status": 400}}}). A missing or unreadable control file means "ok". GET /-/healthy
answers 200 (for readiness polls). With --tls-cert and --tls-key it speaks HTTPS.
Usage: webhook_receiver.py --port P --log FILE --attempts FILE --control FILE [--tls-cert F --tls-key F]
"""
import argparse
import json
import os
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()


def control(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"mode": "ok"}


def append(path, record):
    with LOCK, open(path, "a") as f:
        f.write(json.dumps(record) + "\n")
        f.flush()
        os.fsync(f.fileno())


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, text):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.answer(200 if self.path == "/-/healthy" else 404, "ok\n")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        raw = self.rfile.read(length)
        ctl = control(self.server.args.control)
        ctl = ctl.get("paths", {}).get(self.path, ctl)
        mode = ctl.get("mode", "ok")
        append(self.server.args.attempts, {"path": self.path, "mode": mode, "time": time.time()})
        if mode == "error":
            self.answer(int(ctl.get("status", 500)), ctl.get("body", "receiver told to fail\n"))
            return
        if mode == "hang":
            time.sleep(3600)
            return
        if mode == "slow":
            time.sleep(float(ctl.get("delay", 1.0)))
        try:
            body = json.loads(raw)
        except ValueError:
            self.answer(400, "not JSON\n")
            return
        append(self.server.args.log, {"path": self.path, "headers": dict(self.headers.items()),
                                      "body": body, "time": time.time()})
        self.answer(200, "ok\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--attempts", required=True)
    ap.add_argument("--control", required=True)
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    args = ap.parse_args()
    ThreadingHTTPServer.allow_reuse_address = True
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.args = args
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        # The handshake happens in the request's thread, not in accept(): one slow client must not
        # hold up the others.
        server.socket = ctx.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    server.serve_forever()


if __name__ == "__main__":
    main()
