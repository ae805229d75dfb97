#!/usr/bin/env python3
"""scrape.py - concurrent scrapers for the whole-daemon ThreadSanitizer run (standard library only).

THREADS threads, each on its own kept-alive connection, go round every request below, PAUSE seconds
apart (the daemon's other threads and the tree's driver need CPU too), until SECONDS have passed. A
kept-alive connection the server closed is retried once on a new one, as any HTTP client does;
anything else that fails is counted as an error. With --slow-every S, one more thread opens a
connection every S seconds and sends half a request, which the daemon's guard must cut (within
--slow-wait seconds). Prints one JSON object: per request, how many answers had each status and how
many came gzipped; for "slow", how many connections were cut and how many were not. With --user
USER:PASSWORD every request but "alerts_noauth" carries those credentials (basic auth).
Usage: scrape.py --port P [--threads 3] [--seconds 45] [--pause 0.01] [--slow-every 0 --slow-wait 5]
                 [--user USER:PASSWORD]
"""
import argparse
import base64
import http.client
import json
import socket
import threading
import time

GZIP = {"Accept-Encoding": "gzip"}
OPENMETRICS = {"Accept": "application/openmetrics-text; version=1.0.0", "Accept-Encoding": "gzip"}
REQUESTS = [
    ("metrics", "GET", "/metrics", {}),
    ("metrics_gzip", "GET", "/metrics", GZIP),
    ("metrics_openmetrics", "GET", "/metrics", OPENMETRICS),
    ("status", "GET", "/status", GZIP),
    ("status_text", "GET", "/status?format=text", {}),
    ("alerts", "GET", "/alerts", {}),
    ("alerts_noauth", "GET", "/alerts", None),
    ("history", "GET", "/history", GZIP),
    ("history_csv", "GET", "/history?since=-20s&format=csv", {}),
    ("healthz", "GET", "/healthz", {}),
    ("metrics_head", "HEAD", "/metrics", {}),
]


def fetch(conn, method, path, headers):
    conn.request(method, path, headers=headers)
    resp = conn.getresponse()
    resp.read()
    return resp


def worker(port, deadline, pause, auth, offset, results, lock):
    conn = None
    i = offset
    while time.monotonic() < deadline:
        name, method, path, headers = REQUESTS[i % len(REQUESTS)]
        headers = dict(headers, **auth) if headers is not None else {}
        i += 1
        try:
            reused = conn is not None
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                resp = fetch(conn, method, path, headers)
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                if not reused:
                    raise
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                resp = fetch(conn, method, path, headers)
            key = str(resp.status)
            gz = resp.getheader("Content-Encoding") == "gzip"
            if resp.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except (OSError, http.client.HTTPException) as e:
            key, gz = "error: %s" % type(e).__name__, False
            if conn is not None:
                conn.close()
            conn = None
        with lock:
            r = results.setdefault(name, {"status": {}, "gzip": 0})
            r["status"][key] = r["status"].get(key, 0) + 1
            r["gzip"] += gz
        time.sleep(pause)
    if conn is not None:
        conn.close()


def slow(port, deadline, every, wait, results, lock):
    """Half a request, then nothing: the guard must shut the connection down."""
    while time.monotonic() + wait < deadline:
        began = time.monotonic()
        key = "not_cut"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                while s.recv(4096):
                    pass
                key = "cut"
        except ConnectionResetError:
            key = "cut"
        except socket.timeout:
            pass
        except OSError:
            key = "error"
        with lock:
            r = results.setdefault("slow", {"cut": 0, "not_cut": 0, "error": 0})
            r[key] += 1
        time.sleep(max(0.0, every - (time.monotonic() - began)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--threads", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=45.0)
    ap.add_argument("--pause", type=float, default=0.01)
    ap.add_argument("--slow-every", type=float, default=0)
    ap.add_argument("--slow-wait", type=float, default=5)
    ap.add_argument("--user")
    args = ap.parse_args()
    auth = {}
    if args.user:
        auth["Authorization"] = "Basic " + base64.b64encode(args.user.encode()).decode()
    results, lock = {}, threading.Lock()
    deadline = time.monotonic() + args.seconds
    threads = [threading.Thread(target=worker, args=(args.port, deadline, args.pause, auth, k * 3, results, lock))
               for k in range(args.threads)]
    if args.slow_every > 0:
        threads.append(threading.Thread(target=slow, args=(args.port, deadline, args.slow_every,
                                                           args.slow_wait, results, lock)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps(results, sort_keys=True))


if __name__ == "__main__":
    main()
