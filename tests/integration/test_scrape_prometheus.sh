#!/usr/bin/env bash
# A real Prometheus server (Debian package prometheus) on loopback scrapes perfwatchd; PromQL through
# its HTTP API returns the fixture's figures, and follows the tree when it is rewritten in place.
source "$(dirname "$0")/../e2e/lib.sh"

command -v prometheus >/dev/null || pw_skip "prometheus not installed (apt-get install prometheus)"
tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"
pw_start perfwatchd --procfs "$tree/proc" --sysfs "$tree/sys" --interval 1s
target="127.0.0.1:$PW_PORT"

prom_port=$(pw_free_port)
prom="http://127.0.0.1:$prom_port"
cat >"$PW_WORK/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: perfwatch
    static_configs:
      - targets: ['$target']
YML
prometheus --config.file="$PW_WORK/prometheus.yml" --storage.tsdb.path="$PW_WORK/tsdb" \
	--web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$PW_WORK/prometheus.log" 2>&1 &
PW_PIDS+=("$!")
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$prom/-/ready")" = 200 ]; }
pw_wait_for 60 "prometheus ready" ready || pw_fail "prometheus did not start: $(cat "$PW_WORK/prometheus.log")"

# query PROMQL: the first result's value, or empty.
query() {
	curl -s --data-urlencode "query=$1" "$prom/api/v1/query" | jq -r '.data.result[0].value[1] // empty'
}
# expect PROMQL VALUE: poll until the query returns VALUE.
expect() {
	local got
	_match() { got=$(query "$1"); [ "$got" = "$2" ]; }
	pw_wait_for 30 "$1 == $2" _match "$1" "$2" || pw_fail "$1 = '$got', want '$2'"
}

expect "up{job=\"perfwatch\",instance=\"$target\"}" 1
expect 'perfwatch_cpu_seconds_total{cpu="0",mode="user"}' 10.01
expect 'perfwatch_interrupts_total{irq="41",device="virtio3-rx"}' 61453
expect 'count(perfwatch_cpu_seconds_total)' 16

# The tree moves on (the next capture); Prometheus sees the new counters.
pw_rewrite "$PW_FIXTURES/kernels/vm-2cpu-idle-2/proc" "$tree/proc" stat interrupts
want=$(awk '/^cpu0 /{ printf "%.2f", $2 / 100 }' "$tree/proc/stat" | sed 's/0*$//; s/\.$//')
expect 'perfwatch_cpu_seconds_total{cpu="0",mode="user"}' "$want"
grown() { [ "$(query 'increase(perfwatch_interrupts_total{irq="41"}[10s]) > 0')" != "" ]; }
pw_wait_for 30 "increase() over the rewrite" grown || pw_fail "Prometheus saw no increase of line 41"
echo PASS
