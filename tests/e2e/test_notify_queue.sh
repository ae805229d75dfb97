#!/usr/bin/env bash
# The queue bound and shutdown. Two receivers share a queue of 3: webhook1 is down (connection
# refused), "hang" accepts the request and never answers. The alert fires (one message each; hang's
# stays in flight), then resolves: hang's resolved message fits, webhook1's does not, and the oldest
# waiting notification (webhook1's firing one; never the one in flight) is dropped, counted in
# /metrics and logged. SIGTERM then stops perfwatchd within 2 s although a request hangs, and the
# queue, the notification in flight included, is kept in the state dir.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/notify_lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"

receiver_mode '{"mode": "hang"}'
receiver_start
mkdir -p "$PW_WORK/state"
cat >"$PW_WORK/perfwatchd.conf" <<CONF
[receiver.hang]
type = webhook
url = $RX_URL/hook
timeout = 60s
CONF
scenario_start 4 1
pw_start perfwatchd --config "$PW_WORK/perfwatchd.conf" "${PW_SCENARIO_FLAGS[@]}" --notify-queue 3 \
	--state-dir "$PW_WORK/state" --webhook "http://127.0.0.1:$(pw_free_port)/hook"
[ "$(pw_metric perfwatch_notification_queue_capacity)" = 3 ] || pw_fail "capacity not exported"
hang='{receiver="hang",type="webhook"}'
metric_at_least "perfwatch_notifications_dropped_total$RX_LABELS" 1 30
[ "$(pw_metric "perfwatch_notifications_dropped_total$hang")" = 0 ] || pw_fail "dropped hang's"
[ "$(pw_metric "perfwatch_notification_queue_length$RX_LABELS")" = 1 ] || pw_fail "webhook1 queue not 1"
[ "$(pw_metric "perfwatch_notification_queue_length$hang")" = 2 ] || pw_fail "hang queue not 2"
grep -q 'firing notification of CpuFrequencyLow for webhook1 dropped: the queue is full' "$PW_WORK/perfwatchd.log" ||
	pw_fail "drop not logged"
[ "$(rx_count attempts)" = 1 ] || pw_fail "want one attempt in flight at the hanging receiver"

start=$(date +%s%N)
pw_stop "$PW_PID"
took_ms=$((($(date +%s%N) - start) / 1000000))
[ "$took_ms" -lt 2000 ] || pw_fail "SIGTERM took $took_ms ms"
jq -e '[.notifications[] | [.receiver, .kind]] == [["hang", "firing"], ["hang", "resolved"], ["webhook1", "resolved"]]' \
	"$PW_WORK/state/notifications" >/dev/null || pw_fail "queue not kept: $(cat "$PW_WORK/state/notifications")"
echo "stopped in $took_ms ms"
echo PASS
