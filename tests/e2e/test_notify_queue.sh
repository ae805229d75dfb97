#!/usr/bin/env bash
# The queue bound and shutdown: with --notify-queue 1 and the receiver down, the resolved message
# pushes the waiting firing one out; the drop is counted in /metrics and logged. Then, with the
# receiver accepting connections but never answering, SIGTERM still stops perfwatchd within 2 s,
# the notification in flight kept in the state dir.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/notify_lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"

RX_PORT=$(pw_free_port)
mkdir -p "$PW_WORK/state"
scenario_start
pw_start perfwatchd "${PW_SCENARIO_FLAGS[@]}" --notify-queue 1 --state-dir "$PW_WORK/state" \
	--webhook "http://127.0.0.1:$RX_PORT/hook"
[ "$(pw_metric perfwatch_notification_queue_capacity)" = 1 ] || pw_fail "capacity not exported"
metric_at_least "perfwatch_notifications_dropped_total$RX_LABELS" 1 30
[ "$(pw_metric "perfwatch_notification_queue_length$RX_LABELS")" = 1 ] || pw_fail "queue length not 1"
grep -Eq '(firing|resolved) notification of CpuFrequencyLow for webhook1 dropped: the queue is full' "$PW_WORK/perfwatchd.log" ||
	pw_fail "drop not logged: $(cat "$PW_WORK/perfwatchd.log")"

# A receiver that hangs: the attempt is in flight when SIGTERM comes.
receiver_mode '{"mode": "hang"}'
receiver_start "$RX_PORT"
_hanging() { [ "$(rx_count attempts)" -ge 1 ]; }
pw_wait_for 20 "an attempt on the hanging receiver" _hanging || pw_fail "no attempt"
start=$(date +%s%N)
pw_stop "$PW_PID"
took_ms=$((($(date +%s%N) - start) / 1000000))
[ "$took_ms" -lt 2000 ] || pw_fail "SIGTERM took $took_ms ms"
jq -e '(.notifications | length) == 1' "$PW_WORK/state/notifications" >/dev/null ||
	pw_fail "in-flight notification not kept: $(cat "$PW_WORK/state/notifications")"
echo "stopped in $took_ms ms"
echo PASS
