#!/usr/bin/env python3
"""check_scenario.py — follows a perfwatchd that samples a tree pwscenario.py keeps live, and checks
that what /status reports in each phase is what the spec says.

    check_scenario.py SPEC --url http://127.0.0.1:PORT --events DRIVER_STDOUT [--release DRIVER_PID]
                      [--variant V] [--param NAME=VALUE ...] [--tick T] [--speed S] [--timeout SECONDS]
                      [--save FILE | --replay FILE] [--verbose] [--strict]

It polls /status (every 40 ms, so it sees each sample of a 200 ms interval) until the driver's stdout
shows {"event": "end"}, then replays the spec's model (pwscenario.Model) over the same timeline and,
per phase, compares:
  - interval figures (per-CPU and host mode shares and busy %, interrupts/s, the top IRQ lines and
    softirq types, context switches and forks/s, swap/paging rates, per-CPU average frequency):
    the iv-weighted mean over the phase's clean samples against the model's mean over the same
    windows. A window is clean when it lies inside the phase and no event or spike edge falls in
    it (with one driver tick of slack: the files lag the model by up to a tick);
  - levels (procs_running/blocked, memory sizes, PSI avg10, load1): every clean sample against the
    model at the sample's instant (anything between "a tick before its time stamp" and "when its
    reads ended", last_duration_ms later, passes: the stamp precedes the reads);
  - the phase's "expect" figures from INCIDENTS.md against the same means ("max:KEY": [lo, hi]
    over every sample of the phase);
  - structure: CPUs online/offline and PSI files present/absent as the model says, no parse error,
    counter resets only when the spec resets something, the sampler never stalls.
Prints one line per phase (and every failure); exit 0 when all passed, 1 otherwise, 2 on bad usage.
"""
import argparse
import datetime
import json
import os
import signal
import sys
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pwscenario as pws  # noqa: E402

POLL = 0.08         # twice per sample at --interval 200ms: each sample is the latest for 200 ms
LAG = 0.03          # beyond one tick: the driver's own write time and the daemon's read time
RATE_PREFIXES = ("cpu.", "freq.", "intr", "irq.", "softirq.", "ctxt", "forks", "swap_in", "swap_out",
                 "paged_in_kib", "paged_out_kib", "major_faults", "refaults")


def is_rate(key):
    return key.startswith(RATE_PREFIXES)


def parse_time(text):
    dt = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    return dt.replace(tzinfo=datetime.timezone.utc).timestamp()


def figures(doc, freq_source="time_in_state"):
    """The /status figures this checker compares, keyed like Model.expected_rates/levels. An
    average frequency counts only from freq_source: when time_in_state did not move in a window
    perfwatchd reports the instant scaling_cur_freq instead (and says so in "source")."""
    f = {}
    cpu = doc.get("cpu") or {}
    for m, v in (cpu.get("modes_percent") or {}).items():
        f["cpu.all." + m] = v
    if cpu.get("busy_percent") is not None:
        f["cpu.all.busy"] = cpu["busy_percent"]
    avgs = []
    for e in cpu.get("per_cpu") or []:
        c = e["cpu"]
        f["online.%d" % c] = e["online"]
        for m, v in (e.get("modes_percent") or {}).items():
            f["cpu.%d.%s" % (c, m)] = v
        if e.get("busy_percent") is not None:
            f["cpu.%d.busy" % c] = e["busy_percent"]
        fr = e.get("frequency")
        if fr and fr.get("avg_mhz") is not None and fr.get("source") == freq_source:
            f["freq.%d.avg_mhz" % c] = fr["avg_mhz"]
            avgs.append(fr["avg_mhz"])
    if avgs and len(avgs) == sum(1 for e in cpu.get("per_cpu") or [] if e["online"]):
        f["freq.all.avg_mhz"] = sum(avgs) / len(avgs)
    intr = doc.get("interrupts") or {}
    f["intr"] = intr.get("per_second")
    for t in intr.get("top") or []:
        if t.get("device"):
            f["irq." + t["device"]] = t["per_second"]
    soft = doc.get("softirqs") or {}
    f["softirq.total"] = soft.get("per_second")
    for t in soft.get("top") or []:
        f["softirq." + t["type"]] = t["per_second"]
    f["ctxt"] = doc.get("context_switches_per_second")
    f["forks"] = doc.get("forks_per_second")
    f["procs_running"] = doc.get("procs_running")
    f["procs_blocked"] = doc.get("procs_blocked")
    paging = doc.get("paging") or {}
    for src, dst in (("swap_in_pages_per_second", "swap_in"), ("swap_out_pages_per_second", "swap_out"),
                     ("paged_in_kib_per_second", "paged_in_kib"), ("paged_out_kib_per_second", "paged_out_kib"),
                     ("major_faults_per_second", "major_faults"), ("refaults_per_second", "refaults")):
        f[dst] = paging.get(src)
    mem = doc.get("memory") or {}
    for name in ("free", "available", "cached", "buffers", "dirty", "swap_free", "total", "swap_total"):
        f["mem." + name] = mem.get(name + "_mib")
    for res, sec in (doc.get("pressure") or {}).items():
        f["psi_present." + res] = sec is not None
        if sec:
            f["psi.%s.some" % res] = sec.get("some_avg10")
            f["psi.%s.full" % res] = sec.get("full_avg10")
    load = doc.get("load") or {}
    f["load1"] = load.get("load1")
    return {k: v for k, v in f.items() if v is not None}


