#!/usr/bin/env python3
"""http_attack.py — hostile HTTP clients against a running perfwatchd, for test_http_limits.sh.

Each mode attacks, checks what the daemon must do, prints its figures and exits 0, or prints
FAIL: ... and exits 1. Attackers connect from their own loopback address (127.0.0.2, .3, ...), so
the per-IP limit they fill is theirs, and the well-behaved client (127.0.0.1) keeps its own.

  slowloris PORT N TIMEOUT    N connections trickle header bytes; all must be cut after about
                              TIMEOUT s while /metrics keeps answering and samples keep coming
  tls-stall PORT N TIMEOUT    N TLS handshakes trickled into: all cut after about TIMEOUT s
  per-ip PORT LIMIT           LIMIT + 10 connections from one address: LIMIT stay, the rest are
                              closed; after they go, that address is served again
  big-header PORT             a 100 kB header: 431 or closed, and the daemon still serves
  auth-flood PORT USER PASS N N wrong passwords from 40 addresses: most get 429 without bcrypt
                              work, and a scraper with the right (cached) password stays fast
  burst PORT PID N            N connection attempts at once: the daemon survives, answers another
                              client meanwhile, and its fd count returns to what it was
"""
import errno
import os
import re
import resource
import select
import socket
import sys
import time

HOST = "127.0.0.1"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def connect_from(src, port, timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect((HOST, port))
    return s


def get(port, path, src="127.0.0.1", timeout=5.0):
    """One GET on a fresh connection: (status, body, seconds), status 0 if it failed."""
    start = time.monotonic()
    try:
        s = connect_from(src, port, timeout)
        s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % path).encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
    except OSError:
        return 0, b"", time.monotonic() - start
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    head, _, body = data.partition(b"\r\n\r\n")
    return (int(m.group(1)) if m else 0), body, time.monotonic() - start


def samples_total(port):
    status, body, secs = get(port, "/metrics")
    if status != 200:
        return None, secs
    m = re.search(rb"^perfwatch_samples_total (\d+)", body, re.M)
    return (int(m.group(1)) if m else None), secs


