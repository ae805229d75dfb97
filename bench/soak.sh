#!/usr/bin/env bash
# bench/soak.sh — a day of perfwatchd in a quarter of an hour: 86 400 samples at a 10 ms interval
# (one "day" of 1 s samples) on a live fixture tree where an incident (CpuFrequencyLow) comes and
# goes every CYCLE_S seconds, with scrapes (/metrics, /status, /alerts, /history) and a webhook
# receiver; the history keeps 3 600 samples (the hour of a 1 s day). Every 10 s it reads the
# daemon's RSS, open fds and threads from /proc; at the end it prints them at the 1 h / 6 h / 12 h
# / 24 h equivalents (3 600, 21 600, 43 200, 86 400 samples), the samples taken against those
# expected, and the alerts fired and resolved against the webhooks delivered. Not a test (too
# long): docs/robustness.md has the figures of a run; tests/e2e/test_soak_short.sh runs 40 s of it.
#
#   bench/soak.sh                       the whole day (about 15 minutes)
#   SAMPLES=12000 bench/soak.sh         shorter
#
# Environment: BUILD (default ./build, built already; or PERFWATCHD, the binary), SAMPLES (86400), INTERVAL_MS (10), CYCLE_S
# (10: incident 4 s of every 10), OUT (results dir). Only 127.0.0.1; every process started here is
# stopped by the EXIT trap, and the scratch directory removed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SAMPLES=${SAMPLES:-86400}
INTERVAL_MS=${INTERVAL_MS:-10}
CYCLE_S=${CYCLE_S:-10}
OUT=${OUT:-/tmp/perfwatch-soak.$(date +%Y%m%d-%H%M%S)}
PWD_BIN=${PERFWATCHD:-$BUILD/daemon/perfwatchd}
WORK=$(mktemp -d /tmp/perfwatch-soak.XXXXXX)
PIDS=()

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT

[ -x "$PWD_BIN" ] || die "no $PWD_BIN: build first (make)"
mkdir -p "$OUT"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

