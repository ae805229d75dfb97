#!/usr/bin/env python3
"""judge_live.py POLL_LOG CASE [options]: judge one live case from poll.py's log of /alerts and
/status, and print what the host showed (idle baseline, optional steady phase, incident) and what
perfwatchd fired and said.

  --baseline T0:T1 --pre T0:T1   idle and steady-phase windows (wall clock) for the figures
  --start T --onset T --stop T --end T   the case's start, the incident's onset, the workload's
                                 stop, the case's end
  --expect A,B                   must fire (state firing) within --budget seconds of onset
  --allow A,B                    may fire; like every alert that fired, must be over by --end
  --forbid A,B | '*'             must not fire between onset and end ('*': anything not expected/allowed)
  --words RE;RE                  one /status diagnosis during the incident matches every RE (case-insensitive)
  --figures FILE                 append the case's figures and verdict as one JSON line
  --meta FILE --recording NAME --replay-arg ARG...   write check_replay.py's metadata for the case

Exit 0 when the case is right, 1 when not."""
import argparse
import datetime
import json
import re
import statistics
import sys


def epoch(rfc3339):
    return datetime.datetime.strptime(rfc3339, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def window(arg):
    return tuple(float(x) for x in arg.split(":")) if arg else None


def split(arg):
    return [x for x in (arg or "").split(",") if x]


def figures(statuses, win):
    """Medians over the samples taken in WIN (PSI avg10 ramps up over 10 s: its maximum too)."""
    rows = [s for t, s in statuses if win[0] <= t <= win[1]]
    if not rows:
        return None
    med = lambda f: round(statistics.median(f(s) or 0 for s in rows), 1)
    modes = ("user", "nice", "system", "irq", "softirq", "iowait", "steal")
    fig = {"samples": len(rows), "host": {m: med(lambda s: s["cpu"]["modes_percent"][m]) for m in modes}}
    fig["per_cpu"] = {"cpu%d" % c["cpu"]: {m: med(lambda s, i=i: s["cpu"]["per_cpu"][i]["modes_percent"][m])
                                           for m in modes if m != "steal"}
                      for i, c in enumerate(rows[0]["cpu"]["per_cpu"])}
    fig["interrupts_per_s"] = med(lambda s: s["interrupts"]["per_second"])
    fig["softirqs_per_s"] = med(lambda s: s["softirqs"]["per_second"])
    types = {x["type"] for s in rows for x in s["softirqs"]["top"]}
    fig["softirq_types_per_s"] = {t: med(lambda s, t=t: next((x["per_second"] for x in s["softirqs"]["top"]
                                                                if x["type"] == t), 0)) for t in sorted(types)}
    lines = {(x["irq"], x.get("device") or "") for s in rows for x in s["interrupts"]["top"]}
    rate = {"%s %s" % l: med(lambda s, l=l: next((x["per_second"] for x in s["interrupts"]["top"]
                                                   if (x["irq"], x.get("device") or "") == l), 0)) for l in lines}
    fig["top_lines_per_s"] = dict(sorted(rate.items(), key=lambda kv: -kv[1])[:4])
    fig["swap_out_pages_per_s"] = med(lambda s: s["paging"]["swap_out_pages_per_second"])
    fig["swap_in_pages_per_s"] = med(lambda s: s["paging"]["swap_in_pages_per_second"])
    for res in ("io", "memory"):
        vals = [((s.get("pressure") or {}).get(res) or {}).get("some_avg10") for s in rows]
        vals = [v for v in vals if v is not None]
        fig["psi_%s_some_avg10" % res] = (round(statistics.median(vals), 1), max(vals)) if vals else None
    return fig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("case")
    ap.add_argument("--baseline", type=window)
    ap.add_argument("--pre", type=window)
    ap.add_argument("--start", type=float, help="the case's start, before any setup (the replay window)")
    ap.add_argument("--onset", type=float, required=True)
    ap.add_argument("--stop", type=float, required=True)
    ap.add_argument("--end", type=float, required=True)
    ap.add_argument("--expect", type=split, default=[])
    ap.add_argument("--allow", type=split, default=[])
    ap.add_argument("--forbid", default="")
    ap.add_argument("--words", default="")
    ap.add_argument("--budget", type=float, default=5.5)
    ap.add_argument("--pending", type=float, default=3, help="--alert-for, for the replay's budget")
    ap.add_argument("--figures")
    ap.add_argument("--meta")
    ap.add_argument("--recording")
    ap.add_argument("--replay-arg", dest="replay_args", action="append", default=[])
    a = ap.parse_args()

    polls = [json.loads(l) for l in open(a.log) if l.strip()]
    statuses = [(epoch(p["status"]["sample"]["time"]), p["status"]) for p in polls if "status" in p]
    fired, last_active = {}, {}
    for p in polls:
        if not a.onset <= p["t"] <= a.end:
            continue
        for al in p["alerts"]:
            last_active[al["name"]] = p["t"]
            if al["state"] == "firing" and al["name"] not in fired:
                fired[al["name"]] = (p["t"] - a.onset, al.get("severity"), al.get("summary"))
    end_active = set()
    final = [p for p in polls if p["t"] <= a.end]
    if final:
        end_active = {al["name"] for al in final[-1]["alerts"]}
    # The incident's figures skip its first 3 s (the interval straddling onset, ramps); a case whose
    # incident is its workload's end (i) shows the time after it.
    inc = (a.onset + 3, a.stop) if a.stop > a.onset + 3 else (a.onset + 3, a.end)
    hold = [(t, s) for t, s in statuses if inc[0] <= t <= inc[1]]
    said = (a.onset, a.stop) if a.stop > a.onset else inc
    diagnoses = [s.get("diagnosis", "") for t, s in statuses if said[0] <= t <= said[1]]

    failures = []
    for name in a.expect:
        if name not in fired:
            failures.append("%s never fired" % name)
        elif fired[name][0] > a.budget:
            failures.append("%s fired %.1f s after onset, budget %.1f s" % (name, fired[name][0], a.budget))
    forbid = set(fired) - set(a.expect) - set(a.allow) if a.forbid == "*" else set(split(a.forbid)) & set(fired)
    for name in sorted(forbid):
        failures.append("%s fired %.1f s after onset (%s)" % (name, fired[name][0], fired[name][2]))
    for name in sorted(end_active & set(fired)):
        failures.append("%s still active %.0f s after the workload stopped" % (name, a.end - a.stop))
    words = [w for w in a.words.split(";") if w]
    if words and not any(all(re.search(w, d, re.I) for w in words) for d in diagnoses):
        failures.append("no diagnosis during the incident matches %s" % " and ".join(words))

    result = {"case": a.case, "ok": not failures, "failures": failures,
              "fired": {n: {"after_onset_s": round(v[0], 2), "severity": v[1], "summary": v[2]} for n, v in fired.items()},
              "resolved_after_stop_s": {n: round(last_active[n] - a.stop, 1) for n in fired if n not in end_active},
              "baseline": figures(statuses, a.baseline) if a.baseline else None,
              "pre": figures(statuses, a.pre) if a.pre else None,
              "incident": figures(statuses, inc) if hold else None,
              "diagnosis": diagnoses[len(diagnoses) * 2 // 3] if diagnoses else None,
              "diagnoses_distinct": len(set(diagnoses))}
    if a.figures:
        with open(a.figures, "a") as f:
            f.write(json.dumps(result) + "\n")
    for key in ("baseline", "pre", "incident"):
        if result[key]:
            print("  %-8s %s" % (key, json.dumps(result[key])))
    print("  fired    %s" % json.dumps(result["fired"]))
    print("  diagnosis %r" % result["diagnosis"])
    if a.meta:
        meta = {"spec": "live:" + a.case, "recording": a.recording, "replay_args": a.replay_args,
                "interval_s": 1.0, "alert_for_s": a.pending, "expected": a.expect, "allowed": a.allow,
                "forbidden": a.forbid if a.forbid == "*" else split(a.forbid),
                "onsets": {"baseline": a.start, "incident": a.onset,
                           "recovery": a.stop}, "end": a.end}
        json.dump(meta, open(a.meta, "w"), indent=1)
    for f in failures:
        print("  FAIL %s: %s" % (a.case, f))
    sys.exit(1 if failures else 0)


main()
