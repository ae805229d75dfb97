#!/usr/bin/env bash
# prom_load.sh — what a fleet of perfwatchd costs the Prometheus that scrapes it (docs/scaling.md).
#
# One perfwatchd on a synthetic host (bench/make_big_tree.py, SIZE=CPUSxLINES, default 16x250)
# stands in for HOSTS hosts: Prometheus scrapes it as HOSTS targets that differ only by a `host`
# label (the same address, so every target is a full scrape and a full set of series). After
# DURATION seconds, Prometheus' own metrics (self-scrape) give the head series, the samples appended
# per second, the resident memory, the heap in use and the CPU per second; and the scrape durations.
# Run it at two fleet sizes and take the difference to remove Prometheus' fixed cost:
#
#   bench/prom_load.sh                                   # HOSTS="1 200", 16x250, 15 s scrapes, 150 s each
#   HOSTS="1 400" SIZE=2x50 INTERVAL=5s DURATION=120 bench/prom_load.sh
#
# Needs build/daemon/perfwatchd, prometheus, curl, jq, python3. Loopback only; every process it starts
# is stopped by its EXIT trap. Prints one TSV line per fleet size.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$ROOT/build}" "${SIZE:=16x250}" "${HOSTS:=1 200}" "${INTERVAL:=15s}" "${DURATION:=150}"
: "${OUT:=/tmp/perfwatch-promload.$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
wait_ready() {
	local _
	for _ in $(seq 600); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "$1")" = 200 ] && return 0
		sleep 0.1
	done
	echo "$1 never answered" >&2
	return 1
}
# q PROMQL: the first value of an instant query.
q() { curl -s --data-urlencode "query=$1" "$prom/api/v1/query" | jq -r '.data.result[0].value[1] // "nan"'; }

tree="$OUT/tree"
python3 "$ROOT/bench/make_big_tree.py" --cpus "${SIZE%x*}" --lines "${SIZE#*x}" --cpufreq "$tree" >/dev/null
pw_port=$(free_port)
"$BUILD/daemon/perfwatchd" --config /dev/null --listen "127.0.0.1:$pw_port" --procfs "$tree/proc" \
	--sysfs "$tree/sys" >"$OUT/perfwatchd.log" 2>&1 &
pids+=("$!")
wait_ready "http://127.0.0.1:$pw_port/healthz"
series=$(curl -s "http://127.0.0.1:$pw_port/metrics" | grep -vc '^#')

printf 'size\tseries_per_host\thosts\tinterval\thead_series\tsamples_per_s\trss_mib\theap_inuse_mib\tcpu_cores\tscrape_p50_ms\n'
for hosts in $HOSTS; do
	prom_port=$(free_port)
	prom="http://127.0.0.1:$prom_port"
	cfg="$OUT/prometheus-$hosts.yml"
	{
		echo "global: {scrape_interval: $INTERVAL, scrape_timeout: 10s}"
		echo "scrape_configs:"
		echo "  - job_name: prometheus"
		echo "    static_configs: [{targets: ['127.0.0.1:$prom_port']}]"
		echo "  - job_name: perfwatch"
		echo "    static_configs:"
		for i in $(seq "$hosts"); do
			echo "      - {targets: ['127.0.0.1:$pw_port'], labels: {host: h$i}}"
		done
	} >"$cfg"
	prometheus --config.file="$cfg" --storage.tsdb.path="$OUT/tsdb-$hosts" --web.listen-address="127.0.0.1:$prom_port" \
		--log.level=warn >"$OUT/prometheus-$hosts.log" 2>&1 &
	pids+=("$!")
	wait_ready "$prom/-/ready"
	sleep "$DURATION"
	printf '%s\t%s\t%s\t%s\t%s\t%.0f\t%.1f\t%.1f\t%.3f\t%.2f\n' "$SIZE" "$series" "$hosts" "$INTERVAL" \
		"$(q prometheus_tsdb_head_series)" "$(q 'rate(prometheus_tsdb_head_samples_appended_total[1m])')" \
		"$(q 'process_resident_memory_bytes{job="prometheus"} / 2^20')" \
		"$(q 'go_memstats_heap_inuse_bytes{job="prometheus"} / 2^20')" \
		"$(q 'rate(process_cpu_seconds_total{job="prometheus"}[1m])')" \
		"$(q 'quantile(0.5, scrape_duration_seconds{job="perfwatch"}) * 1000')"
	kill "${pids[-1]}"
	wait "${pids[-1]}" 2>/dev/null || true
	unset 'pids[-1]'
done