class Sample:
    def __init__(self, doc, wall0, freq_source):
        self.doc = doc
        self.seq = doc["sample"]["seq"]
        self.iv = doc["sample"]["interval_seconds"] or 0.0
        self.end = parse_time(doc["sample"]["time"]) - wall0   # driver-relative seconds
        self.start = self.end - self.iv
        # The time stamp is taken before the first read; the files are read up to this much later.
        self.read_span = ((doc.get("sampler") or {}).get("last_duration_ms") or 0.0) / 1000.0
        self.fig = figures(doc, freq_source)
        self.rates = {}      # model's interval figures at the window's middle
        self.rates_early = {}  # ... and one driver lag earlier (what stale files may still show)
        self.lo = self.hi = None  # model's levels a tick before the stamp and when the reads ended
        self.online_lo = self.online_hi = None
        self.psi_lo = self.psi_hi = None


def poll(url, events_path, timeout, release=None):
    """Collect /status documents (by seq) until the driver ended; returns (docs, driver lines).
    release: the pid of a driver started with --hold, sent SIGUSR1 after the first document."""
    docs, lines = {}, []
    deadline = time.monotonic() + timeout
    end_seen_at = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/status", timeout=2) as r:
                doc = json.loads(r.read())
            if doc.get("status") == "ok" and doc.get("sample"):
                docs[doc["sample"]["seq"]] = doc
                if release:
                    os.kill(release, signal.SIGUSR1)
                    release = None
        except (urllib.error.URLError, OSError, ValueError):
            pass
        try:
            with open(events_path) as f:
                lines = [json.loads(l) for l in f if l.strip()]
        except (OSError, ValueError):
            pass
        lines = [l for l in lines if l.get("event") != "ready"]
        if end_seen_at is None and any(l.get("event") == "end" for l in lines):
            end_seen_at = time.monotonic()
        if end_seen_at is not None and time.monotonic() - end_seen_at > 0.5:
            return docs, lines
        time.sleep(POLL)
    raise TimeoutError("the driver did not end within %.0f s" % timeout)


