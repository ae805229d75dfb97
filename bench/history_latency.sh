#!/usr/bin/env bash
# bench/history_latency.sh — how long /history takes to answer, from memory and from disk, and what a
# whole-history request does to a concurrent /metrics scrape. Not a test: ctest never runs it.
# Figures in docs/performance.md ("/history latency").
#
# Cases, each a perfwatchd on 127.0.0.1:
#   mem2, mem16   a full hour in the ring (3600 points: --interval 10ms --history 36s) on the 2- and
#                 16-CPU fixture trees (static counters: values print short)
#   disk16        a day of a busy 16-CPU host on disk (bench/make_store: a seeded random walk, values
#                 with all their digits) and 10 s in the ring: an hour comes from disk
# Queries: the whole history (JSON; gzip; CSV), a live update (?since=-2s), and on disk an hour
# (?since=-1h; hour_again: the same at once, in the buffers the answer before kept for it,
# daemon/warm_buffers.h; hour_idle: the same after 1.5 s without a request, when they are freed) and
# a day per minute (?since=-1d&step=1m).
# With BASE=DIR (another build tree) both builds run side by side and the rounds alternate between
# them, so the machine's noise falls on both: medians and the ratio new/base are printed.
#
# Then "scrape beside history": /metrics latency (sequential scrapes for SCRAPE_S seconds) alone,
# and while another client asks for the whole hour back to back.
#
# Environment: BUILD (default ./build), BASE (optional), ROUNDS (default 9), SCRAPE_S (default 10),
# KEEP (1: keep the temp dir). Needs curl, python3. Every process is stopped by the EXIT trap.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
BASE=${BASE:-}
ROUNDS=${ROUNDS:-9}
SCRAPE_S=${SCRAPE_S:-10}
KEEP=${KEEP:-0}
FIX=$ROOT/tests/fixtures/kernels
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-history-latency.XXXXXX")
PIDS=()
PORT=19300

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

cleanup() {
	trap - EXIT INT TERM HUP
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ "$KEEP" = 1 ] && log "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT INT TERM HUP

[ -x "$BUILD/daemon/perfwatchd" ] && [ -x "$BUILD/bench/make_store" ] ||
	{ log "build first: make build (needs $BUILD/daemon/perfwatchd and bench/make_store)"; exit 1; }
BUILDS=(new)
declare -A BIN=([new]=$BUILD/daemon/perfwatchd)
if [ -n "$BASE" ]; then
	BIN[base]=$BASE/daemon/perfwatchd
	BUILDS=(base new)
fi

declare -A PORT_OF
start() { # label case args...
	local label=$1 case=$2
	shift 2
	PORT=$((PORT + 1))
	"${BIN[$label]}" --listen "127.0.0.1:$PORT" "$@" >"$WORK/$label-$case.log" 2>&1 &
	PIDS+=($!)
	PORT_OF[$label-$case]=$PORT
}

samples() {
	curl -s "http://127.0.0.1:$1/metrics" | awk '/^perfwatch_samples_total /{print int($2)}'
}

log "a day of a 16-CPU host on disk (bench/make_store)"
"$BUILD/bench/make_store" "$WORK/store16" 16 86400 >/dev/null
for label in "${BUILDS[@]}"; do
	cp -a "$WORK/store16" "$WORK/state-$label"
	start "$label" mem2 --procfs "$FIX/vm-2cpu-load-1/proc" --sysfs "$FIX/vm-2cpu-load-1/sys" \
		--interval 10ms --history 36s
	start "$label" mem16 --procfs "$FIX/host-16cpu-load-1/proc" --sysfs "$FIX/host-16cpu-load-1/sys" \
		--interval 10ms --history 36s
	start "$label" disk16 --procfs "$FIX/host-16cpu-load-1/proc" --sysfs "$FIX/host-16cpu-load-1/sys" \
		--history 10s --state-dir "$WORK/state-$label"
