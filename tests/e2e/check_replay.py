#!/usr/bin/env python3
"""Judge the detector on a recorded scenario from its replay (perfwatchd --replay FILE --json):
each alert the spec's incident expects fires within the pending time plus two intervals of the
incident's onset, resolves within the resolve time plus two intervals of the recovery's onset, and
no other alert fires; traps fire nothing. Times are the recorded ones (the samples' and the
driver's wall clock), so the verdict is the same on every replay.

    check_replay.py RECORDINGS_DIR REPLAY_DIR --for S --resolve S

For each RECORDINGS_DIR/NAME.json (regenerate.sh's metadata), the replay is REPLAY_DIR/NAME.jsonl.
A live case (tests/live/record.sh) names a shared recording ("recording": R.pwrec, replayed as
REPLAY_DIR/R.jsonl) and is judged in its window, from its start to its end, with its own pending
time ("alert_for_s"): each expected alert fires within pending + 2 intervals of onset, every alert
that fired is resolved by the end, and none of "forbidden" fires ("*": none but the expected and
"allowed" ones).

Transitions after the driver's end are ignored (the tree then stands still, which no kernel does).
Prints one line per expected alert with its latencies (docs/detection.md, "Replay"). Exit 0 or 1."""
import argparse
import datetime
import glob
import json
import os
import sys


def epoch(rfc3339):
    return datetime.datetime.strptime(rfc3339, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def judge(meta_path, replay_path, pending, resolve):
    """The failures of one recording (an empty list when it passes)."""
    meta = json.load(open(meta_path))
    name, interval = meta["spec"], meta["interval_s"]
    onset, recovery, end = meta["onsets"]["incident"], meta["onsets"]["recovery"], meta["end"]
    fired, resolved = {}, {}
    for line in open(replay_path):
        ev = json.loads(line)
        t = epoch(ev["time"])
        if end is not None and t > end:
            continue
        if ev["to"] == "firing":
            fired.setdefault(ev["alert"], t)
        elif ev["to"] == "resolved":
            resolved[ev["alert"]] = t
    failures = []
    detect_budget, resolve_budget = pending + 2 * interval, resolve + 2 * interval
    for alert in meta["expected"]:
        if alert not in fired:
            failures.append("%s never fired" % alert)
            continue
        detect = fired[alert] - onset
        if alert not in resolved:
            failures.append("%s fired %.2f s after onset but never resolved" % (alert, detect))
            continue
        back = resolved[alert] - recovery
        print("%s: %s fired %.2f s after onset (budget %.2f), resolved %.2f s after recovery (budget %.2f)"
              % (name, alert, detect, detect_budget, back, resolve_budget))
        if detect < 0 or detect > detect_budget:
            failures.append("%s fired %.2f s after onset, budget 0..%.2f" % (alert, detect, detect_budget))
        if back < 0 or back > resolve_budget:
            failures.append("%s resolved %.2f s after recovery, budget 0..%.2f" % (alert, back, resolve_budget))
    for alert in sorted(set(fired) - set(meta["expected"])):
        failures.append("unexpected %s firing %.2f s after onset" % (alert, fired[alert] - onset))
    if not meta["expected"] and not fired:
        print("%s: nothing fired, as it should" % name)
    return ["%s: %s" % (name, f) for f in failures]


def judge_live(meta, replay_path):
    """The failures of one live case in its window of a shared recording."""
    name, start, onset, end = meta["spec"], meta["onsets"]["baseline"], meta["onsets"]["incident"], meta["end"]
    fired, state = {}, {}
    for line in open(replay_path):
        ev = json.loads(line)
        t = epoch(ev["time"])
        if start <= t <= end:
            state[ev["alert"]] = ev["to"]
            if ev["to"] == "firing":
                fired.setdefault(ev["alert"], t - onset)
    budget = meta["alert_for_s"] + 2 * meta["interval_s"]
    failures = []
    for alert in meta["expected"]:
        if alert not in fired:
            failures.append("%s never fired" % alert)
        else:
            print("%s: %s fired %.2f s after onset (budget %.2f)" % (name, alert, fired[alert], budget))
            if not 0 <= fired[alert] <= budget:
                failures.append("%s fired %.2f s after onset, budget 0..%.2f" % (alert, fired[alert], budget))
    allowed = set(meta["expected"]) | set(meta.get("allowed", []))
    forbidden = set(fired) - allowed if meta["forbidden"] == "*" else set(fired) & set(meta["forbidden"])
    failures += ["unexpected %s firing %.2f s after onset" % (a, fired[a]) for a in sorted(forbidden)]
    failures += ["%s still firing at the case's end" % a for a in sorted(fired) if state[a] == "firing"]
    if not fired:
        print("%s: nothing fired" % name)
    also = sorted(set(fired) & set(meta.get("allowed", [])) - set(meta["expected"]))
    if also:
        print("%s: allowed %s fired" % (name, ", ".join(also)))
    return ["%s: %s" % (name, f) for f in failures]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("recordings")
    ap.add_argument("replays")
    ap.add_argument("--for", dest="pending", type=float, required=True)
    ap.add_argument("--resolve", type=float, required=True)
    args = ap.parse_args()
    failures, count = [], 0
    for meta in sorted(glob.glob(os.path.join(args.recordings, "*.json"))):
        name = os.path.basename(meta)[:-len(".json")]
        spec = json.load(open(meta))
        if "recording" in spec:
            failures += judge_live(spec, os.path.join(args.replays, spec["recording"][:-len(".pwrec")] + ".jsonl"))
        else:
            failures += judge(meta, os.path.join(args.replays, name + ".jsonl"), args.pending, args.resolve)
        count += 1
    if count == 0:
        failures.append("no recordings in %s" % args.recordings)
    if failures:
        sys.exit("FAIL: " + "; ".join(failures))


main()
