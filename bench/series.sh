#!/usr/bin/env bash
# series.sh — how many series one perfwatchd host costs, and what a scrape of it costs, as a function
# of its CPUs and interrupt lines (docs/scaling.md).
#
# For each size CPUSxLINES, bench/make_big_tree.py writes a synthetic proc/ + sys/ tree (with
# cpufreq); perfwatchd runs on it (--interval 1s), without and with --interrupts-per-cpu, and the
# script reads /metrics: series (non-comment lines) split into constant, per-CPU, per-line and
# per-line-and-CPU series (by their cpu= and irq= labels), body bytes, and bench/scrape's latency
# over SCRAPES scrapes the way Prometheus asks (keep-alive, gzip, OpenMetrics) and as plain text over
# a new connection each, plus what `gzip -1` makes of the plain body.
#
#   bench/series.sh                       # all sizes, ~3 min on 2 vCPUs
#   SIZES="2x50 256x1000" SCRAPES=20 bench/series.sh
#
# Prints a TSV table (also saved as $OUT/series.tsv; OUT defaults to /tmp/perfwatch-series.DATE).
# Needs build/daemon/perfwatchd and build/bench/scrape (cmake --build build), curl, python3.
# Listens on 127.0.0.1 only; every process it starts is stopped by its EXIT trap.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$ROOT/build}" "${SCRAPES:=50}" "${OUT:=/tmp/perfwatch-series.$(date +%Y%m%d-%H%M%S)}"
: "${SIZES:=2x50 2x250 2x1000 16x50 16x250 16x1000 64x50 64x250 64x1000 256x50 256x250 256x1000}"
PERFWATCHD="$BUILD/daemon/perfwatchd"
SCRAPE="$BUILD/bench/scrape"
if [ ! -x "$PERFWATCHD" ] || [ ! -x "$SCRAPE" ]; then
	echo "build first: cmake --build $BUILD" >&2
	exit 2
fi
mkdir -p "$OUT"

pid=""
cleanup() { [ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; } || true; }
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_samples URL N: until perfwatch_samples_total >= N (30 s at most).
wait_samples() {
	local n
	for _ in $(seq 300); do
		n=$(curl -s "$1/metrics" 2>/dev/null | awk '$1 == "perfwatch_samples_total" { print $2 }') || true
		[ "${n:-0}" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "perfwatchd at $1 did not take $2 samples" >&2
	return 1
}

# classify BODY_FILE: "total constant per_cpu per_line per_line_cpu" series counts.
classify() {
	awk '!/^#/ && NF {
		t++; c = ($0 ~ /[{,]cpu="/); l = ($0 ~ /[{,]irq="/)
		if (c && l) lc++; else if (c) pc++; else if (l) pl++; else k++
	} END { printf "%d %d %d %d %d\n", t, k, pc, pl, lc }' "$1"
}

# field KEY LINE: the value of KEY=... in bench/scrape's RESULT line.
field() { tr ' ' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k { print $2 }'; }

printf 'cpus\tlines\tper_cpu_irqs\tseries\tconstant\tper_cpu\tper_line\tper_line_cpu\ttext_bytes\tprom_bytes\tprom_gzip\tprom_p50_ms\tplain_p50_ms\tgzip1_bytes\tsample_ms\n' |
	tee "$OUT/series.tsv"
for size in $SIZES; do
	cpus=${size%x*} lines=${size#*x}
	tree="$OUT/tree-$size"
	[ -d "$tree" ] || python3 "$ROOT/bench/make_big_tree.py" --cpus "$cpus" --lines "$lines" --cpufreq "$tree" >/dev/null
	for extra in "" --interrupts-per-cpu; do
		port=$(free_port)
		url="http://127.0.0.1:$port"
		# shellcheck disable=SC2086
		"$PERFWATCHD" --config /dev/null --listen "127.0.0.1:$port" --procfs "$tree/proc" --sysfs "$tree/sys" \
			--interval 1s $extra >"$OUT/perfwatchd-$size$extra.log" 2>&1 &
		pid=$!
		wait_samples "$url" 3
		body="$OUT/metrics-$size$extra.txt"
		curl -s "$url/metrics" >"$body"
		read -r total constant per_cpu per_line per_line_cpu < <(classify "$body")
		prom=$("$SCRAPE" -n "$SCRAPES" --warmup 2 --prometheus --quiet "127.0.0.1:$port" | grep '^RESULT')
		plain=$("$SCRAPE" -n "$SCRAPES" --warmup 2 --quiet "127.0.0.1:$port" | grep '^RESULT')
		prom_body=$(curl -s -H 'Accept: application/openmetrics-text;version=1.0.0' "$url/metrics" | wc -c)
		gzip1=$(gzip -1 -c "$body" | wc -c)
		sample_ms=$(curl -s "$url/metrics" | awk '
			$1 == "perfwatch_sample_duration_seconds_total" { d = $2 } $1 == "perfwatch_samples_total" { n = $2 }
			END { printf "%.2f", 1000 * d / n }')
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t%s\n' "$cpus" "$lines" \
			"$([ -n "$extra" ] && echo yes || echo no)" "$total" "$constant" "$per_cpu" "$per_line" "$per_line_cpu" \
			"$(wc -c <"$body")" "$prom_body" "$(field bytes "$prom")" \
			"$(awk -v u="$(field p50_us "$prom")" 'BEGIN { print u / 1000 }')" \
			"$(awk -v u="$(field p50_us "$plain")" 'BEGIN { print u / 1000 }')" \
			"$gzip1" "$sample_ms" | tee -a "$OUT/series.tsv"
		kill "$pid"
		wait "$pid" 2>/dev/null || true
		pid=""
	done
done
echo "saved in $OUT" >&2
