#!/usr/bin/env bash
# A real Alertmanager (Debian package prometheus-alertmanager) on loopback: perfwatchd pushes to its
# API v2; /api/v2/alerts shows the alert with our labels (alertname, instance, severity) and our
# fingerprint while it fires, re-pushed every --alertmanager-resend (updatedAt moves), and drops it
# once it resolves; Alertmanager's own webhook delivers it, grouped by alertname, to the Python
# receiver, firing then resolved.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/../e2e/notify_lib.sh"

AM_BIN=$(command -v prometheus-alertmanager || command -v alertmanager || true)
[ -n "$AM_BIN" ] || pw_skip "prometheus-alertmanager not installed"
command -v jq >/dev/null || pw_skip "jq not installed"

receiver_start
am_port=$(pw_free_port)
am="http://127.0.0.1:$am_port"
cat >"$PW_WORK/alertmanager.yml" <<YML
route:
  receiver: py
  group_by: [alertname]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: py
    webhook_configs:
      - url: $RX_URL/am
        send_resolved: true
YML
"$AM_BIN" --config.file="$PW_WORK/alertmanager.yml" --storage.path="$PW_WORK/am-data" \
	--web.listen-address="127.0.0.1:$am_port" --cluster.listen-address= --log.level=warn \
	>"$PW_WORK/alertmanager.log" 2>&1 &
PW_PIDS+=("$!")
am_ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$am/-/ready")" = 200 ]; }
pw_wait_for 30 "alertmanager ready" am_ready || pw_fail "alertmanager did not start: $(cat "$PW_WORK/alertmanager.log")"

scenario_start 6 1
# Also a direct webhook, to compare our fingerprint with Alertmanager's, and to see it repeat.
pw_start perfwatchd "${PW_SCENARIO_FLAGS[@]}" --instance db1 --alertmanager "$am/" \
	--alertmanager-resend 1s --webhook "$RX_URL/direct" --webhook-repeat-interval 1s

# am_alert JQ: the CpuFrequencyLow alert Alertmanager holds, through jq, or nothing.
am_alert() {
	curl -s "$am/api/v2/alerts" | jq -c ".[] | select(.labels.alertname == \"CpuFrequencyLow\") | $1"
}
_active() { [ "$(am_alert .status.state)" = '"active"' ]; }
pw_wait_for 30 "the alert active in Alertmanager" _active || pw_fail "not in Alertmanager: $(curl -s "$am/api/v2/alerts")"
am_alert . >"$PW_WORK/am-alert.json"
jq -e '.labels == {"alertname": "CpuFrequencyLow", "instance": "db1", "severity": .labels.severity}
	and (.labels.severity | test("^(warning|critical)$"))
	and (.annotations.summary | test("busy CPU")) and (.annotations.description | length) > 20' \
	"$PW_WORK/am-alert.json" >/dev/null || pw_fail "labels or annotations: $(cat "$PW_WORK/am-alert.json")"
jq -e ".generatorURL == \"$PW_URL/alerts\"" "$PW_WORK/am-alert.json" >/dev/null || pw_fail "generatorURL"
first_update=$(jq -r .updatedAt "$PW_WORK/am-alert.json")
_repushed() { local u; u=$(am_alert .updatedAt); [ -n "$u" ] && [ "$u" != "\"$first_update\"" ]; }
pw_wait_for 10 "a re-push (updatedAt moves)" _repushed || pw_fail "not re-pushed while firing"

# Our fingerprint is Alertmanager's.
_direct() { [ "$(rx_count log '.path == "/direct"')" -ge 1 ]; }
pw_wait_for 10 "the direct webhook" _direct || pw_fail "no direct webhook"
ours=$(jq -r 'select(.path == "/direct") | .body.alerts[0].fingerprint' "$PW_WORK/rx.log.jsonl" | head -1)
[ "$ours" = "$(jq -r .fingerprint "$PW_WORK/am-alert.json")" ] ||
	pw_fail "fingerprint $ours, Alertmanager's $(jq -r .fingerprint "$PW_WORK/am-alert.json")"

# Resolved: Alertmanager lets it go, and its webhook says so.
_gone() { [ -z "$(am_alert .fingerprint)" ]; }
pw_wait_for 30 "the alert resolved in Alertmanager" _gone || pw_fail "still active: $(am_alert .)"
_am_resolved() { [ "$(rx_count log '.path == "/am" and .body.status == "resolved"')" -ge 1 ]; }
pw_wait_for 20 "Alertmanager's resolved webhook" _am_resolved || pw_fail "no resolved message from Alertmanager"
log="$PW_WORK/rx.log.jsonl"
[ "$(rx_count log '.path == "/am" and .body.status == "firing"')" -ge 1 ] || pw_fail "no firing message from Alertmanager"
jq -se '[.[] | select(.path == "/am")] | (.[0].body.status == "firing") and all(.[];
	.body.version == "4" and .body.receiver == "py" and .body.groupLabels == {"alertname": "CpuFrequencyLow"}
	and (.body.groupKey | contains("alertname=\"CpuFrequencyLow\""))
	and .body.alerts[0].labels.instance == "db1")' "$log" >/dev/null ||
	pw_fail "Alertmanager's messages: $(jq -c 'select(.path == "/am") | .body' "$log")"
jq -se "[.[] | select(.path == \"/am\" and .body.status == \"resolved\")][0].body.alerts[0].fingerprint == \"$ours\"" \
	"$log" >/dev/null || pw_fail "resolved message is for another alert"
# The direct webhook: firing, repeated while firing (1 s), then resolved once, the same alert.
_direct_resolved() { [ "$(rx_count log '.path == "/direct" and .body.status == "resolved"')" -ge 1 ]; }
pw_wait_for 10 "the direct resolved message" _direct_resolved || pw_fail "no direct resolved message"
jq -se '[.[] | select(.path == "/direct") | .body] | length >= 3 and (.[-1].status == "resolved")
	and ([.[] | select(.status == "resolved")] | length == 1)
	and ([.[:-1][] | .status] | all(. == "firing"))
	and ([.[] | .alerts[0].fingerprint] | unique | length == 1)' "$log" >/dev/null ||
	pw_fail "direct webhook: $(jq -c 'select(.path == "/direct") | .body.status' "$log")"
[ "$(pw_metric 'perfwatch_notifications_dropped_total{receiver="alertmanager1",type="alertmanager"}')" = 0 ] ||
	pw_fail "pushes dropped: $(cat "$PW_WORK/perfwatchd.log")"
pw_stop "$PW_PID"
echo PASS
