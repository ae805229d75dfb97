#!/usr/bin/env bash
# bench/netdata.sh — perfwatchd's history and page beside netdata's, on this host, in one run. Not a
# test: ctest never runs it. See docs/performance.md section G for the figures and the method.
#
# Both daemons watch this host's /proc and /sys at 1 s for the same COLLECT_S seconds, each on a
# free 127.0.0.1 port (netdata with a throw-away config in a temp dir: RAM database of 4096 points,
# no cloud (Debian builds it without), no registry, no anonymous statistics (DO_NOT_TRACK and the
# opt-out file), no health, no statsd, no ML, no external plugins; the proc plugin reads only
# /proc/stat, /proc/interrupts, /proc/softirqs, /proc/meminfo, /proc/vmstat, /proc/pressure and
# /proc/loadavg, what perfwatchd reads). Then, side by side:
#   - VmRSS and RssAnon of each (netdata: the daemon and its spawn server);
#   - the latency of the whole collected window of a comparable chart, median of REPS fetches
#     (curl, new connection each, identity and gzip): netdata /api/v1/data?chart=system.cpu vs
#     perfwatchd /history?signals=<the host CPU mode shares>; and per CPU (netdata one request per
#     cpu.cpuN chart, perfwatchd one /history for all CPUs);
#   - the dashboard's page weight: every request headless Chromium made for netdata's / (from
#     netdata's access log) vs perfwatchd's /ui and what it fetches; and first contentful paint of
#     both, from a Chromium startup trace (median of REPS loads).
# Every process started here is stopped by PID in the EXIT trap, and the temp dir removed.
#
# Environment: BUILD (default ./build), COLLECT_S (default 600), REPS (default 7), OUT (report dir).
# Needs netdata (contrib/install-deps.sh bench), curl, python3; chromium for the page part.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
COLLECT_S=${COLLECT_S:-600}
REPS=${REPS:-7}
OUT=${OUT:-/tmp/perfwatch-netdata.$(date +%Y%m%d-%H%M%S)}
WORK=$(mktemp -d /tmp/perfwatch-netdata-work.XXXXXX)
PIDS=()

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

