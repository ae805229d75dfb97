#!/usr/bin/env bash
# Webhook delivery through a receiver that is down, then answers 500, then is slow (within the
# timeout), then is up: the alert's firing and resolved messages each arrive exactly once, in that
# order, in Alertmanager's webhook format v4, with the receiver's bearer token and headers; the
# failures are counted and retried, and the detector never stalls meanwhile. libcurl is loaded only
# by a daemon with receivers (daemon/curl_api.h): one without has none of it mapped.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/notify_lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"

RX_PORT=$(pw_free_port) # reserved now; nobody listens on it yet: the receiver is down
cat >"$PW_WORK/perfwatchd.conf" <<CONF
[receiver.ops]
type = webhook
url = http://127.0.0.1:$RX_PORT/hook
bearer_token = s3cret
header = X-Team: perf
timeout = 5s
CONF
pw_start plain --config /dev/null --interval 100ms
! grep -q libcurl "/proc/$PW_PID/maps" || pw_fail "libcurl loaded without receivers"
pw_stop "$PW_PID"

scenario_start 4 1
pw_start perfwatchd --config "$PW_WORK/perfwatchd.conf" "${PW_SCENARIO_FLAGS[@]}" --instance db1
RX_LABELS='{receiver="ops",type="webhook"}'
grep -q libcurl "/proc/$PW_PID/maps" || pw_fail "libcurl not loaded with a receiver"

# Down: connection refused, twice.
metric_at_least "perfwatch_notifications_failed_total$RX_LABELS" 2 30
# 500: two refusals, seen by the receiver.
receiver_mode '{"mode": "error", "status": 500}'
receiver_start "$RX_PORT"
_500s() { [ "$(rx_count attempts '.mode == "error"')" -ge 2 ]; }
pw_wait_for 20 "two 500 answers" _500s || pw_fail "receiver saw $(rx_count attempts) attempts"
# Slow (2 s, timeout 5 s): the firing message goes through.
receiver_mode '{"mode": "slow", "delay": 2}'
_one() { [ "$(rx_count log)" -ge 1 ]; }
pw_wait_for 20 "the first delivery" _one || pw_fail "nothing delivered: $(cat "$PW_WORK/perfwatchd.log")"
# Up: the rest.
receiver_mode '{"mode": "ok"}'
metric_at_least "perfwatch_notifications_sent_total$RX_LABELS" 2 20
# The detector judged every sample while the receiver was failing.
[ "$(pw_metric perfwatch_detector_samples_missed_total)" = 0 ] || pw_fail "the detector missed samples"

# Exactly once each, firing then resolved, same alert.
log="$PW_WORK/rx.log.jsonl"
[ "$(rx_count log)" = 2 ] || pw_fail "want 2 deliveries, got: $(cat "$log")"
[ "$(jq -r .body.status "$log" | paste -sd,)" = firing,resolved ] || pw_fail "order: $(jq -r .body.status "$log")"
for field in '.body.version == "4"' '.path == "/hook"' '.body.receiver == "ops"' \
	'.body.groupKey == "{}:{alertname=\"CpuFrequencyLow\"}"' '.body.groupLabels == {"alertname": "CpuFrequencyLow"}' \
	'.body.commonLabels == {"alertname": "CpuFrequencyLow", "instance": "db1", "severity": .body.alerts[0].labels.severity}' \
	'(.body.alerts | length) == 1' '.body.alerts[0].status == .body.status' \
	'.body.alerts[0].labels.instance == "db1"' '(.body.alerts[0].labels.severity | test("^(warning|critical)$"))' \
	'(.body.alerts[0].annotations.summary | test("busy CPU"))' '(.body.alerts[0].annotations.description | length) > 20' \
	'(.body.alerts[0].fingerprint | test("^[0-9a-f]{16}$"))' \
	'(.body.alerts[0].startsAt | test("^20[0-9-]+T[0-9:.]+Z$"))' \
	".body.alerts[0].generatorURL == \"$PW_URL/alerts\"" ".body.externalURL == \"$PW_URL\"" \
	'.headers.Authorization == "Bearer s3cret"' '.headers["X-Team"] == "perf"' \
	'(.headers["Content-Type"] | startswith("application/json"))'; do
	[ "$(rx_count log "$field")" = 2 ] || pw_fail "not in both deliveries: $field; got $(cat "$log")"
done
jq -se '.[0].body.alerts[0].endsAt == "0001-01-01T00:00:00Z" and .[1].body.alerts[0].endsAt > .[1].body.alerts[0].startsAt
	and .[0].body.alerts[0].fingerprint == .[1].body.alerts[0].fingerprint
	and .[0].body.alerts[0].startsAt == .[1].body.alerts[0].startsAt' "$log" >/dev/null ||
	pw_fail "endsAt/fingerprint/startsAt do not pair: $(cat "$log")"

# Counted: at least 2 refused connections + 2 500s failed, and retried; nothing dropped or queued.
metric_at_least "perfwatch_notifications_failed_total$RX_LABELS" 4 1
metric_at_least "perfwatch_notifications_retried_total$RX_LABELS" 4 1
[ "$(pw_metric "perfwatch_notifications_dropped_total$RX_LABELS")" = 0 ] || pw_fail "dropped"
[ "$(pw_metric "perfwatch_notification_queue_length$RX_LABELS")" = 0 ] || pw_fail "still queued"
[ "$(pw_metric "perfwatch_notification_delivery_seconds_count$RX_LABELS")" = 2 ] || pw_fail "latency not observed"
grep -q 'notifier: ops: delivery failed' "$PW_WORK/perfwatchd.log" || pw_fail "failures not logged"
# The delivery families lint clean, and OpenMetrics names the counters without _total.
if command -v promtool >/dev/null; then
	out=$(pw_get metrics | promtool check metrics 2>&1) || pw_fail "promtool: $out"
	[ -z "$out" ] || pw_fail "promtool complains: $out"
fi
om=$(curl -s -H 'Accept: application/openmetrics-text' "$PW_URL/metrics")
grep -q '^# TYPE perfwatch_notifications_sent counter$' <<<"$om" || pw_fail "OpenMetrics counter banner"
grep -q '^perfwatch_notification_delivery_seconds_bucket{receiver="ops",type="webhook",le="+Inf"} 2$' <<<"$om" ||
	pw_fail "histogram: $(grep delivery_seconds <<<"$om")"
[ "$(tail -1 <<<"$om")" = "# EOF" ] || pw_fail "OpenMetrics does not end in # EOF"
pw_stop "$PW_PID"
echo PASS
