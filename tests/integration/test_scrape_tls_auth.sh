#!/usr/bin/env bash
# A real Prometheus server scrapes perfwatchd over HTTPS with basic auth, as it would a
# node_exporter with a web config: up with the right password, down with a wrong one.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/servers.sh"

command -v prometheus >/dev/null || pw_skip "prometheus not installed (apt-get install prometheus)"
tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"
pki="$PW_WORK/pki"
pw_make_pki "$pki"
conf="$PW_WORK/perfwatchd.conf"
# bcrypt (cost 10) of "correct horse"
printf '[auth]\nuser.prometheus = %s\nprotect = /metrics\n' \
	'$2b$10$lTxXPp15IgmKfjSjRIAnAOIAqMh0sfSbbT9SLo..c0PcqbQPyf7XO' >"$conf"

PW_PORT=$(pw_free_port)
"$PERFWATCHD" --config "$conf" --listen "127.0.0.1:$PW_PORT" --procfs "$tree/proc" --sysfs "$tree/sys" \
	--tls-cert "$pki/server.crt" --tls-key "$pki/server.key" >"$PW_WORK/perfwatchd.log" 2>&1 &
PW_PID=$!
PW_PIDS+=("$PW_PID")
healthy() { [ "$(curl -s --cacert "$pki/ca.crt" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PW_PORT/healthz")" = 200 ]; }
pw_wait_for 20 "perfwatchd over HTTPS" healthy || pw_fail "perfwatchd: $(cat "$PW_WORK/perfwatchd.log")"
target="127.0.0.1:$PW_PORT"

prom_port=$(pw_free_port)
prom="http://127.0.0.1:$prom_port"
cat >"$PW_WORK/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: perfwatch
    scheme: https
    tls_config: {ca_file: '$pki/ca.crt'}
    basic_auth: {username: prometheus, password: 'correct horse'}
    static_configs:
      - targets: ['$target']
  - job_name: wrong-password
    scheme: https
    tls_config: {ca_file: '$pki/ca.crt'}
    basic_auth: {username: prometheus, password: 'battery staple'}
    static_configs:
      - targets: ['$target']
YML
start_prometheus "$prom_port" "$PW_WORK/prometheus.yml"
query() { prom_value "$prom" "$1"; }
expect() { prom_expect "$prom" "$1" "$2"; }
expect "up{job=\"perfwatch\",instance=\"$target\"}" 1
expect 'perfwatch_cpu_seconds_total{cpu="0",mode="user"}' 10.01
expect "up{job=\"wrong-password\",instance=\"$target\"}" 0
# Ten more scrapes of each job: the right password is cached and the wrong one remembered, so
# neither is throttled (a 429 would turn the good job down).
enough_scrapes() { [ "$(query "count_over_time(up{job=\"perfwatch\"}[1m])")" -ge 12 ]; }
pw_wait_for 30 "a dozen scrapes" enough_scrapes || pw_fail "Prometheus did not keep scraping"
expect "min_over_time(up{job=\"perfwatch\"}[1m])" 1
pw_stop "$PW_PID"
echo PASS