cleanup() {
	local pid
	# netdata's spawn server is its child: stop the children we saw, then the daemons.
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

wait_http() { # wait_http PID URL
	for _ in $(seq 300); do
		kill -0 "$1" 2>/dev/null || die "process $1 exited (logs in $WORK)"
		[ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$2")" = 200 ] && return 0
		sleep 0.1
	done
	die "$2 did not answer"
}

command -v netdata >/dev/null || die "netdata is not installed (contrib/install-deps.sh bench)"
[ -x "$BUILD/daemon/perfwatchd" ] || die "no $BUILD/daemon/perfwatchd (make build)"
mkdir -p "$OUT" "$WORK"/nd/{etc,cache,lib,log,run}

# ---- netdata, with its config in $WORK/nd ----
ND_PORT=$(free_port)
ND=$WORK/nd
touch "$ND/etc/.opt-out-from-anonymous-statistics"
user=$(id -un)
cat >"$ND/etc/netdata.conf" <<EOF
[global]
	run as user = $user
	hostname = bench
[db]
	mode = ram
	retention = 4096
	update every = 1
	enable replication = no
[directories]
	config = $ND/etc
	cache = $ND/cache
	lib = $ND/lib
	log = $ND/log
	lock = $ND/run
	home = $ND/lib
	registry = $ND/lib/registry
	health config = $ND/etc/health.d
[logs]
	debug = none
	error = $ND/log/error.log
	access = $ND/log/access.log
	health = none
[web]
	bind to = 127.0.0.1:$ND_PORT
	allow connections from = localhost
	allow dashboard from = localhost
[registry]
	enabled = no
[health]
	enabled = no
[ml]
	enabled = no
[statsd]
	enabled = no
[plugins]
	enable running new plugins = no
	check for new plugins every = 3600
	proc = yes
	netdata monitoring = no
	apps = no
	python.d = no
	charts.d = no
	go.d = no
	ebpf = no
	cgroups = no
	tc = no
	diskspace = no
	idlejitter = no
	slabinfo = no
	perf = no
	nfacct = no
	cups = no
	fping = no
	ioping = no
	timex = no
	checks = no
	statsd = no
[plugin:proc]
	/proc/stat = yes
	/proc/interrupts = yes
	/proc/softirqs = yes
	/proc/meminfo = yes
	/proc/vmstat = yes
	/proc/pressure = yes
	/proc/loadavg = yes
	/proc/uptime = no
	/proc/net/dev = no
	/proc/pagetypeinfo = no
	/proc/sys/kernel/random/entropy_avail = no
	/sys/kernel/mm/ksm = no
	/sys/block/zram = no
	/sys/devices/system/edac/mc = no
	/sys/devices/system/node = no
	/proc/net/wireless = no
	/proc/net/sockstat = no
	/proc/net/sockstat6 = no
	/proc/net/netstat = no
	/proc/net/sctp/snmp = no
	/proc/net/softnet_stat = no
	/proc/net/ip_vs/stats = no
	/sys/class/infiniband = no
	/proc/net/stat/conntrack = no
	/proc/net/stat/synproxy = no
	/proc/diskstats = no
	/proc/mdstat = no
	/proc/net/rpc/nfsd = no
	/proc/net/rpc/nfs = no
	/proc/spl/kstat/zfs/arcstats = no
	/proc/spl/kstat/zfs/pool/state = no
	/sys/fs/btrfs = no
	ipc = no
	/sys/class/power_supply = no
EOF
log "netdata on 127.0.0.1:$ND_PORT, config in $ND"
DO_NOT_TRACK=1 netdata -D -c "$ND/etc/netdata.conf" >"$WORK/netdata.out" 2>&1 &
ND_PID=$!
PIDS+=("$ND_PID")
wait_http "$ND_PID" "http://127.0.0.1:$ND_PORT/api/v1/info"

# ---- perfwatchd beside it ----
PW_PORT=$(free_port)
"$BUILD/daemon/perfwatchd" --listen "127.0.0.1:$PW_PORT" --log-level warning >"$WORK/perfwatchd.log" 2>&1 &
PW_PID=$!
PIDS=("$PW_PID" "${PIDS[@]}")
wait_http "$PW_PID" "http://127.0.0.1:$PW_PORT/healthz"
ND_URL=http://127.0.0.1:$ND_PORT PW_URL=http://127.0.0.1:$PW_PORT
# netdata's children (the spawn server) are stopped before it.
for c in $(cat /proc/"$ND_PID"/task/*/children 2>/dev/null); do PIDS=("$c" "${PIDS[@]}"); done

log "both collecting for $COLLECT_S s"
sleep "$COLLECT_S"

ncpu=$(getconf _NPROCESSORS_ONLN)
mem() { # mem PID...: "VmRSS_KiB RssAnon_KiB" summed
	local p r=0 a=0
	for p in "$@"; do
		r=$((r + $(awk '/^VmRSS:/ { print $2 }' /proc/"$p"/status)))
		a=$((a + $(awk '/^RssAnon:/ { print $2 }' /proc/"$p"/status)))
	done
	echo "$r $a"
}
# median_ms URL [curl args...]: median time_total of REPS fetches, and the body size of the last.
median_ms() {
	local url=$1
	shift
	for _ in $(seq "$REPS"); do curl -s -o /dev/null -w '%{time_total} %{size_download}\n' "$@" "$url"; done |
		sort -n | awk '{ t[NR] = $1; s = $2 } END { printf "%.1f ms, %d B", t[int((NR + 1) / 2)] * 1000, s }'
}
# per_cpu_ms ARGS: netdata's per-CPU charts, one request each; the median of REPS sums.
per_cpu_ms() {
	for _ in $(seq "$REPS"); do
		tot=0 size=0
		for ((c = 0; c < ncpu; c++)); do
			read -r t s < <(curl -s -o /dev/null -w '%{time_total} %{size_download}\n' "$@" \
				"$ND_URL/api/v1/data?chart=cpu.cpu$c&after=-$W&format=json")
			tot=$(echo "$tot + $t" | bc -l) size=$((size + s))
		done
		echo "$tot $size"
	done | sort -n | awk '{ t[NR] = $1; s = $2 } END { printf "%.1f ms, %d B", t[int((NR + 1) / 2)] * 1000, s }'
}

# The window both have collected (netdata answers -3600 with the whole span, unfilled rows included).
W=$COLLECT_S
CPU_SIG=cpu_user_ratio,cpu_system_ratio,cpu_iowait_ratio,cpu_hardirq_ratio,cpu_softirq_ratio,cpu_steal_ratio,cpu_idle_ratio
PCPU_SIG=percpu_user_ratio,percpu_system_ratio,percpu_iowait_ratio,percpu_irq_ratio,percpu_busy_ratio
nd_rows() { curl -s "$ND_URL/api/v1/data?chart=system.cpu&after=$1&format=json" |
	python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; print(len(d), "rows,", sum(any(v for v in r[1:]) for r in d), "with data")'; }
nd_points="-$W: $(nd_rows "-$W"); -3600: $(nd_rows -3600)"
pw_points=$(curl -s "$PW_URL/history?since=-${W}s&signals=cpu_user_ratio" | python3 -c 'import json,sys; print(json.load(sys.stdin)["points"])')

R=$OUT/report.md
{
	echo "# netdata beside perfwatchd, $(date -u +%FT%TZ), $(uname -r), $ncpu CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "$(netdata -v 2>&1 | head -1); perfwatchd $("$BUILD/daemon/perfwatchd" --version | head -1); collected $COLLECT_S s at 1 s; $REPS fetches each, median"
	echo "points in the window: netdata system.cpu $nd_points, perfwatchd $pw_points"
	echo
	echo "| | netdata | perfwatchd |"
	echo "|---|---|---|"
	read -r nr na < <(mem "$ND_PID" $(cat /proc/"$ND_PID"/task/*/children 2>/dev/null))
	read -r pr pa < <(mem "$PW_PID")
	echo "| RSS / anonymous, before queries (KiB) | $nr / $na | $pr / $pa |"
	echo "| host CPU modes, whole window, identity | $(median_ms "$ND_URL/api/v1/data?chart=system.cpu&after=-$W&format=json") | $(median_ms "$PW_URL/history?since=-${W}s&signals=$CPU_SIG") |"
	echo "| host CPU modes, whole window, gzip | $(median_ms "$ND_URL/api/v1/data?chart=system.cpu&after=-$W&format=json" -H 'Accept-Encoding: gzip') | $(median_ms "$PW_URL/history?since=-${W}s&signals=$CPU_SIG" -H 'Accept-Encoding: gzip') |"
	echo "| host CPU modes, as asked: after=-3600 / since=-1h, identity | $(median_ms "$ND_URL/api/v1/data?chart=system.cpu&after=-3600&format=json") | $(median_ms "$PW_URL/history?since=-1h&signals=$CPU_SIG") |"
	echo "| per-CPU modes, whole window, identity ($ncpu CPUs; netdata: $ncpu requests) | $(per_cpu_ms) | $(median_ms "$PW_URL/history?since=-${W}s&signals=$PCPU_SIG") |"
	echo "| everything, whole window, identity (perfwatchd: default /history) | n/a (one chart per request) | $(median_ms "$PW_URL/history?since=-${W}s") |"
	read -r nr na < <(mem "$ND_PID" $(cat /proc/"$ND_PID"/task/*/children 2>/dev/null))
	read -r pr pa < <(mem "$PW_PID")
	echo "| RSS / anonymous, after queries (KiB) | $nr / $na | $pr / $pa |"
} >"$R"

# ---- the dashboards in headless Chromium ----
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then
	# chrome URL TRACE: one load with a fresh profile, a startup trace for its paint events, the DOM
	# on stdout. Names other than 127.0.0.1 do not resolve: neither page may reach out.
	chrome() {
		local profile
		profile=$(mktemp -d "$WORK/chrome.XXXXXX")
		timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
			--disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
			--window-size=1300,1900 --virtual-time-budget=8000 \
			--trace-startup=loading,devtools.timeline,blink.user_timing --trace-startup-file="$2" \
			--trace-startup-format=json --trace-startup-duration=8 \
			--host-resolver-rules='MAP * ~NOTFOUND, EXCLUDE 127.0.0.1' --dump-dom "$1" 2>>"$WORK/chrome.log" || true
		rm -rf "$profile"
	}
	paint() { # paint TRACE: "FCP LCP" in ms from the http navigation's start (LCP: last candidate)
		python3 - "$1" <<'PY'
import json, sys
try:
    ev = json.load(open(sys.argv[1]))
except Exception:
    print("? ?"); sys.exit()
ev = ev.get("traceEvents", ev) if isinstance(ev, dict) else ev
data = lambda e: (e.get("args") or {}).get("data") or {}
nav = {data(e)["navigationId"]: e["ts"] for e in ev if e.get("name") == "navigationStart"
       and data(e).get("documentLoaderURL", "").startswith("http")}
def since(name):
    t = [e["ts"] - nav[data(e).get("navigationId")] for e in ev
         if e.get("name") == name and data(e).get("navigationId") in nav]
    return "%.0f" % (max(t) / 1000) if t else "?"
print(since("firstContentfulPaint"), since("largestContentfulPaint::Candidate"))
PY
	}
	: >"$ND/log/access.log"
	nd_fcp=() pw_fcp=() nd_lcp=() pw_lcp=() pw_drawn=()
	for i in $(seq "$REPS"); do
		chrome "$ND_URL/" "$WORK/nd-$i.json" >/dev/null
		read -r f l < <(paint "$WORK/nd-$i.json")
		nd_fcp+=("$f") nd_lcp+=("$l")
		chrome "$PW_URL/ui" "$WORK/pw-$i.json" >"$WORK/pw-$i.html"
		read -r f l < <(paint "$WORK/pw-$i.json")
		pw_fcp+=("$f") pw_lcp+=("$l")
		pw_drawn+=("$(grep -o 'data-first-paint-ms="[0-9]*"' "$WORK/pw-$i.html" | grep -o '[0-9]*' || echo '?')")
	done
	cp "$ND/log/access.log" "$OUT/netdata-access.log"
	med() { printf '%s\n' "$@" | grep -v '?' | sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] " ms (" NR " loads)" : "?" }'; }
	# netdata's access log: one line per request with "sent: N bytes, compressed C bytes" (or
	# similar); the first load's requests are the page weight.
	nd_weight=$(python3 - "$OUT/netdata-access.log" <<'PY'
import re, sys
# One load: the requests from the first "/" to the next. Files (FILECOPY) are the page and its
# assets; API calls (DATA) are the charts' data, counted apart.
files = [0, 0, 0]; data = [0, 0, 0]; loads = 0
for l in open(sys.argv[1]):
    m = re.search(r"'(FILECOPY|DATA)' \(sent/all = (\d+)/(\d+) bytes.* (\d+) '(.*)'$", l.rstrip())
    if not m:
        continue
    if m.group(5) == "/":
        loads += 1
    if loads != 1:
        continue
    acc = files if m.group(1) == "FILECOPY" else data
    acc[0] += 1; acc[1] += int(m.group(3)); acc[2] += int(m.group(2))
print("%d files, %.0f KB (%.0f KB gzip); then %d API calls, %.0f KB (%.0f KB gzip)" %
      (files[0], files[1] / 1000, files[2] / 1000, data[0], data[1] / 1000, data[2] / 1000))
PY
)
	ui=$(curl -s -o /dev/null -w '%{size_download}' "$PW_URL/ui")
	uigz=$(curl -s -o /dev/null -w '%{size_download}' -H 'Accept-Encoding: gzip' "$PW_URL/ui")
	hist=$(curl -s -o /dev/null -w '%{size_download}' "$PW_URL/history")
	histgz=$(curl -s -o /dev/null -w '%{size_download}' -H 'Accept-Encoding: gzip' "$PW_URL/history")
	{
		echo "| dashboard page weight (first load) | $nd_weight | 1 file, $((ui / 1000)) KB ($((uigz / 1000)) KB gzip); then /history $((hist / 1000)) KB ($((histgz / 1000)) KB gzip) and /status |"
		echo "| first contentful paint, headless Chromium | $(med "${nd_fcp[@]}") | $(med "${pw_fcp[@]}") |"
		echo "| largest contentful paint (last candidate) | $(med "${nd_lcp[@]}") | $(med "${pw_lcp[@]}") |"
		echo "| perfwatchd: whole history drawn (the page's own clock) | n/a | $(med "${pw_drawn[@]}") |"
		read -r nr na < <(mem "$ND_PID" $(cat /proc/"$ND_PID"/task/*/children 2>/dev/null))
		read -r pr pa < <(mem "$PW_PID")
		echo "| RSS / anonymous, after the page loads (KiB) | $nr / $na | $pr / $pa |"
	} >>"$R"
	echo "FCP per load: netdata ${nd_fcp[*]}; perfwatchd ${pw_fcp[*]}; perfwatchd drawn: ${pw_drawn[*]}" >>"$R"
fi
cat "$R"
