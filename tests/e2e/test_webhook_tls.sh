#!/usr/bin/env bash
# Receivers over HTTPS with a self-signed certificate, and authentication: certificates are verified
# by default (an unknown CA fails and is retried, never sent), ca_file makes the same server
# trusted, tls_insecure skips verification; basic auth and custom headers reach the receiver; a
# receiver answering 400 has the notification dropped, counted and logged, not retried.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/notify_lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"
command -v openssl >/dev/null || pw_skip "openssl not installed"

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$PW_WORK/key.pem" -out "$PW_WORK/cert.pem" -days 1 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>"$PW_WORK/openssl.err" ||
	pw_skip "cannot make a certificate: $(cat "$PW_WORK/openssl.err")"
receiver_mode '{"mode": "ok", "paths": {"/reject": {"mode": "error", "status": 400}}}'
receiver_start "" --tls-cert "$PW_WORK/cert.pem" --tls-key "$PW_WORK/key.pem"
cat >"$PW_WORK/perfwatchd.conf" <<CONF
[receiver.verified]
type = webhook
url = $RX_URL/verified
ca_file = $PW_WORK/cert.pem
basic_auth_user = perf
basic_auth_password = pa:ss
header.X-Env = test

[receiver.unknown-ca]
type = webhook
url = $RX_URL/unknown-ca

[receiver.insecure]
type = webhook
url = $RX_URL/insecure
tls_insecure = true

[receiver.reject]
type = webhook
url = $RX_URL/reject
ca_file = $PW_WORK/cert.pem
CONF
scenario_start 4 1
pw_start perfwatchd --config "$PW_WORK/perfwatchd.conf" "${PW_SCENARIO_FLAGS[@]}"

metric_at_least 'perfwatch_notifications_sent_total{receiver="verified",type="webhook"}' 1 30
metric_at_least 'perfwatch_notifications_sent_total{receiver="insecure",type="webhook"}' 1 10
metric_at_least 'perfwatch_notifications_dropped_total{receiver="reject",type="webhook"}' 2 20
metric_at_least 'perfwatch_notifications_failed_total{receiver="unknown-ca",type="webhook"}' 2 10
[ "$(pw_metric 'perfwatch_notifications_sent_total{receiver="unknown-ca",type="webhook"}')" = 0 ] ||
	pw_fail "sent to a server whose certificate is not trusted"
# Firing and resolved each got one 400 and were not tried again.
[ "$(rx_count attempts '.path == "/reject"')" = 2 ] || pw_fail "a 400 was retried: $(rx_count attempts '.path == "/reject"') attempts"
[ "$(rx_count log '.path == "/unknown-ca"')" = 0 ] || pw_fail "the unverified receiver got a message"
auth="Basic $(printf 'perf:pa:ss' | base64)"
[ "$(rx_count log ".path == \"/verified\" and .headers.Authorization == \"$auth\" and .headers[\"X-Env\"] == \"test\"")" -ge 1 ] ||
	pw_fail "auth or header missing: $(jq -c 'select(.path == "/verified") | .headers' "$PW_WORK/rx.log.jsonl")"
grep -q 'notifier: reject refused the firing notification of CpuFrequencyLow (HTTP 400: receiver told to fail); dropped' \
	"$PW_WORK/perfwatchd.log" || pw_fail "rejection not logged"
grep -Eq 'notifier: unknown-ca: delivery failed \(.*(certificate|SSL)' "$PW_WORK/perfwatchd.log" ||
	pw_fail "TLS failure not logged"
pw_stop "$PW_PID"
echo PASS
