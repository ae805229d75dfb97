#!/usr/bin/env bash
# SIGHUP replaces the notifier's receivers (daemon/main.c reload(), pw_notifier_reconfigure). One
# perfwatchd with a state dir starts with [receiver.a] (a webhook to /a of the Python receiver), and
# lives through three incidents (CpuFrequencyLow fires and resolves, notify_lib's tree), each played
# by a fresh scenario driver that the test releases only once the reload before it is in effect:
#
#   1. reload to a + b (b is new, a kept): a and b each get firing, then resolved, exactly once;
#   2. reload to a file whose [receiver.c] has url = ftp://x (and which would move a and b to /wrong):
#      "reload rejected" names file:line, nothing changes, a and b each get the second incident, and
#      a valid reload that keeps them while b's firing message is in flight does not send it twice;
#   3. while a answers 503 (its firing message waits in the queue and in the state file), reload to
#      b alone: a's waiting message is dropped and logged, leaves the state file, a leaves /metrics,
#      and a gets nothing more even once it answers again; b keeps its counters and gets the rest.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/notify_lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"

conf="$PW_WORK/perfwatchd.conf"
state="$PW_WORK/state"
log="$PW_WORK/perfwatchd.log"
mkdir -p "$state"
receiver_start

# write_conf NAME...: a config with one webhook receiver NAME posting to /NAME, for each NAME.
write_conf() {
	printf '[perfwatchd]\nlog-level = info\n' >"$conf"
	for name in "$@"; do
		printf '\n[receiver.%s]\ntype = webhook\nurl = %s/%s\n' "$name" "$RX_URL" "$name" >>"$conf"
	done
}

# incident N: a fresh driver for incident N on the same tree (the last one stops: its counters
# start over, which perfwatchd takes as one reset sample), released at once: the alert fires about
# 3 s later and resolves about 7 s after that.
driver_pid=""
incident() {
	local events="$PW_WORK/events.$1"
	if [ -n "$driver_pid" ]; then
		kill "$driver_pid"
		wait "$driver_pid" 2>/dev/null || true
	fi
	python3 "$PW_SCENARIO_PY" "$PW_TESTS/e2e/notify_freq_low.json" "$PW_WORK/tree" --tick 0.05 --hold \
		--param baseline=1 --param incident=4 --param recovery=600 >"$events" 2>>"$PW_WORK/driver.err" &
	driver_pid=$!
	PW_PIDS+=("$driver_pid")
	pw_wait_for 20 "driver $1 ready" grep -qs '"ready"' "$events" || pw_fail "driver: $(cat "$PW_WORK/driver.err")"
	[ "${2:-}" = held ] || kill -USR1 "$driver_pid"
}

# got NAME STATUS: how many messages with STATUS /NAME took (all of them addressed to receiver NAME).
got() { rx_count log ".path == \"/$1\" and .body.status == \"$2\" and .body.receiver == \"$1\""; }
got_is() { [ "$(got "$1" "$2")" = "$3" ]; }
# wait_got NAME STATUS N: until /NAME has N messages with STATUS.
wait_got() {
	pw_wait_for 30 "/$1: $3 $2" got_is "$@" ||
		pw_fail "/$1 has $(got "$1" "$2") $2 messages, want $3: $(jq -c '[.path, .body.status]' "$PW_WORK/rx.log.jsonl")"
}
# receivers_listed: the receivers /metrics shows, sorted, comma-separated.
receivers_listed() {
	pw_get metrics | sed -n 's/^perfwatch_notification_queue_length{receiver="\([^"]*\)".*/\1/p' | sort | paste -sd,
}
# listed_is LIST: until /metrics shows those receivers (the notifier publishes after it applied a reload).
listed_is() {
	_listed() { [ "$(receivers_listed)" = "$1" ]; }
	pw_wait_for 10 "receivers $1 in /metrics" _listed "$1" || pw_fail "receivers listed: $(receivers_listed), want $1"
}
queue_empty() {
	[ "$(pw_get metrics | awk '/^perfwatch_notification_queue_length\{/ { n += $2 } END { print n + 0 }')" = 0 ]
}
# reload: SIGHUP, then until the notifier logs it has N receivers (the Nth such line of the run).
reload() {
	local want=$1 nth=$2
	kill -HUP "$PW_PID"
	_applied() { [ "$(grep -c "notifier: $want receivers configured" "$log")" -ge "$nth" ]; }
	pw_wait_for 10 "the notifier with $want receivers" _applied || pw_fail "reload not applied: $(cat "$log")"
}
state_items() { jq -c "[.notifications[] | select(.receiver == \"$1\")] | length" "$state/notifications" 2>/dev/null; }

# --- start with a; the first driver holds its tree still until the reload is in effect ------------
write_conf a
incident 1 held
pw_start perfwatchd --config "$conf" --state-dir "$state" "${PW_SCENARIO_FLAGS[@]}" --instance db1
listed_is a

# --- 1. a + b ------------------------------------------------------------------------------------
write_conf a b
reload 2 1
listed_is a,b
kill -USR1 "$driver_pid"
for name in a b; do
	wait_got "$name" firing 1
	wait_got "$name" resolved 1
done
pw_wait_for 10 "an empty queue" queue_empty || pw_fail "queue: $(pw_get metrics | grep queue_length)"
for name in a b; do
	[ "$(got "$name" firing)/$(got "$name" resolved)" = 1/1 ] || pw_fail "/$name: $(got "$name" firing)/$(got "$name" resolved)"
	jq -se "[.[] | select(.path == \"/$name\") | .body.status] == [\"firing\", \"resolved\"]" "$PW_WORK/rx.log.jsonl" >/dev/null ||
		pw_fail "/$name: not firing then resolved"
