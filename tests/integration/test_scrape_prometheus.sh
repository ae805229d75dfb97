#!/usr/bin/env bash
# A real Prometheus server (Debian package prometheus) on loopback scrapes perfwatchd; PromQL through
# its HTTP API returns the fixture's figures, and follows the tree when it is rewritten in place.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/servers.sh"

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
start_prometheus "$prom_port" "$PW_WORK/prometheus.yml"
query() { prom_value "$prom" "$1"; }
expect() { prom_expect "$prom" "$1" "$2"; }

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