seconds=$(((SAMPLES * INTERVAL_MS + 999) / 1000))
# The spec: notify_freq_low's host, its baseline and incident phases repeated for the whole run.
python3 - "$ROOT/tests/e2e/notify_freq_low.json" "$WORK/soak.json" "$seconds" "$CYCLE_S" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
total, cycle = int(sys.argv[3]) + 60, float(sys.argv[4])
calm, incident = spec["phases"][0], spec["phases"][1]
phases = [dict(calm, duration=cycle * 0.6, name="calm0")]
for i in range(int(total // cycle) + 1):
    phases.append(dict(incident, duration=cycle * 0.4, name="incident%d" % i))
    phases.append({"name": "calm%d" % (i + 1), "duration": cycle * 0.6, "alerts": [],
                   "cpu": calm["cpu"], "freq": calm["freq"]})
spec["name"] = "soak"
spec["phases"] = phases
json.dump(spec, open(sys.argv[2], "w"))
PY

log "tree driver, webhook receiver"
python3 "$ROOT/tests/scenarios/pwscenario.py" "$WORK/soak.json" "$WORK/tree" --tick 0.02 >"$WORK/events" 2>"$WORK/driver.err" &
PIDS+=($!)
for _ in $(seq 200); do grep -qs '"phase"' "$WORK/events" && break; sleep 0.05; done
RX_PORT=$(free_port)
python3 "$ROOT/tests/integration/webhook_receiver.py" --port "$RX_PORT" --log "$WORK/rx.log.jsonl" \
	--attempts "$WORK/rx.attempts.jsonl" --control "$WORK/rx.control" 2>"$WORK/rx.err" &
PIDS+=($!)

PORT=$(free_port)
URL="http://127.0.0.1:$PORT"
log "perfwatchd at ${INTERVAL_MS}ms for $SAMPLES samples (${seconds} s)"
"$PWD_BIN" --config /dev/null --listen "127.0.0.1:$PORT" --procfs "$WORK/tree/proc" --sysfs "$WORK/tree/sys" \
	--interval "${INTERVAL_MS}ms" --history "$((3600 * INTERVAL_MS))ms" --alert-for 500ms --webhook "http://127.0.0.1:$RX_PORT/hook" \
	--webhook-repeat-interval 1h --state-dir "$WORK" --state-interval 6s >"$OUT/perfwatchd.log" 2>&1 &
DAEMON=$!
PIDS+=("$DAEMON")
for _ in $(seq 200); do curl -sf -o /dev/null "$URL/healthz" && break; sleep 0.05; done
curl -sf -o /dev/null "$URL/healthz" || die "perfwatchd did not start: $(cat "$OUT/perfwatchd.log")"

# Scrapers and the resource poller: one Python process, keep-alive connections. A Prometheus
# scraping every 15 s of a 1 s day scrapes every 150 ms of this one; a person's /status and /alerts
# every second; the /ui's /history poll every 2 s, and the whole hour every 30 s.
python3 - "$PORT" "$DAEMON" "$SAMPLES" "$INTERVAL_MS" "$OUT/resources.tsv" "$OUT/scrapes.tsv" <<'PY'
import http.client, os, sys, time
port, pid, samples, interval_ms, res_path, scr_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
def get(path, headers={}):
    global conn
    for attempt in (1, 2):
        try:
            conn.request("GET", path, headers=headers)
            r = conn.getresponse()
            return r.status, r.read()
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
    return 0, b""
def metric(body, name):
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return float("nan")
def proc():
    rss = 0
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        if line.startswith("Threads:"):
            threads = int(line.split()[1])
    return rss, len(os.listdir("/proc/%d/fd" % pid)), threads
res = open(res_path, "w")
res.write("elapsed_s\tsamples\tmissed_deadlines\tdetector_missed\trss_kb\tfds\tthreads\n")
counts, errors = {}, {}
start = time.monotonic()
nxt = {"metrics": 0, "status": 0, "alerts": 0, "history": 0, "hour": 0, "poll": 0}
period = {"metrics": 0.15, "status": 1, "alerts": 1, "history": 2, "hour": 30, "poll": 10}
paths = {"metrics": "/metrics", "status": "/status", "alerts": "/alerts",
         "history": "/history?since=-10s", "hour": "/history"}
taken = 0
while taken < samples:
    now = time.monotonic() - start
    for k in sorted(nxt, key=nxt.get):
        if nxt[k] > now:
            continue
        nxt[k] = now + period[k]
        if k == "poll":
            st, body = get("/metrics")
            taken = metric(body, "perfwatch_samples_total")
            rss, fds, threads = proc()
            res.write("%.1f\t%d\t%d\t%d\t%d\t%d\t%d\n" % (now, taken, metric(body, "perfwatch_missed_deadlines_total"),
                      metric(body, "perfwatch_detector_samples_missed_total"), rss, fds, threads))
            res.flush()
            continue
        hdr = {"Accept-Encoding": "gzip"} if k in ("metrics", "hour") else {}
        st, _ = get(paths[k], hdr)
        counts[k] = counts.get(k, 0) + 1
        if st != 200:
            errors[k] = errors.get(k, 0) + 1
    time.sleep(max(0.0, min(nxt.values()) - (time.monotonic() - start)))
with open(scr_path, "w") as f:
    for k in sorted(counts):
        f.write("%s\t%d\t%d\n" % (k, counts[k], errors.get(k, 0)))
PY

elapsed=$(awk 'END { print $1 }' "$OUT/resources.tsv")
curl -s "$URL/metrics" >"$OUT/final.prom"
kill -TERM "$DAEMON"
wait "$DAEMON" || die "perfwatchd exited $?"
sleep 1 # the receiver's last records

python3 - "$OUT" "$WORK/rx.log.jsonl" "$INTERVAL_MS" "$elapsed" <<'PY' | tee "$OUT/report.md"
import json, math, re, sys
out, rxlog, interval_ms, elapsed = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
rows = [l.rstrip("\n").split("\t") for l in open(out + "/resources.tsv")][1:]
rows = [[float(x) for x in r] for r in rows]
def at(samples):
    best = min(rows, key=lambda r: abs(r[1] - samples))
    return best
print("| point | samples | elapsed s | RSS KiB | open fds | threads |")
print("|---|---|---|---|---|---|")
for label, n in (("start", rows[0][1]), ("1 h", 3600), ("6 h", 21600), ("12 h", 43200), ("24 h", 86400)):
    if n > rows[-1][1] + 1000:
        break  # a shorter run
    r = at(n)
    print("| %s | %d | %.0f | %d | %d | %d |" % (label, r[1], r[0], r[4], r[5], r[6]))
after = [r for r in rows if r[1] >= 3600]
if after:
    print("\nafter the first hour: RSS %d..%d KiB, fds %d..%d, threads %d..%d" % (
        min(r[4] for r in after), max(r[4] for r in after), min(r[5] for r in after), max(r[5] for r in after),
        min(r[6] for r in after), max(r[6] for r in after)))
final = open(out + "/final.prom").read()
def m(name):
    mm = re.search(r"^%s(\{[^}]*\})? ([0-9.e+]+)$" % re.escape(name), final, re.M)
    return float(mm.group(2)) if mm else float("nan")
taken, missed, dmissed = m("perfwatch_samples_total"), m("perfwatch_missed_deadlines_total"), m("perfwatch_detector_samples_missed_total")
expected = (taken + missed)
print("\nsamples taken %d, deadlines missed %d (%.3f%%), detector missed %d; taken+missed %d over %.1f s at %d ms" % (
    taken, missed, 100 * missed / expected, dmissed, expected, elapsed, interval_ms))
log = open(out + "/perfwatchd.log").read()
fired = len(re.findall(r"alert CpuFrequencyLow pending -> firing", log))
resolved = len(re.findall(r"alert CpuFrequencyLow firing -> resolved", log))
deliveries = [json.loads(l) for l in open(rxlog)]
kinds = {}
for d in deliveries:
    kinds[d["body"]["status"]] = kinds.get(d["body"]["status"], 0) + 1
print("alerts fired %d, resolved %d; webhooks delivered %s; notifications sent %d, failed %d, dropped %d" % (
    fired, resolved, kinds, m("perfwatch_notifications_sent_total"), m("perfwatch_notifications_failed_total"),
    m("perfwatch_notifications_dropped_total")))
print("scrapes (path, count, non-200):", open(out + "/scrapes.tsv").read().replace("\n", "; "))
PY
log "results in $OUT"