done
log "filling the rings (3600 points at 10 ms)"
for key in "${!PORT_OF[@]}"; do
	case $key in *mem*) ;; *) continue ;; esac
	for _ in $(seq 120); do
		n=$(samples "${PORT_OF[$key]}" || true)
		[ "${n:-0}" -ge 3700 ] && break
		sleep 1
	done
	[ "${n:-0}" -ge 3700 ] || { log "$key: only ${n:-0} samples"; exit 1; }
done

QUERIES_MEM=("json|" "gzip|" "csv|format=csv" "live|since=-2s")
QUERIES_DISK=("hour|since=-1h" "hour_again|since=-1h" "hour_idle|since=-1h" "day_1m|since=-1d&step=1m" "live|since=-2s")
: >"$WORK/times"
for round in $(seq "$ROUNDS"); do
	for case in mem2 mem16 disk16; do
		if [ "$case" = disk16 ]; then queries=("${QUERIES_DISK[@]}"); else queries=("${QUERIES_MEM[@]}"); fi
		for q in "${queries[@]}"; do
			name=${q%%|*} args=${q#*|}
			labels=("${BUILDS[@]}")
			# hour_again: each build's right after its own hour (the order turned round)
			[ "$name" = hour_again ] && labels=($(printf '%s\n' "${BUILDS[@]}" | tac))
			for label in "${labels[@]}"; do
				gz=()
				[ "$name" = gzip ] && gz=(--compressed)
				case $name in *_idle) sleep 1.5 ;; esac
				t=$(curl -s "${gz[@]}" -o "$WORK/body" -w '%{time_total} %{size_download}' \
					"http://127.0.0.1:${PORT_OF[$label-$case]}/history?$args")
				echo "$case $name $label $round $t" >>"$WORK/times"
			done
		done
	done
done

log "scrape beside history (${SCRAPE_S} s each)"
scrapes() { # port -> one latency in seconds per line
	local end=$((SECONDS + SCRAPE_S))
	while [ $SECONDS -lt $end ]; do
		curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$1/metrics"
	done
}
for label in "${BUILDS[@]}"; do
	port=${PORT_OF[$label-mem16]}
	scrapes "$port" | sed "s/^/scrape alone $label /" >>"$WORK/scrapes"
	(
		end=$((SECONDS + SCRAPE_S + 1))
		while [ $SECONDS -lt $end ]; do curl -s -o /dev/null "http://127.0.0.1:$port/history"; done
	) &
	hog=$!
	sleep 0.2
	scrapes "$port" | sed "s/^/scrape beside_history $label /" >>"$WORK/scrapes"
	wait "$hog"
done

python3 - "$WORK/times" "$WORK/scrapes" "${BUILDS[@]}" <<'EOF'
import statistics, sys
times, scrapes, builds = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = {}
for line in open(times):
    case, name, label, _, t, size = line.split()
    rows.setdefault((case, name), {}).setdefault(label, []).append((float(t) * 1000, int(size)))
head = "| case | query | " + " | ".join(f"{b} ms (median)" for b in builds) + " | bytes |"
if len(builds) == 2:
    head += " new / base |"
print(head)
print("|" + "---|" * (head.count("|") - 1))
for (case, name), by in rows.items():
    med = {b: statistics.median(t for t, _ in by[b]) for b in builds}
    line = f"| {case} | {name} | " + " | ".join(f"{med[b]:.1f}" for b in builds)
    line += f" | {by[builds[-1]][-1][1]} |"
    if len(builds) == 2:
        line += f" {med['new'] / med['base']:.2f} |"
    print(line)
print()
lat = {}
for line in open(scrapes):
    _, when, label, t = line.split()
    lat.setdefault((when, label), []).append(float(t) * 1000)
print("| /metrics | build | scrapes | median ms | p99 ms | max ms |")
print("|---|---|---|---|---|---|")
for (when, label), v in lat.items():
    v.sort()
    print(f"| {when} | {label} | {len(v)} | {statistics.median(v):.2f} | {v[int(len(v) * 0.99) - 1]:.2f} | {v[-1]:.2f} |")
EOF
