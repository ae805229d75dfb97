#!/usr/bin/env bash
# Undelivered notifications survive a crash: with the receiver down, the alert fires and resolves,
# both messages wait in the queue (saved in --state-dir as it changes, at most once a second: so
# polled for, and the writes counted); perfwatchd is killed with SIGKILL and started again with the
# same state dir and the receiver up: both arrive, exactly once, in order, byte for byte as first
# rendered (the first run's instance and times).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/notify_lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"

RX_PORT=$(pw_free_port)
mkdir -p "$PW_WORK/state"
scenario_start 4 1
pw_start first "${PW_SCENARIO_FLAGS[@]}" --state-dir "$PW_WORK/state" --instance first-run \
	--webhook "http://127.0.0.1:$RX_PORT/hook"
metric_at_least "perfwatch_notification_queue_length$RX_LABELS" 2 30
_saved() { jq -e '[.notifications[].kind] == ["firing", "resolved"]' "$PW_WORK/state/notifications" >/dev/null 2>&1; }
pw_wait_for 5 "both in the queue file" _saved || pw_fail "queue file: $(cat "$PW_WORK/state/notifications")"
metric_at_least perfwatch_notification_queue_saves_total 2 5
kill -KILL "$PW_PID"
wait "$PW_PID" 2>/dev/null || true

receiver_start "$RX_PORT"
pw_start second "${PW_SCENARIO_FLAGS[@]}" --state-dir "$PW_WORK/state" --instance second-run \
	--webhook "http://127.0.0.1:$RX_PORT/hook"
metric_at_least "perfwatch_notifications_sent_total$RX_LABELS" 2 20
grep -q '2 undelivered notifications restored' "$PW_WORK/second.log" || pw_fail "restore not logged"
pw_stop "$PW_PID"

log="$PW_WORK/rx.log.jsonl"
[ "$(rx_count log)" = 2 ] || pw_fail "want 2 deliveries, got: $(cat "$log")"
[ "$(jq -r .body.status "$log" | paste -sd,)" = firing,resolved ] || pw_fail "order: $(jq -r .body.status "$log")"
[ "$(rx_count log '.body.commonLabels.instance == "first-run" and .body.alerts[0].labels.alertname == "CpuFrequencyLow"')" = 2 ] ||
	pw_fail "not the first run's messages: $(cat "$log")"
jq -e '.notifications == []' "$PW_WORK/state/notifications" >/dev/null || pw_fail "queue not emptied on disk"
echo PASS
