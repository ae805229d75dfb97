#!/usr/bin/env bash
# The notifier against extreme settings and hostile receivers (issue 10): an alertmanager-resend of
# 2000000h holds a pushed alert until the end of int64 time instead of overflowing endsAt into the
# past; a receiver's error answer reaches the log without its terminal escapes and other control
# characters; a queue file of 500 notifications for a receiver no longer configured is dropped with
# two log lines, not 500.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/notify_lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"

mkdir -p "$PW_WORK/state"
chmod 700 "$PW_WORK/state"
python3 - "$PW_WORK/state/notifications" <<'PY'
import json, sys
items = [{"receiver": "gone", "alert": 0, "kind": "firing", "enqueued_ns": 1, "attempts": 0, "body": "{}"}
         for _ in range(500)]
with open(sys.argv[1], "w") as f:
    json.dump({"version": 1, "notifications": items}, f)
PY
chmod 600 "$PW_WORK/state/notifications"

# /hook answers 500 and /reject 400, each with a body full of control characters.
ugly='red \u001b[31mALARM\u001b[0m bell \u0007 back\u0008 tab\t del\u007f end'
receiver_mode "{\"mode\": \"ok\", \"paths\": {\"/hook\": {\"mode\": \"error\", \"status\": 500, \"body\": \"$ugly\"},
	\"/reject\": {\"mode\": \"error\", \"status\": 400, \"body\": \"$ugly\"}}}"
receiver_start
cat >"$PW_WORK/perfwatchd.conf" <<CONF
[perfwatchd]
alertmanager-resend = 2000000h

[receiver.am]
type = alertmanager
url = $RX_URL

[receiver.failing]
type = webhook
url = $RX_URL/hook

[receiver.refusing]
type = webhook
url = $RX_URL/reject
CONF
scenario_start 4 1
pw_start perfwatchd --config "$PW_WORK/perfwatchd.conf" --state-dir "$PW_WORK/state" "${PW_SCENARIO_FLAGS[@]}"

_pushed() { [ "$(rx_count log '.path == "/api/v2/alerts"')" -ge 1 ]; }
pw_wait_for 30 "the first push" _pushed || pw_fail "no push: $(cat "$PW_WORK/rx.attempts.jsonl" 2>/dev/null)"
push=$(jq -c 'select(.path == "/api/v2/alerts")' "$PW_WORK/rx.log.jsonl" | head -1)
# Before the fix: 4 x 2000000h wrapped around, endsAt in the 1700s, before startsAt.
jq -e '.body[0].endsAt > .body[0].startsAt and (.body[0].endsAt | startswith("2262-"))' <<<"$push" >/dev/null ||
	pw_fail "endsAt overflowed: $push"

_logged() { grep -q 'refused the' "$PW_WORK/perfwatchd.log" && grep -q 'failing: delivery failed' "$PW_WORK/perfwatchd.log"; }
pw_wait_for 30 "the receivers' answers in the log" _logged || pw_fail "not logged"
grep -q 'HTTP 500: red ?\[31mALARM?\[0m bell ? back? ' "$PW_WORK/perfwatchd.log" || pw_fail "500's answer not shown"
grep -q 'HTTP 400: red ?\[31mALARM' "$PW_WORK/perfwatchd.log" || pw_fail "400's answer not shown"
if LC_ALL=C grep -q $'[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]' "$PW_WORK/perfwatchd.log"; then
	pw_fail "control characters in the log: $(LC_ALL=C grep $'[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]' "$PW_WORK/perfwatchd.log" | cat -v)"
fi

# The orphaned queue: one line naming the first, one counting the rest.
n=$(grep -c 'for receiver gone dropped' "$PW_WORK/perfwatchd.log")
[ "$n" = 1 ] || pw_fail "$n log lines for the 500 orphaned notifications"
grep -q '499 more notifications dropped' "$PW_WORK/perfwatchd.log" || pw_fail "no count of the orphans"
pw_stop "$PW_PID"