def closed_by_peer(s):
    """True when the server closed or reset s (readable with EOF or an error)."""
    try:
        r, _, _ = select.select([s], [], [], 0)
        if not r:
            return False
        return s.recv(4096, socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def slowloris(port, n, timeout):
    """Trickle one header byte per connection every 0.25 s; an idle timeout never trips."""
    socks, opened, lifetimes = [], time.monotonic(), {}
    for _ in range(n):
        s = connect_from("127.0.0.2", port)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        socks.append(s)
    first, _ = samples_total(port)
    worst, polls, payload = 0.0, 0, b"X-Slow: " + b"a" * 100000
    deadline = opened + timeout + 5
    while len(lifetimes) < n and time.monotonic() < deadline:
        for i, s in enumerate(socks):
            if i in lifetimes:
                continue
            if closed_by_peer(s):
                lifetimes[i] = time.monotonic() - opened
                continue
            try:
                s.send(payload[polls % len(payload):][:1])
            except OSError:
                lifetimes[i] = time.monotonic() - opened
        status, _, secs = get(port, "/healthz")
        worst = max(worst, secs)
        if status != 200:
            fail("/healthz answered %d during the slowloris" % status)
        polls += 1
        time.sleep(0.25)
    last, secs = samples_total(port)
    worst = max(worst, secs)
    for s in socks:
        s.close()
    print("slowloris: %d/%d connections cut, after %.2f..%.2f s (timeout %g s); %d polls, slowest "
          "answer %.3f s; samples %s -> %s" % (len(lifetimes), n, min(lifetimes.values(), default=0),
                                               max(lifetimes.values(), default=0), timeout, polls,
                                               worst, first, last))
    if len(lifetimes) < n:
        fail("%d slowloris connections still open after %g s" % (n - len(lifetimes), timeout + 5))
    if max(lifetimes.values()) > timeout + 2.5:
        fail("a slowloris connection lived %.2f s with a %g s timeout" % (max(lifetimes.values()), timeout))
    if worst > 2.0:
        fail("a well-behaved request took %.3f s during the slowloris" % worst)
    if first is None or last is None or last <= first:
        fail("perfwatch_samples_total did not advance (%s -> %s)" % (first, last))


def tls_stall(port, n, timeout):
    """Start a TLS handshake record that announces 16 kB and trickle zeros into it."""
    socks, opened, lifetimes = [], time.monotonic(), {}
    for _ in range(n):
        s = connect_from("127.0.0.5", port)
        s.sendall(b"\x16\x03\x01\x40\x00")
        socks.append(s)
    deadline = opened + timeout + 5
    while len(lifetimes) < n and time.monotonic() < deadline:
        for i, s in enumerate(socks):
            if i in lifetimes:
                continue
            try:
                if closed_by_peer(s):
                    raise OSError("closed")
                s.send(b"\x00")
            except OSError:
                lifetimes[i] = time.monotonic() - opened
        time.sleep(0.25)
    for s in socks:
        s.close()
    print("tls-stall: %d/%d stalled handshakes cut, after %.2f..%.2f s (timeout %g s)" %
          (len(lifetimes), n, min(lifetimes.values(), default=0), max(lifetimes.values(), default=0), timeout))
    if len(lifetimes) < n or max(lifetimes.values()) > timeout + 2.5:
        fail("stalled TLS handshakes were not cut within %g s" % (timeout + 2.5))


def per_ip(port, limit):
    socks = [connect_from("127.0.0.3", port) for _ in range(limit + 10)]
    # The server accepts and at once closes the connections over the limit.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        shut = [s for s in socks if closed_by_peer(s)]
        if len(shut) >= 10:
            break
        time.sleep(0.05)
    alive = [s for s in socks if s not in shut]
    print("per-ip: %d connections from one address, %d closed by the server, %d kept (limit %d)" %
          (len(socks), len(shut), len(alive), limit))
    if len(shut) != 10 or len(alive) != limit:
        fail("want %d kept and 10 closed" % limit)
    # Other addresses are unaffected meanwhile, and a kept connection is a working one.
    if get(port, "/healthz")[0] != 200:
        fail("another address was refused while 127.0.0.3 was at its limit")
    alive[0].sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    if not alive[0].recv(100).startswith(b"HTTP/1.1 200"):
        fail("a connection within the limit was not served")
    for s in socks:
        s.close()
    # Once released, the address is served again (the server notices the closes at once).
    deadline = time.monotonic() + 5
    while get(port, "/healthz", src="127.0.0.3")[0] != 200:
        if time.monotonic() > deadline:
            fail("127.0.0.3 not served again after releasing its connections")
        time.sleep(0.05)
    print("per-ip: 127.0.0.3 served again after releasing its connections")


def big_header(port):
    s = connect_from("127.0.0.4", port)
    reply = b""
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n")
    except OSError:
        pass  # closed while we were still sending: that is a refusal too
    try:
        reply = s.recv(100)
    except OSError:
        pass
    s.close()
    status = reply[9:12].decode() if reply.startswith(b"HTTP/1.") else "closed"
    print("big-header: a 100 kB header got %s" % status)
    if status not in ("431", "413", "400", "closed"):
        fail("a 100 kB header got %s" % status)
    if get(port, "/healthz")[0] != 200:
        fail("not serving after the big header")


def auth_flood(port, user, password, n):
    """n wrong passwords from 40 addresses, 8 at a time, while a scraper with the right password
    and a health check keep asking: bcrypt work is rationed (429), the others stay fast."""
    import base64
    import threading

    def get_auth(src, path, pw):
        tok = base64.b64encode(("%s:%s" % (user, pw)).encode()).decode()
        start = time.monotonic()
        try:
            s = connect_from(src, port, 10)
            s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic %s\r\nConnection: close\r\n\r\n"
                       % (path, tok)).encode())
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            s.close()
        except OSError:
            return 0, time.monotonic() - start
        return int(data[9:12] or 0), time.monotonic() - start

    counts, lock, done = {}, threading.Lock(), threading.Event()
    worst = {"metrics": 0.0, "healthz": 0.0}
    bad = []

    def attacker(k):
        for i in range(k, n, 8):
            status, _ = get_auth("127.0.3.%d" % (1 + i % 40), "/metrics", "guess-%d" % i)
            with lock:
                counts[status] = counts.get(status, 0) + 1

    def scraper():
        while not done.is_set():
            status, secs = get_auth("127.0.0.1", "/metrics", password)
            worst["metrics"] = max(worst["metrics"], secs)
            if status != 200:
                bad.append("metrics %d" % status)
            status, _, secs = get(port, "/healthz")
            worst["healthz"] = max(worst["healthz"], secs)
            if status != 200:
                bad.append("healthz %d" % status)
            time.sleep(0.05)

    get_auth("127.0.0.1", "/metrics", password)  # the scraper's password is verified and cached
    start = time.monotonic()
    threads = [threading.Thread(target=attacker, args=(k,)) for k in range(8)]
    watcher = threading.Thread(target=scraper)
    watcher.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - start
    done.set()
    watcher.join()
    print("auth-flood: %d wrong passwords from 40 addresses in %.2f s: %s; slowest right-password "
          "scrape %.3f s, slowest /healthz %.3f s" % (n, took, counts, worst["metrics"], worst["healthz"]))
    if bad:
        fail("well-behaved requests failed during the flood: %s" % bad[:5])
    if counts.get(429, 0) == 0:
        fail("no request was throttled: every wrong password cost a bcrypt check")
    if set(counts) - {401, 429}:
        fail("unexpected answers %s" % counts)
    # At worst it waits behind the bcrypt checks queued ahead of it (8 attackers, ~70 ms each).
    if max(worst.values()) > 3.0:
        fail("a well-behaved request took %.3f s during the flood" % max(worst.values()))


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def burst(port, pid, n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = n + 64
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
        n = min(n, min(want, hard) - 64)
    base = fd_count(pid)
    socks, refused = [], 0
    start = time.monotonic()
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind(("127.0.%d.%d" % (1 + i // 250, 5 + i % 250), 0))
        err = s.connect_ex((HOST, port))
        if err not in (0, errno.EINPROGRESS):
            refused += 1
            s.close()
            continue
        try:
            s.send(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        except OSError:
            pass
        socks.append(s)
    peak = fd_count(pid)
    took = time.monotonic() - start
    status, _, secs = get(port, "/healthz", timeout=10)
    for s in socks:
        s.close()
    deadline = time.monotonic() + 15
    while fd_count(pid) > base and time.monotonic() < deadline:
        time.sleep(0.05)
    after = fd_count(pid)
    print("burst: %d connections in %.2f s (%d refused at connect); daemon fds %d -> peak %d -> %d; "
          "/healthz during the burst: %d in %.3f s" % (n, took, refused, base, peak, after, status, secs))
    # Near the limit kept-alive connections are closed once answered, so the queue moves.
    if status != 200:
        fail("a well-behaved client got no answer within 10 s during the burst")
    if get(port, "/healthz")[0] != 200:
        fail("not serving after the burst")
    if after > base:
        fail("daemon fds did not return to %d (now %d)" % (base, after))


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "slowloris":
        slowloris(port, int(sys.argv[3]), float(sys.argv[4]))
    elif mode == "tls-stall":
        tls_stall(port, int(sys.argv[3]), float(sys.argv[4]))
    elif mode == "per-ip":
        per_ip(port, int(sys.argv[3]))
    elif mode == "big-header":
        big_header(port)
    elif mode == "auth-flood":
        auth_flood(port, sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif mode == "burst":
        burst(port, int(sys.argv[3]), int(sys.argv[4]))
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
