# shellcheck shell=bash
# servers.sh — start real third-party servers on loopback for integration tests, each registered for
# cleanup (PW_PIDS of ../e2e/lib.sh, which must be sourced first) and waited for by polling.
#
#   start_perfwatchd NAME PORT ARGS...     perfwatchd on 127.0.0.1:PORT (log $PW_WORK/NAME.log)
#   start_webhook_receiver PORT FILE       records each POST as a JSON line in FILE
#   start_alertmanager PORT CONFIG         Alertmanager, storage in $PW_WORK, no cluster gossip
#   start_prometheus PORT CONFIG [ARGS...] Prometheus, TSDB in $PW_WORK
#   prom_query URL PROMQL                  the query API's .data.result (JSON), "" on error
#   prom_value URL PROMQL                  the first result's value, "" when there is none
#   prom_expect URL PROMQL VALUE           poll (30 s) until PROMQL gives VALUE, else fail
#   am_get URL PATH                        GET an Alertmanager API path (e.g. /api/v2/alerts)
#
# Pick ports with pw_free_port (never fixed ones) before writing the configs that name them. Each
# start_* waits until the server answers (generous deadlines: a loaded 2-CPU CI machine) and fails the
# test with the server's log if it exits or does not come up.

# _pw_wait_http NAME PID URL SECONDS LOG: until URL answers 200, or fail with LOG.
_pw_wait_http() {
	local name=$1 pid=$2 url=$3 seconds=$4 log=$5
	# shellcheck disable=SC2317 # called through pw_wait_for
	_pw_http_ok() {
		kill -0 "$pid" 2>/dev/null || pw_fail "$name exited: $(tail -20 "$log")"
		[ "$(curl -s -o /dev/null -w '%{http_code}' "$url")" = 200 ]
	}
	pw_wait_for "$seconds" "$name at $url" _pw_http_ok || pw_fail "$name did not come up: $(tail -20 "$log")"
}

start_perfwatchd() {
	local name=$1 port=$2
	shift 2
	"$PERFWATCHD" --config /dev/null --listen "127.0.0.1:$port" "$@" >"$PW_WORK/$name.log" 2>&1 &
	PW_PIDS+=("$!")
	_pw_wait_http "perfwatchd $name" "$!" "http://127.0.0.1:$port/healthz" 30 "$PW_WORK/$name.log"
}

start_webhook_receiver() {
	local port=$1 file=$2
	python3 "$PW_TESTS/integration/webhook_receiver.py" --port "$port" --log "$file" \
		--attempts "$file.attempts" --control "$file.control" >"$PW_WORK/receiver.$port.log" 2>&1 &
	PW_PIDS+=("$!")
	_pw_wait_http "webhook receiver" "$!" "http://127.0.0.1:$port/-/healthy" 30 "$PW_WORK/receiver.$port.log"
}

start_alertmanager() {
	local port=$1 config=$2 am
	am=$(command -v prometheus-alertmanager || command -v alertmanager) ||
		pw_skip "Alertmanager not installed (apt-get install prometheus-alertmanager)"
	# --cluster.listen-address= turns gossip off: no port 9094, no peers to wait for.
	"$am" --config.file="$config" --storage.path="$PW_WORK/alertmanager.$port" \
		--web.listen-address="127.0.0.1:$port" --cluster.listen-address= \
		--log.level=warn >"$PW_WORK/alertmanager.$port.log" 2>&1 &
	PW_PIDS+=("$!")
	_pw_wait_http "alertmanager" "$!" "http://127.0.0.1:$port/-/ready" 60 "$PW_WORK/alertmanager.$port.log"
}

start_prometheus() {
	local port=$1 config=$2
	shift 2
	command -v prometheus >/dev/null || pw_skip "prometheus not installed (apt-get install prometheus)"
	prometheus --config.file="$config" --storage.tsdb.path="$PW_WORK/prometheus.$port" \
		--web.listen-address="127.0.0.1:$port" --log.level=warn "$@" >"$PW_WORK/prometheus.$port.log" 2>&1 &
	PW_PIDS+=("$!")
	_pw_wait_http "prometheus" "$!" "http://127.0.0.1:$port/-/ready" 90 "$PW_WORK/prometheus.$port.log"
}

prom_query() {
	curl -s --max-time 10 --data-urlencode "query=$2" "$1/api/v1/query" |
		jq -c 'if .status == "success" then .data.result else error(.error) end' 2>/dev/null || true
}

prom_value() {
	prom_query "$1" "$2" | jq -r '.[0].value[1] // empty' 2>/dev/null || true
}

prom_expect() {
	local url=$1 promql=$2 want=$3 got
	# shellcheck disable=SC2317 # called through pw_wait_for
	_prom_match() {
		got=$(prom_value "$url" "$promql")
		[ "$got" = "$want" ]
	}
	pw_wait_for 30 "$promql == $want" _prom_match || pw_fail "$promql = '$got', want '$want'"
}

am_get() {
	curl -s --max-time 10 "$1$2"
}
