#!/usr/bin/env bash
# SIGHUP reloads credentials (daemon/main.c reload(), pw_http_reconfigure_auth): [auth] users,
# hashes and the protected endpoints take effect for the next request, cached logins forgotten,
# so a removed user or a changed password stops working at once; a reload the daemon rejects
# changes nothing. Then a receiver's bearer_token_file is read again on reload: the resolved
# message of an alert carries the new token, the firing one the old.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/notify_lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"

tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"
conf="$PW_WORK/perfwatchd.conf"
horse='$2b$10$lTxXPp15IgmKfjSjRIAnAOIAqMh0sfSbbT9SLo..c0PcqbQPyf7XO' # "correct horse"
right='$2b$04$ked814RXI13WwpPz4C.dHeTwBFR1PpANMF8jKpFIc42Jvy5Pon6ji' # "right"

code() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@" "$PW_URL/metrics" || true; }
# reload TEXT: SIGHUP, then until the log says the Nth reload was applied or rejected.
reloads=0
reload() {
	reloads=$((reloads + 1))
	kill -HUP "$PW_PID"
	_done() { [ "$(grep -Ec 'reload: configuration .* applied|reload rejected' "$PW_WORK/auth.log")" -ge "$reloads" ]; }
	pw_wait_for 10 "reload $reloads" _done || pw_fail "reload $reloads: $(cat "$PW_WORK/auth.log")"
}
expect() {
	local want=$1 what=$2 got
	shift 2
	got=$(code "$@")
	[ "$got" = "$want" ] || pw_fail "$what: got $got, want $want ($(tail -3 "$PW_WORK/auth.log"))"
}

printf '[auth]\nuser.prom = %s\nprotect = /metrics\n' "$horse" >"$conf"
pw_start auth --config "$conf" --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms
expect 401 "no password"
expect 200 "prom's password" -u prom:'correct horse'
expect 200 "prom's password, cached" -u prom:'correct horse'

# prom removed, ops added: prom's cached login no longer opens /metrics.
printf '[auth]\nuser.ops = %s\nprotect = /metrics\n' "$horse" >"$conf"
reload
grep -q 'reload: \[auth\] applied: 1 user; cached logins forgotten' "$PW_WORK/auth.log" || pw_fail "no [auth] line in the log"
grep -q 'needs a restart.*auth' "$PW_WORK/auth.log" && pw_fail "auth still named as needing a restart"
expect 401 "removed user after reload" -u prom:'correct horse'
expect 200 "added user after reload" -u ops:'correct horse'

# ops's password changed: the old one is refused, also though it was cached.
printf '[auth]\nuser.ops = %s\nprotect = /metrics\n' "$right" >"$conf"
reload
expect 401 "old password after reload" -u ops:'correct horse'
expect 200 "new password after reload" -u ops:right

# A file the daemon rejects (not a bcrypt hash) changes nothing.
printf '[auth]\nuser.ops = hunter2\nprotect = /metrics\n' >"$conf"
reload
grep -q "reload rejected: $conf:2: user.ops: not a bcrypt hash" "$PW_WORK/auth.log" || pw_fail "rejection not logged"
grep -q hunter2 "$PW_WORK/auth.log" && pw_fail "the log shows the rejected value"
expect 200 "after a rejected reload" -u ops:right
expect 401 "after a rejected reload, no password"

# Users without protect: every endpoint but /healthz is protected. No users: nothing is. Then
# protected again.
printf '[auth]\nuser.ops = %s\n' "$right" >"$conf"
reload
expect 401 "protect removed: users protect everything"
printf '[auth]\n' >"$conf"
reload
expect 200 "users removed"
printf '[auth]\nuser.ops = %s\nprotect = /status /metrics\n' "$right" >"$conf"
reload
expect 401 "protect added again"
expect 200 "protect added again, password" -u ops:right

# Twenty reloads that swap the checker under four clients scraping with each other's password:
# every answer is 200, 401 or 429 (one client address: its failure tokens run out), never a
# dropped connection or a 5xx (run it on a ThreadSanitizer build to check the hand-over for races).
scrape_loop() {
	local until=$((SECONDS + 30))
	while [ -e "$PW_WORK/scraping" ] && [ $SECONDS -lt $until ]; do
		code -u "$1" >>"$PW_WORK/codes.$2"
		echo >>"$PW_WORK/codes.$2"
	done
}
touch "$PW_WORK/scraping"
for i in 1 2 3 4; do
	if [ $((i % 2)) = 0 ]; then scrape_loop ops:right "$i" & else scrape_loop ops:'correct horse' "$i" & fi
	PW_PIDS+=("$!")
done
for i in $(seq 1 20); do
	[ $((i % 2)) = 0 ] && hash=$right || hash=$horse
	printf '[auth]\nuser.ops = %s\nprotect = /status /metrics\n' "$hash" >"$conf"
	reload
done
rm "$PW_WORK/scraping"
wait "${PW_PIDS[@]: -4}"
counts=$(sort "$PW_WORK"/codes.* | uniq -c | tr -s ' \n' ' ')
bad=$(cat "$PW_WORK"/codes.* | grep -cvE '^(200|401|429)$' || true)
[ "$bad" = 0 ] || pw_fail "$bad answers during reloads were not 200, 401 or 429: $counts"
grep -qx 200 "$PW_WORK"/codes.* || pw_fail "no request passed during the reloads: $counts"
kill -0 "$PW_PID" || pw_fail "perfwatchd died during the reloads"
echo "answers during 20 reloads (count, status): $counts"
pw_stop "$PW_PID"

# Started without [auth]: a reload can add it.
printf '[perfwatchd]\n' >"$conf"
pw_start auth --config "$conf" --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms
reloads=0
expect 200 "nothing protected at start"
printf '[auth]\nuser.ops = %s\nprotect = /metrics\n' "$right" >"$conf"
reload
expect 401 "protected by a reload"
expect 200 "protected by a reload, password" -u ops:right
pw_stop "$PW_PID"

# --- a receiver's token file, read again on reload ------------------------------------------------
receiver_start
token="$PW_WORK/token"
printf 'first-token\n' >"$token"
chmod 0600 "$token"
printf '[receiver.ops]\ntype = webhook\nurl = %s/hook\nbearer_token_file = %s\n' "$RX_URL" "$token" >"$conf"
scenario_start 6 1
pw_start auth --config "$conf" "${PW_SCENARIO_FLAGS[@]}"
reloads=0
auth_of() { jq -r "select(.body.status == \"$1\") | .headers.Authorization" "$PW_WORK/rx.log.jsonl" 2>/dev/null; }
_fired() { [ -n "$(auth_of firing)" ]; }
pw_wait_for 30 "the firing message" _fired || pw_fail "nothing fired: $(cat "$PW_WORK/auth.log")"
printf 'second-token\n' >"$token"
reload
_resolved() { [ -n "$(auth_of resolved)" ]; }
pw_wait_for 30 "the resolved message" _resolved || pw_fail "nothing resolved: $(cat "$PW_WORK/auth.log")"
[ "$(auth_of firing)" = "Bearer first-token" ] || pw_fail "firing carried '$(auth_of firing)'"
[ "$(auth_of resolved)" = "Bearer second-token" ] || pw_fail "resolved carried '$(auth_of resolved)'"
grep -qE 'first-token|second-token' "$PW_WORK/auth.log" && pw_fail "a token in the log"
pw_stop "$PW_PID"
echo PASS
