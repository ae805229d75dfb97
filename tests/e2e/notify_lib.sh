# notify_lib.sh — for the alert delivery tests, sourced after lib.sh: the Python webhook receiver
# (tests/integration/webhook_receiver.py), a live tree on which CpuFrequencyLow fires a few seconds
# after the start and resolves a few seconds later (notify_freq_low.json: that rule needs no
# baseline, so no warmup; CPUs at half their maximum, so it cannot flap), and polls on /metrics and
# on the receiver's records.

PW_RECEIVER_PY="$PW_TESTS/integration/webhook_receiver.py"
PW_SCENARIO_PY="$PW_TESTS/scenarios/pwscenario.py"

# receiver_start [PORT [RECEIVER-ARGS...]]: start the receiver on PORT (default: a free one, kept in
# RX_PORT) recording into $PW_WORK/rx.{log,attempts}.jsonl, controlled by $PW_WORK/rx.control; waits
# until it answers. With --tls-cert/--tls-key among the arguments it speaks HTTPS (RX_URL follows).
receiver_start() {
	RX_PORT=${1:-${RX_PORT:-$(pw_free_port)}}
	shift || true
	RX_URL="http://127.0.0.1:$RX_PORT"
	[[ " $* " != *" --tls-cert "* ]] || RX_URL="https://127.0.0.1:$RX_PORT"
	python3 "$PW_RECEIVER_PY" --port "$RX_PORT" --log "$PW_WORK/rx.log.jsonl" \
		--attempts "$PW_WORK/rx.attempts.jsonl" --control "$PW_WORK/rx.control" "$@" 2>>"$PW_WORK/rx.err" &
	RX_PID=$!
	PW_PIDS+=("$RX_PID")
	_rx_up() { [ "$(curl -sk -o /dev/null -w '%{http_code}' "$RX_URL/-/healthy")" = 200 ]; }
	pw_wait_for 10 "webhook receiver" _rx_up || pw_fail "receiver did not start: $(cat "$PW_WORK/rx.err")"
}

# receiver_mode JSON: what the receiver answers from now on ({"mode": "error", "status": 500} ...).
receiver_mode() {
	printf '%s\n' "$1" >"$PW_WORK/rx.control.tmp"
	mv "$PW_WORK/rx.control.tmp" "$PW_WORK/rx.control"
}

# rx_count FILE [JQ-FILTER]: how many records of the receiver's FILE (log or attempts) match.
rx_count() {
	local f="$PW_WORK/rx.$1.jsonl"
	[ -s "$f" ] || { echo 0; return; }
	jq -c "select(${2:-true})" "$f" | wc -l
}

# scenario_start [INCIDENT_S [BASELINE_S]]: the live tree in $PW_WORK/tree; the alert fires about
# BASELINE_S (default 2) + 2 s after the start (1 s pending), and resolves INCIDENT_S (default 4)
# + 3 s later (3 clear intervals).
scenario_start() {
	python3 "$PW_SCENARIO_PY" "$PW_TESTS/e2e/notify_freq_low.json" "$PW_WORK/tree" --tick 0.05 \
		--param baseline="${2:-2}" --param incident="${1:-4}" --param recovery=600 >"$PW_WORK/events" 2>"$PW_WORK/driver.err" &
	PW_PIDS+=("$!")
	pw_wait_for 20 "the first tree" grep -qs '"phase"' "$PW_WORK/events" || pw_fail "$(cat "$PW_WORK/driver.err")"
}

# Flags that make perfwatchd judge the live tree quickly.
PW_SCENARIO_FLAGS=(--procfs "$PW_WORK/tree/proc" --sysfs "$PW_WORK/tree/sys" --interval 1s --alert-for 1s)

# metric_at_least SERIES N: poll until /metrics shows SERIES >= N (20 s).
metric_at_least() {
	_ge() { local v; v=$(pw_metric "$1"); [ -n "$v" ] && awk -v v="$v" -v n="$2" 'BEGIN { exit !(v >= n) }'; }
	pw_wait_for "${3:-20}" "$1 >= $2" _ge "$1" "$2" || pw_fail "$1 = '$(pw_metric "$1")', want >= $2"
}

# Series names of the default webhook receiver.
RX_LABELS='{receiver="webhook1",type="webhook"}'

# On failure, show what the daemons logged and the phases the tree went through.
pw_fail() {
	echo "FAIL: $*" >&2
	for f in "$PW_WORK"/*.log "$PW_WORK/events"; do
		[ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
	done
	exit 1
}
