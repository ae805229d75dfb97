#!/usr/bin/env bash
# bench/store_cost.sh — what the history store on disk costs: CPU per sample and memory of a
# perfwatchd with --state-dir beside one without, on this host's /proc and /sys. Not a test: ctest
# never runs it. Figures in docs/performance.md ("The store's cost").
#
# Each round starts both daemons together (the order alternating), lets them warm up WARM_S
# seconds, then takes the CPU clock of every thread (schedstat, ns) and the samples taken over RUN_S
# seconds: CPU per sample, whole process and per thread (pw-sampler, pw-detector, pw-writer). The
# two see the same host at the same time, so its noise falls on both; medians over ROUNDS and the
# ratio with/without are printed.
#
# Then the load test: LOAD_SCRAPES sequential /metrics scrapes (bench/scrape, keep-alive, gzip and
# Prometheus' Accept) and LOAD_HISTORY whole-history requests against each, and RssAnon (the
# anonymous memory: heap, rings, stacks) before and after.
#
# Environment: BUILD (default ./build), ROUNDS (5), RUN_S (60), WARM_S (5), INTERVAL (100ms),
# LOAD_SCRAPES (150000), LOAD_HISTORY (200), KEEP (1: keep the temp dir). Every process is stopped
# by the EXIT trap.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ROUNDS=${ROUNDS:-5}
RUN_S=${RUN_S:-60}
WARM_S=${WARM_S:-5}
INTERVAL=${INTERVAL:-100ms}
LOAD_SCRAPES=${LOAD_SCRAPES:-150000}
LOAD_HISTORY=${LOAD_HISTORY:-200}
KEEP=${KEEP:-0}
BIN=$BUILD/daemon/perfwatchd
SCRAPE=$BUILD/bench/scrape
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-store-cost.XXXXXX")
declare -A PID PORT=([plain]=19411 [store]=19412)

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

cleanup() {
	trap - EXIT INT TERM HUP
	for p in "${PID[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ "$KEEP" = 1 ] && log "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT INT TERM HUP

for f in "$BIN" "$SCRAPE"; do
	[ -x "$f" ] || { echo "no $f: cmake --build $BUILD --target perfwatchd scrape" >&2; exit 1; }
done

start() { # NAME [ARGS...]
	local name=$1
	shift
	"$BIN" --config /dev/null --listen "127.0.0.1:${PORT[$name]}" --interval "$INTERVAL" "$@" \
		>"$WORK/$name.log" 2>&1 &
	PID[$name]=$!
}
stop() {
	kill "${PID[$1]}" 2>/dev/null || true
	wait "${PID[$1]}" 2>/dev/null || true
	unset "PID[$1]"
}
ready() {
	local i
	for i in $(seq 100); do
		curl -sf -o /dev/null "http://127.0.0.1:${PORT[$1]}/healthz" && return 0
		sleep 0.1
	done
	echo "$1 did not start: $(cat "$WORK/$1.log")" >&2
	exit 1
}
samples() { curl -sf "http://127.0.0.1:${PORT[$1]}/metrics" | awk '$1 == "perfwatch_samples_total" { print $2 }'; }
# thread_ns PID [COMM]: CPU ns of the process's threads (named COMM only, when given).
thread_ns() {
	local t sum=0
	for t in /proc/"$1"/task/*; do
		[ -z "${2:-}" ] || [ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] || continue
		sum=$((sum + $(cut -d' ' -f1 "$t/schedstat" 2>/dev/null || echo 0)))
	done
	echo "$sum"
}
anon_kb() { awk '$1 == "RssAnon:" { print $2 }' "/proc/$1/status"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

THREADS=(all pw-sampler pw-detector pw-writer)
log "host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds of ${RUN_S}s at $INTERVAL"
for r in $(seq "$ROUNDS"); do
	state="$WORK/state-$r"
	mkdir -m 0700 "$state"
	if [ $((r % 2)) = 1 ]; then order=(plain store); else order=(store plain); fi
	for name in "${order[@]}"; do
		if [ "$name" = store ]; then start store --state-dir "$state"; else start plain; fi
	done
	ready plain
	ready store
	sleep "$WARM_S"
	declare -A c0 s0
	for name in plain store; do
		s0[$name]=$(samples "$name")
		for t in "${THREADS[@]}"; do
			c0[$name:$t]=$(thread_ns "${PID[$name]}" "${t/#all/}")
		done
	done
	sleep "$RUN_S"
	for name in plain store; do
		n=$(($(samples "$name") - s0[$name]))
		for t in "${THREADS[@]}"; do
			c=$(($(thread_ns "${PID[$name]}" "${t/#all/}") - c0[$name:$t]))
			awk -v c="$c" -v n="$n" 'BEGIN { printf "%.1f\n", c / n / 1000 }' >>"$WORK/$name.$t"
		done
	done
	log "round $r: µs per sample, all threads: plain $(tail -1 "$WORK/plain.all"), store $(tail -1 "$WORK/store.all") ($(du -sk "$state/history" | cut -f1) KiB on disk)"
	stop plain
	stop store
done

printf '\nCPU per sample (µs, median of %s rounds of %s s at %s)\n' "$ROUNDS" "$RUN_S" "$INTERVAL"
printf '%-12s %10s %10s %8s\n' thread without with ratio
for t in "${THREADS[@]}"; do
	a=$(median <"$WORK/plain.$t")
	b=$(median <"$WORK/store.$t")
	printf '%-12s %10s %10s %8s\n' "$t" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "-" }')"
done

log "load test: $LOAD_SCRAPES scrapes and $LOAD_HISTORY whole-history requests each"
mkdir -m 0700 "$WORK/state-load"
start plain
start store --state-dir "$WORK/state-load"
ready plain
ready store
sleep "$WARM_S"
declare -A before after
for name in plain store; do before[$name]=$(anon_kb "${PID[$name]}"); done
for name in plain store; do
	"$SCRAPE" --prometheus --quiet -n "$LOAD_SCRAPES" "127.0.0.1:${PORT[$name]}" >"$WORK/$name.scrape" 2>&1 ||
		log "$name: scrapes failed: $(tail -2 "$WORK/$name.scrape")"
	for i in $(seq "$LOAD_HISTORY"); do
		curl -sf -o /dev/null "http://127.0.0.1:${PORT[$name]}/history" || log "$name: /history failed"
	done
done
sleep 2
for name in plain store; do after[$name]=$(anon_kb "${PID[$name]}"); done
printf '\nRssAnon (KiB)      before   after the load\n'
for name in plain store; do
	printf '%-16s %8s %8s\n' "$([ $name = store ] && echo with-store || echo without)" "${before[$name]}" "${after[$name]}"
done
