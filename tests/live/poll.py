#!/usr/bin/env python3
"""poll.py URL OUT PID MAX_SECONDS: every 250 ms, GET URL/alerts and URL/status and append one JSON
line to OUT: {"t": wall clock, "alerts": [...], "status": {...}}; "status" only when the daemon
took a new sample (it changes once an interval, the alerts may change between). Ends when perfwatchd
(PID) has exited or after MAX_SECONDS, so it never outlives the test."""
import json
import os
import sys
import time
import urllib.request

url, out, pid, until = sys.argv[1], sys.argv[2], int(sys.argv[3]), time.time() + float(sys.argv[4])


def get(path):
    with urllib.request.urlopen(url + path, timeout=2) as r:
        return json.load(r)


def alive():
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


last_seq = None
with open(out, "a", buffering=1) as log:
    while time.time() < until and alive():
        tick = time.time()
        try:
            line = {"t": tick, "alerts": get("/alerts")["alerts"]}
            status = get("/status")
            if status.get("sample", {}).get("seq") != last_seq:
                last_seq = status.get("sample", {}).get("seq")
                line["status"] = status
            log.write(json.dumps(line, separators=(",", ":")) + "\n")
        except (OSError, ValueError):
            pass  # the daemon is starting or stopping: the next poll tells
        time.sleep(max(0.0, 0.25 - (time.time() - tick)))