class Checker:
    def __init__(self, spec, lines, docs, tick, speed, strict):
        self.spec = spec
        self.tick = tick
        end = [l for l in lines if l.get("event") == "end"]
        stale = (end[0].get("max_stale") or 0.0) if end else 0.0
        # The files lag the model by up to the driver's worst staleness (it says so at the end).
        self.lag = max(tick + LAG, stale + 0.01)
        self.strict = strict
        self.fail, self.notes, self.report, self.details = [], [], [], []
        self.tl = pws.Timeline(spec, speed)
        phases = [l for l in lines if "phase" in l]
        if not phases:
            raise ValueError("the driver printed no phase")
        self.wall0 = phases[0]["wall"] - phases[0]["t"]
        self.lines = lines
        freq = spec["host"].get("cpufreq") or {}
        source = "time_in_state" if freq.get("stats", True) else "scaling_cur_freq"
        self.samples = sorted((Sample(d, self.wall0, source) for d in docs.values()), key=lambda s: s.seq)
        # Times at which something changes discontinuously: events and spike edges.
        self.breaks = [p[0] for p in self.tl.points if p[2] in ("event", "spike_end")]
        self.replay()

    def replay(self):
        """Run the model over the samples' times, in time order, recording what it expects."""
        model = pws.Model(self.spec, self.tl)
        model.advance(0.0, lambda *a: None)
        queries = []
        for s in self.samples:
            queries.append((max(s.start + s.end, 0.0) / 2.0, 1, s))
            queries.append((max((s.start + s.end) / 2.0 - self.lag, 0.0), 3, s))
            queries.append((max(s.end - self.lag, 0.0), 0, s))
            queries.append((max(s.end + s.read_span, 0.0), 2, s))
        queries.sort(key=lambda q: (q[0], q[1]))
        for t, kind, s in queries:
            model.advance(t, lambda *a: None)
            if kind == 1:
                s.rates = model.expected_rates(model.state(t))
            elif kind == 3:
                s.rates_early = model.expected_rates(model.state(t))
            else:
                levels = model.expected_levels()
                online = set(model.online)
                psi = {r: model.psi_file_present(r) for r in pws.PSI_RESOURCES}
                if kind == 0:
                    s.lo, s.online_lo, s.psi_lo = levels, online, psi
                else:
                    s.hi, s.online_hi, s.psi_hi = levels, online, psi
        self.model_end = model

    def broken(self, a, b):
        return any(a <= t <= b for t in self.breaks)

    def bad(self, msg, soft=False):
        if soft and not self.strict:
            self.notes.append(msg)
        else:
            self.fail.append(msg)

    # -- per phase ----------------------------------------------------------------------------

    def check_phases(self):
        for index, (p_start, p_end, name, phase) in enumerate(self.tl.phases):
            raw = self.spec["phases"][index]
            in_phase = [s for s in self.samples if s.start >= p_start and s.end <= p_end]
            clean = [s for s in in_phase if s.start - self.lag >= p_start and s.seq > 1
                     and not self.broken(s.start - self.lag - 0.01, s.end)]
            clean_lvl = [s for s in self.samples if p_start <= s.end - self.lag and s.end + s.read_span <= p_end
                         and not self.broken(s.end - self.lag - 0.01, s.end + s.read_span)]
            if len(clean) < 3:
                self.bad("%s: only %d clean samples (phase %.2f s)" % (name, len(clean), p_end - p_start))
                continue
            n_ok, n_all = self.check_rates(name, clean)
            l_ok, l_all = self.check_levels(name, clean_lvl)
            e_ok, e_all = self.check_expect(name, raw.get("expect") or {}, clean, in_phase)
            self.report.append("%-10s %5.2f-%5.2f s  %2d clean samples  figures %d/%d  levels %d/%d  "
                               "incident figures %d/%d"
                               % (name, p_start, p_end, len(clean), n_ok, n_all, l_ok, l_all, e_ok, e_all))

    def weighted(self, samples, key, expected=False):
        num = den = 0.0
        for s in samples:
            src = s.rates if expected else s.fig
            if key in src and key in s.fig:
                num += src[key] * s.iv
                den += s.iv
        return (num / den, den) if den else (None, 0.0)

    def ramp_slack(self, samples, key):
        num = den = 0.0
        for s in samples:
            if key in s.rates and key in s.rates_early and key in s.fig:
                num += abs(s.rates[key] - s.rates_early[key]) * s.iv
                den += s.iv
        return num / den if den else 0.0

    def gaps(self, samples):
        return sum(1 for a, b in zip(samples, samples[1:]) if b.seq != a.seq + 1)

    def tolerance(self, key, expected, span, gaps):
        hz = self.spec["host"]["user_hz"]
        if key.startswith("cpu."):
            return 1.0 + 200.0 / (hz * span)
        if key.startswith("freq."):
            return 0.015 * max(self.tl_max_mhz(), 1.0)
        rel = 0.01 + 1.5 * (gaps + 1) * self.lag / span
        return abs(expected) * rel + 2.5 / span + 0.06

    def tl_max_mhz(self):
        freq = self.spec["host"].get("cpufreq")
        return freq["states_khz"][0] / 1000.0 if freq else 0.0

    def check_rates(self, name, clean):
        keys = set()
        for s in clean:
            keys |= {k for k in s.rates if k in s.fig}
        ok = total = 0
        span = sum(s.iv for s in clean)
        gaps = self.gaps(clean)
        for key in sorted(keys):
            exp, _ = self.weighted(clean, key, expected=True)
            seen, den = self.weighted(clean, key)
            if seen is None or den < 0.5 * span:
                continue
            total += 1
            # In a ramp, files up to one lag stale hold data from a lag earlier.
            tol = self.tolerance(key, exp, den, gaps) + self.ramp_slack(clean, key)
            self.details.append("%s: %-22s spec %10.2f  seen %10.2f  tolerance %.2f" % (name, key, exp, seen, tol))
            if abs(seen - exp) <= tol:
                ok += 1
            else:
                self.bad("%s: %s = %.2f, spec %.2f (tolerance %.2f, %d samples)" % (name, key, seen, exp, tol, len(clean)))
        # The busiest IRQ line and softirq type the spec drives must be in the daemon's top lists.
        for prefix in ("irq.", "softirq."):
            exp = {k: v for k, v in clean[-1].rates.items() if k.startswith(prefix) and k != "softirq.total"}
            if exp:
                top = max(exp, key=exp.get)
                if exp[top] > 0 and not any(top in s.fig for s in clean):
                    self.bad("%s: %s (%.0f/s in the spec) never in /status's top list" % (name, top, exp[top]))
        return ok, total

    def check_levels(self, name, samples):
        ok = total = 0
        for s in samples:
            if s.lo is None:
                continue
            for key, hi in s.hi.items():
                lo = s.lo.get(key, hi)
                seen = s.fig.get(key)
                if seen is None:
                    if key.startswith("psi."):
                        continue  # presence is check_presence's
                    self.bad("%s: %s missing from /status at seq %d" % (name, key, s.seq))
                    continue
                total += 1
                a, b = min(lo, hi), max(lo, hi)
                tol = 0.06 if key.startswith("mem.") else 0.011 if key.startswith(("psi.", "load")) else 0
                if a - tol <= seen <= b + tol:
                    ok += 1
                else:
                    self.bad("%s: %s = %s at seq %d, spec %s..%s" % (name, key, seen, s.seq, round(a, 3), round(b, 3)))
        return ok, total

    def check_expect(self, name, expect, clean, in_phase):
        ok = total = 0
        span = sum(s.iv for s in clean)
        for key, want in expect.items():
            total += 1
            if key.startswith(("max:", "min:")):
                k = key[4:]
                vals = [s.fig[k] for s in in_phase if k in s.fig]
                got = (max if key.startswith("max:") else min)(vals) if vals else None
                self.details.append("%s: %-22s incident %8s  seen %10s" % (name, key, want, got))
                if got is not None and want[0] <= got <= want[1]:
                    ok += 1
                else:
                    self.bad("%s: %s = %s, incident figure wants %s..%s" % (name, key, got, want[0], want[1]))
                continue
            if is_rate(key):
                seen, _ = self.weighted(clean, key)
                tol = self.tolerance(key, want, span, self.gaps(clean))
                if not key.startswith(("cpu.", "freq.")):
                    tol = max(tol, 0.03 * abs(want))  # "within a few %" for rates
            else:
                vals = [s.fig[key] for s in clean if key in s.fig]
                seen = sum(vals) / len(vals) if vals else None
                tol = 0.2 if key.startswith("mem.") else 0.02 if key.startswith(("psi.", "load")) else 0.5
            self.details.append("%s: %-22s incident %8s  seen %10s  tolerance %.2f"
                                % (name, key, want, None if seen is None else round(seen, 2), tol))
            if seen is not None and abs(seen - want) <= tol:
                ok += 1
            else:
                self.bad("%s: %s = %s, incident figure %s (tolerance %.2f)"
                         % (name, key, None if seen is None else round(seen, 2), want, tol))
        return ok, total

    # -- whole run ----------------------------------------------------------------------------

    def median_iv(self):
        ivs = sorted(s.iv for s in self.samples if s.iv)
        return ivs[len(ivs) // 2] if ivs else 0.0

    def check_sampler(self):
        """The sampler kept sampling, parsed everything, and counted resets only when due."""
        iv = self.median_iv()
        span = self.samples[-1].end - self.samples[0].end
        if iv and len(self.samples) < 0.8 * span / iv:
            self.bad("only %d samples seen over %.1f s at %.3f s: the poller or the sampler stalled"
                     % (len(self.samples), span, iv))
        seqs = [s.seq for s in self.samples]
        if seqs[-1] - seqs[0] + 1 > len(seqs) * 1.25 + 2:
            self.notes.append("missed %d of %d samples while polling" % (seqs[-1] - seqs[0] + 1 - len(seqs), seqs[-1] - seqs[0] + 1))
        last = self.samples[-1].doc["sampler"]
        for src, n in last["parse_errors"].items():
            if n:
                self.bad("%d parse errors on %s" % (n, src))
        resets_expected = any(p[2] == "event" and (p[3]["type"] == "reset" or p[3].get("reset"))
                              for p in self.tl.points)
        resets = last["counter_resets"]
        if resets and not resets_expected:
            self.bad("%d counter resets counted, the spec resets nothing" % resets)
        if resets_expected and not resets:
            self.bad("the spec resets counters but perfwatchd counted no reset")
        absent = {k for k, v in last["sources"].items() if v != "up"}
        expected_absent = set() if self.spec["host"].get("cpufreq") else {"cpufreq"}
        if absent - expected_absent:
            self.bad("sources not up at the end: %s" % ", ".join(sorted(absent - expected_absent)))

    def check_no_jumps(self):
        """Around resets, hotplug and spikes no figure turns into a jump: every sample, clean or
        not, stays below the highest rate the spec ever asks for, stretched by what a late driver
        can put in one window (iv + lag of data)."""
        iv = self.median_iv()
        stretch = (iv + self.lag) / iv if iv else 2.0
        spike_rates = {}
        for _, _, ov in self.tl.overlays:  # a spike's own rates count towards the highest
            for key in ("irqs", "softirqs"):
                for v in (ov.get(key) or {}).values():
                    spike_rates[key] = spike_rates.get(key, 0.0) + (sum(v.values()) if isinstance(v, dict) else v)
        extra = {"intr": spike_rates.get("irqs", 0.0), "softirq.total": spike_rates.get("softirqs", 0.0)}
        for key in ("intr", "ctxt", "forks", "softirq.total", "swap_out", "paged_in_kib", "major_faults"):
            top = max((s.rates.get(key, 0.0) for s in self.samples), default=0.0) + extra.get(key, 0.0)
            worst = max((s for s in self.samples if key in s.fig), key=lambda s: s.fig[key], default=None)
            if worst is not None and worst.fig[key] > stretch * top * 1.05 + 10:
                self.bad("seq %d (t=%.2f): %s = %s, the spec never exceeds %.1f"
                         % (worst.seq, worst.end, key, worst.fig[key], top))
        top_intr = max((s.rates.get("intr", 0.0) for s in self.samples), default=0.0) + extra["intr"]
        for s in self.samples:
            for e in (s.doc.get("interrupts") or {}).get("per_cpu_per_second") or []:
                # per CPU, /proc/interrupts counts the TLB IPIs twice (inside CAL and on their own)
                if e.get("per_second") is not None and e["per_second"] > 2 * stretch * top_intr + 1000:
                    self.bad("seq %d: cpu%d interrupts %s/s, the host's total never exceeds %.0f/s"
                             % (s.seq, e["cpu"], e["per_second"], top_intr))

    def check_presence(self):
        """CPUs online and PSI files present exactly when the spec has them (samples taken while
        the set was changing are skipped)."""
        restored = [p for p in self.tl.points if p[2] == "event" and p[3]["type"] == "restore"]
        gap = {}
        for s in self.samples:
            if s.online_lo is not None and s.online_lo == s.online_hi:
                for c in range(self.spec["host"]["ncpu"]):
                    seen = s.fig.get("online.%d" % c)
                    if seen is not None and seen != (c in s.online_hi):
                        self.bad("seq %d: cpu%d online=%s, spec %s" % (s.seq, c, seen, c in s.online_hi))
            if s.psi_lo is None or s.psi_lo != s.psi_hi:
                continue
            for res, present in s.psi_hi.items():
                seen = s.fig.get("psi_present." + res)
                if seen is None or seen == present:
                    continue
                back = [p[0] for p in restored if p[0] < s.end and p[3]["path"] == "proc/pressure/" + res]
                if present and back:
                    gap.setdefault(res, [back[-1], []])[1].append(s)
                    continue
                self.bad("seq %d (t=%.2f): pressure/%s %s in /status, spec %s"
                         % (s.seq, s.end, res, "present" if seen else "absent", "present" if present else "absent"))
        for res, (when, samples) in gap.items():
            # perfwatchd keeps the fd of a file it has open: after an unlink and a re-create it
            # reads the dead inode for ever (a daemon gap, not a driver fault; see README.md).
            self.bad("pressure/%s restored at t=%.2f, still absent in /status in all %d samples after "
                     "it (t=%.2f..%.2f)" % (res, when, len(samples), samples[0].end, samples[-1].end), soft=True)

    def run(self):
        if not self.samples:
            self.bad("no sample from perfwatchd")
            return False
        self.check_phases()
        self.check_sampler()
        self.check_no_jumps()
        self.check_presence()
        return not self.fail


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec")
    ap.add_argument("--url", help="perfwatchd's base URL (or --replay)")
    ap.add_argument("--replay", metavar="FILE", help="check the documents a --save wrote instead of polling")
    ap.add_argument("--events", required=True, help="the driver's stdout, being written")
    ap.add_argument("--variant")
    ap.add_argument("--param", action="append")
    ap.add_argument("--tick", type=float, default=0.05)
    ap.add_argument("--speed", type=float, default=1.0)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--release", type=int, metavar="PID",
                    help="SIGUSR1 to this driver (started with --hold) once /status answers")
    ap.add_argument("--verbose", action="store_true", help="print every figure compared")
    ap.add_argument("--save", metavar="FILE", help="write every /status document seen, one JSON a line")
    ap.add_argument("--strict", action="store_true", default=os.environ.get("PW_SCENARIO_STRICT") == "1",
                    help="daemon gaps noted as NOTE become failures (also PW_SCENARIO_STRICT=1)")
    args = ap.parse_args(argv)
    try:
        spec = pws.load_spec(args.spec, args.variant, pws.parse_params(args.param))
    except pws.SpecError as e:
        print("check_scenario: %s" % e, file=sys.stderr)
        return 2
    label = spec["name"] + (":%s" % spec["variant"] if spec.get("variant") else "")
    try:
        if args.replay:
            with open(args.replay) as f:
                docs = {d["sample"]["seq"]: d for d in map(json.loads, f)}
            with open(args.events) as f:
                lines = [l for l in map(json.loads, f) if l.get("event") != "ready"]
        elif args.url:
            docs, lines = poll(args.url, args.events, args.timeout, args.release)
        else:
            ap.error("--url or --replay is required")
        if args.save:
            with open(args.save, "w") as f:
                for seq in sorted(docs):
                    f.write(json.dumps(docs[seq]) + "\n")
        checker = Checker(spec, lines, docs, args.tick, args.speed, args.strict)
        ok = checker.run()
    except (TimeoutError, ValueError) as e:
        print("FAIL %s: %s" % (label, e))
        return 1
    if args.verbose:
        for line in checker.details:
            print("  %s  %s" % (label, line))
    for line in checker.report:
        print("  %s  %s" % (label, line))
    for note in checker.notes:
        print("  NOTE %s: %s" % (label, note))
    for f in checker.fail[:40]:
        print("  FAIL %s: %s" % (label, f))
    if len(checker.fail) > 40:
        print("  FAIL %s: ... and %d more" % (label, len(checker.fail) - 40))
    print("%s %s (%d samples, files at most %.3f s stale)" % ("ok" if ok else "FAIL", label, len(checker.samples), checker.lag - 0.01))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
