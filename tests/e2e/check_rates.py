#!/usr/bin/env python3
"""After a fixture tree was rewritten from BEFORE to AFTER, poll perfwatchd's /status until the
sample that saw each change appears, and check its figures against the fixtures' own deltas.

An independent oracle: the deltas are computed here from the files, not by perfwatch's parsers.
Usage: check_rates.py URL BEFORE_PROC AFTER_PROC TIMEOUT_SECONDS"""
import json
import sys
import time
import urllib.request

MODES = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]


def stat(proc):
    out = {}
    for line in open(proc + "/stat"):
        f = line.split()
        if f[0] == "cpu":
            out["cpu"] = [int(x) for x in f[1:9]]
        elif f[0] in ("ctxt", "intr"):
            out[f[0]] = int(f[1])
    return out


def interrupt_lines(proc):
    lines = open(proc + "/interrupts").read().splitlines()
    ncpu = len(lines[0].split())
    totals = {}
    for line in lines[1:]:
        irq, rest = line.split(":", 1)
        counts = []
        for tok in rest.split()[:ncpu]:
            if not tok.isdigit():
                break
            counts.append(int(tok))
        totals[irq.strip()] = sum(counts)
    return totals


def fetch(url):
    with urllib.request.urlopen(url + "/status", timeout=5) as r:
        return json.load(r)


def poll(url, deadline, ready, what):
    """The first /status document for which ready(doc) holds."""
    seen = set()
    while time.time() < deadline:
        doc = fetch(url)
        seq = doc.get("sample", {}).get("seq")
        if seq not in seen:
            seen.add(seq)
            if ready(doc):
                return doc
        time.sleep(0.05)
    sys.exit("FAIL: no sample showed " + what)


def close(got, want, tolerance, what):
    if abs(got - want) > tolerance:
        sys.exit("FAIL: %s is %s, want %s (+-%s)" % (what, got, want, tolerance))
    print("ok: %s = %s (want %.3f)" % (what, got, want))


def main():
    url, before, after, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    deadline = time.time() + timeout
    s0, s1 = stat(before), stat(after)

    # Mode shares depend only on tick deltas: exact up to the document's one-decimal rounding.
    doc = poll(url, deadline, lambda d: d["cpu"]["modes_percent"] is not None, "CPU mode shares")
    delta = [b - a for a, b in zip(s0["cpu"], s1["cpu"])]
    for i, mode in enumerate(MODES):
        close(doc["cpu"]["modes_percent"][mode], 100.0 * delta[i] / sum(delta), 0.051, "host %s %%" % mode)
    interval = doc["sample"]["interval_seconds"]
    close(doc["context_switches_per_second"], (s1["ctxt"] - s0["ctxt"]) / interval,
          0.01 * (s1["ctxt"] - s0["ctxt"]) / interval + 1, "context switches/s")

    # Interrupt lines: the busiest line's rate is its delta over the interval of the sample.
    l0, l1 = interrupt_lines(before), interrupt_lines(after)
    busiest = max(l1, key=lambda irq: l1[irq] - l0.get(irq, 0))
    doc = poll(url, deadline, lambda d: d["interrupts"]["top"], "interrupt lines")
    top = doc["interrupts"]["top"][0]
    if top["irq"] != busiest:
        sys.exit("FAIL: busiest line is %s, want %s" % (top["irq"], busiest))
    want = (l1[busiest] - l0[busiest]) / doc["sample"]["interval_seconds"]
    close(top["per_second"], want, 0.01 * want + 1, "line %s per second" % busiest)
    print("PASS")


main()