done
echo "1. b added by a reload: a and b each got firing and resolved once"

# --- 2. a broken receiver section: rejected, a and b unchanged -----------------------------------
cat >"$conf" <<CONF
[perfwatchd]
log-level = info
[receiver.a]
type = webhook
url = $RX_URL/wrong
[receiver.b]
type = webhook
url = $RX_URL/wrong
[receiver.c]
type = webhook
url = ftp://x
CONF
kill -HUP "$PW_PID"
rejected() { grep -qF "reload rejected: $conf:11: invalid url 'ftp://x' (want http:// or https://); keeping the running configuration" "$log"; }
pw_wait_for 10 "the rejection line" rejected || pw_fail "no rejection line: $(grep reload "$log")"
[ "$(grep -c 'reload rejected' "$log")" = 1 ] || pw_fail "more than one line for a rejected reload"
[ "$(grep -c 'receivers configured' "$log")" = 1 ] || pw_fail "the notifier was reconfigured by a rejected reload"
[ "$(receivers_listed)" = a,b ] || pw_fail "receivers after a rejected reload: $(receivers_listed)"
# The incident, and a valid reload that keeps a and b as they are while b takes 5 s to answer the
# firing message: the transfer in flight finishes (it is not sent again).
receiver_mode '{"mode": "ok", "paths": {"/b": {"mode": "slow", "delay": 5}}}'
incident 2
_b_slow() { [ "$(rx_count attempts '.path == "/b" and .mode == "slow"')" -ge 1 ]; }
pw_wait_for 20 "b's firing message in flight" _b_slow || pw_fail "b was never tried"
write_conf a b
reload 2 2
reloaded_at=$(date +%s.%N)
receiver_mode '{"mode": "ok"}'
for name in a b; do
	wait_got "$name" firing 2
	wait_got "$name" resolved 2
done
pw_wait_for 10 "an empty queue" queue_empty || pw_fail "queue: $(pw_get metrics | grep queue_length)"
for name in a b; do
	[ "$(got "$name" firing)/$(got "$name" resolved)" = 2/2 ] || pw_fail "/$name: $(got "$name" firing)/$(got "$name" resolved)"
done
[ "$(rx_count attempts '.path == "/b"')" = 4 ] || pw_fail "b was tried $(rx_count attempts '.path == "/b"') times, want 4"
# (and the reload did come while that message was in flight: b took it after the reload)
jq -se --argjson t "$reloaded_at" '[.[] | select(.path == "/b" and .body.status == "firing")][1].time > $t' \
	"$PW_WORK/rx.log.jsonl" >/dev/null || pw_fail "b's second firing message arrived before the reload"
[ "$(rx_count attempts '.path == "/wrong"')" = 0 ] || pw_fail "a rejected reload moved a receiver to /wrong"
echo "2. rejected reload: logged once, a and b still deliver; a reload kept b's transfer in flight"

# --- 3. remove a while its firing message waits --------------------------------------------------
receiver_mode '{"mode": "ok", "paths": {"/a": {"mode": "error", "status": 503}}}'
incident 3
wait_got b firing 3
_a_refused() { [ "$(rx_count attempts '.path == "/a" and .mode == "error"')" -ge 1 ]; }
pw_wait_for 20 "a refusing its firing message" _a_refused || pw_fail "a was never tried"
_a_saved() { [ "$(state_items a)" -ge 1 ]; }
pw_wait_for 10 "a's message in the state file" _a_saved || pw_fail "state file: $(cat "$state/notifications")"
b_sent=$(pw_metric 'perfwatch_notifications_sent_total{receiver="b",type="webhook"}')
write_conf b
reload 1 1
grep -qF "notifier: firing notification of CpuFrequencyLow for receiver a dropped: the receiver is no longer configured" "$log" ||
	pw_fail "a's waiting message was not dropped: $(grep notifier "$log")"
receiver_mode '{"mode": "ok"}'
_a_unsaved() { [ "$(state_items a)" = 0 ]; }
pw_wait_for 10 "a's message out of the state file" _a_unsaved || pw_fail "state file: $(cat "$state/notifications")"
listed_is b
sent=$(pw_metric 'perfwatch_notifications_sent_total{receiver="b",type="webhook"}')
[ "${sent:-0}" -ge "$b_sent" ] || pw_fail "b's counters were reset: sent $sent, was $b_sent"
wait_got b resolved 3
pw_wait_for 10 "an empty queue" queue_empty || pw_fail "queue: $(pw_get metrics | grep queue_length)"
[ "$(got a firing)/$(got a resolved)" = 2/2 ] || pw_fail "/a got messages after its removal: $(got a firing)/$(got a resolved)"
[ "$(got b firing)/$(got b resolved)" = 3/3 ] || pw_fail "/b: $(got b firing)/$(got b resolved)"
[ "$(pw_metric 'perfwatch_notifications_sent_total{receiver="b",type="webhook"}')" = 6 ] ||
	pw_fail "b sent_total $(pw_metric 'perfwatch_notifications_sent_total{receiver="b",type="webhook"}'), want 6"
pw_stop "$PW_PID"
[ "$(state_items a)" = 0 ] || pw_fail "a's messages saved at shutdown: $(cat "$state/notifications")"
echo "3. a removed: its waiting message dropped (and unsaved), nothing more to a; b kept its counters"
echo PASS
