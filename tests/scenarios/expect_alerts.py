#!/usr/bin/env python3
"""Follow perfwatchd's /alerts through one scenario and judge the detector: each alert the spec's
incident phase names fires within its latency budget after onset and resolves after recovery, and no
other alert ever fires (pending is allowed: a blip shorter than the pending time is no alert).

    expect_alerts.py SPEC --url URL --events DRIVER_STDOUT [--release DRIVER_PID]
                     --interval S --for S --resolve S [--param NAME=VALUE ...]

Prints one line per expected alert with its detection and resolve latency (the figures of
docs/detection.md). Exit 0 when every check holds, 1 otherwise."""
import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
POLL_S = 0.05


def get_json(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)


def spec_phases(spec, params):
    """The phases with the alerts each expects, from the driver's own --dump."""
    cmd = [sys.executable, os.path.join(HERE, "pwscenario.py"), spec, "--dump"]
    for p in params:
        cmd += ["--param", p]
    return json.loads(subprocess.check_output(cmd))["phases"]


def read_events(path):
    phases, end = {}, None
    try:
        for line in open(path):
            ev = json.loads(line)
            if "phase" in ev:
                phases[ev["phase"]] = ev["wall"]
            elif ev.get("event") == "end":
                end = ev["wall"]
    except (OSError, ValueError):
        pass
    return phases, end


def follow(args):
    """Poll /alerts until the driver ended and the resolve time has passed; returns, per alert
    name, the wall times at which it was seen firing, and the phase start times."""
    deadline = time.time() + args.timeout
    firing, released = {}, False
    while time.time() < deadline:
        try:
            doc = get_json(args.url + "/alerts")
        except OSError:
            time.sleep(POLL_S)
            continue
        if args.release and not released:
            os.kill(args.release, signal.SIGUSR1)
            released = True
        now = time.time()
        phases, end = read_events(args.events)
        # After the driver's end the tree stands still, which no kernel does (every rate falls to
        # zero): what fires then is an artefact, not a verdict.
        if end and now > end:
            return firing, phases
        for a in doc["alerts"]:
            if a["state"] == "firing":
                firing.setdefault(a["name"], []).append(now)
        time.sleep(POLL_S)
    sys.exit("FAIL: the scenario did not end in %ss" % args.timeout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("--url", required=True)
    ap.add_argument("--events", required=True)
    ap.add_argument("--release", type=int, help="SIGUSR1 to this driver (started with --hold) once /alerts answers")
    ap.add_argument("--interval", type=float, required=True)
    ap.add_argument("--for", dest="pending", type=float, required=True)
    ap.add_argument("--resolve", type=float, required=True)
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()

    expected = {n for p in spec_phases(args.spec, args.param) for n in p.get("alerts", [])}
    firing, phases = follow(args)
    onset, recovery = phases.get("incident"), phases.get("recovery")
    # Budget: the pending time plus two intervals (docs/detection.md), plus our polling and the
    # driver's tick.
    slack = 2 * args.interval + 2 * POLL_S + 0.35
    failures = []
    for name in sorted(expected):
        seen = firing.get(name)
        if not seen:
            failures.append("%s never fired" % name)
            continue
        detect, resolve = seen[0] - onset, seen[-1] - recovery
        print("%s: %s fired %.2f s after onset (budget %.2f), last seen firing %.2f s after recovery (budget %.2f)"
              % (args.spec, name, detect, args.pending + slack, resolve, args.resolve + slack))
        if seen[0] < onset:
            failures.append("%s fired before the incident" % name)
        if detect > args.pending + slack:
            failures.append("%s fired %.2f s after onset, budget %.2f" % (name, detect, args.pending + slack))
        if resolve > args.resolve + slack:
            failures.append("%s still firing %.2f s after recovery" % (name, resolve))
    for name in sorted(set(firing) - expected):
        failures.append("unexpected %s firing at %.2f s after start" % (name, firing[name][0] - phases["baseline"]))
    if not expected and not firing:
        print("%s: nothing fired, as it should" % args.spec)
    if failures:
        sys.exit("FAIL: %s: %s" % (args.spec, "; ".join(failures)))


main()
