#!/usr/bin/env python3
"""Follow perfwatchd's /alerts through one scenario and judge the detector: each alert the spec's
incident phase names fires within its latency budget after onset and resolves after recovery, and no
other alert ever fires (pending is allowed: a blip shorter than the pending time is no alert).

    expect_alerts.py SPEC --url URL --events DRIVER_STDOUT [--release DRIVER_PID]
                     --interval S --for S --resolve S [--param NAME=VALUE ...]

Prints one line per expected alert with its detection and resolve latency (the figures of
docs/detection.md). A phase may also say what a firing alert's evidence must show,
{"evidence": {ALERT: [[PATH, OP, VALUE], ...]}}: PATH is looked up in the alert's "evidence" object,
else in the alert itself ("description"); a "*" step means any element of a list; OP is ==, >=, <=,
~ (regular expression search) or excludes (no element equals VALUE). All of an alert's checks must
hold together in at least one /alerts document while it fires in that phase (the probes need a
second look before they show figures). Exit 0 when every check holds, 1 otherwise."""
import argparse
import json
import os
import re
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


def lookup(node, steps):
    """The values at a dotted path, "*" fanning out over a list."""
    if not steps:
        return [node]
    step, rest = steps[0], steps[1:]
    if step == "*":
        return [v for item in (node if isinstance(node, list) else []) for v in lookup(item, rest)]
    if isinstance(node, list) and step.isdigit():
        return lookup(node[int(step)], rest) if int(step) < len(node) else []
    if isinstance(node, dict) and step in node:
        return lookup(node[step], rest)
    return []


def check_holds(alert, check):
    path, op, want = check
    steps = path.split(".")
    values = lookup(alert.get("evidence") or {}, steps) or lookup(alert, steps)
    if op == "excludes":
        return want not in values
    for v in values:
        if v is None:
            continue
        if (op == "==" and v == want) or (op == ">=" and v >= want) or (op == "<=" and v <= want) or \
                (op == "~" and re.search(want, str(v))):
            return True
    return False


def evidence_seen(doc, phase_name, evidence_checks, seen, last):
    """Record which alerts showed all their evidence checks in this document."""
    for a in doc["alerts"]:
        checks = evidence_checks.get(phase_name, {}).get(a["name"])
        if a["state"] != "firing" or not checks:
            continue
        key = (phase_name, a["name"])
        failing = [c for c in checks if not check_holds(a, c)]
        if not failing:
            seen.add(key)
        else:
            last[key] = (failing, a.get("evidence"))


def current_phase(phases, now):
    started = [(wall, name) for name, wall in phases.items() if wall <= now]
    return max(started)[1] if started else None


def follow(args, evidence_checks):
    """Poll /alerts until the driver ended and the resolve time has passed; returns, per alert
    name, the wall times at which it was seen firing, the phase start times, and which evidence
    checks held."""
    deadline = time.time() + args.timeout
    firing, released = {}, False
    seen, last = set(), {}
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
            return firing, phases, seen, last
        for a in doc["alerts"]:
            if a["state"] == "firing":
                firing.setdefault(a["name"], []).append(now)
        phase_name = current_phase(phases, now)
        if phase_name:
            evidence_seen(doc, phase_name, evidence_checks, seen, last)
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

    spec = spec_phases(args.spec, args.param)
    expected = {n for p in spec for n in p.get("alerts", [])}
    evidence_checks = {p["name"]: p["evidence"] for p in spec if p.get("evidence")}
    firing, phases, evidence_ok, last = follow(args, evidence_checks)
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
    for phase_name, checks in sorted(evidence_checks.items()):
        for name in sorted(checks):
            if (phase_name, name) in evidence_ok:
                print("%s: %s evidence shows %s" % (args.spec, name, "; ".join(
                    "%s %s %r" % tuple(c) for c in checks[name])))
            elif name in firing:
                failing, ev = last.get((phase_name, name), (checks[name], None))
                failures.append("%s evidence never showed %s (last evidence: %s)" % (
                    name, "; ".join("%s %s %r" % tuple(c) for c in failing), json.dumps(ev)[:1500]))
    for name in sorted(set(firing) - expected):
        failures.append("unexpected %s firing at %.2f s after start" % (name, firing[name][0] - phases["baseline"]))
    if not expected and not firing:
        print("%s: nothing fired, as it should" % args.spec)
    if failures:
        sys.exit("FAIL: %s: %s" % (args.spec, "; ".join(failures)))


main()
