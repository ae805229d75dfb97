#!/usr/bin/env bash
# Safe defaults of the HTTP server. [auth] users without a protect line protect every endpoint but
# /healthz (/history and /ui included); protect narrows that to its list, and an empty list is a
# config error. Every answer, errors and 401/429/421 included, carries
# Content-Security-Policy: frame-ancestors 'none' (one policy: /ui's own, merged) and
# X-Content-Type-Options: nosniff.
source "$(dirname "$0")/lib.sh"

tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"
base=(--procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms)
right='$2b$04$ked814RXI13WwpPz4C.dHeTwBFR1PpANMF8jKpFIc42Jvy5Pon6ji' # "right", cost 4
conf="$PW_WORK/perfwatchd.conf"
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@"; }

# Users, no protect line: everything but /healthz wants the password; a path that is no endpoint
# stays 404 without one.
printf '[auth]\nuser.prom = %s\n' "$right" >"$conf"
pw_start users --config "$conf" "${base[@]}"
for path in / /metrics /status /alerts /history /ui; do
	[ "$(code "$PW_URL$path")" = 401 ] || pw_fail "$path without a password: not 401"
	[ "$(code -u prom:right "$PW_URL$path")" = 200 ] || pw_fail "$path with the password: not 200"
done
[ "$(code "$PW_URL/healthz")" = 200 ] || pw_fail "/healthz is not open"
[ "$(code "$PW_URL/nope")" = 404 ] || pw_fail "an unknown path is not 404"

# The headers on every kind of answer: 200s (JSON, text, HTML, CSV), 404, 405, 400, 401, 429, 421.
headers_ok() { # headers_ok WHAT CURL-ARGS...: exactly one policy, with frame-ancestors; nosniff
	local what=$1 h
	shift
	h=$(curl -s -D - -o /dev/null --max-time 10 "$@" | tr -d '\r')
	[ "$(grep -ci '^Content-Security-Policy:' <<<"$h")" = 1 ] || pw_fail "$what: not one CSP header: $h"
	grep -qi "^Content-Security-Policy:.*frame-ancestors 'none'" <<<"$h" || pw_fail "$what: no frame-ancestors: $h"
	grep -qi '^X-Content-Type-Options: nosniff$' <<<"$h" || pw_fail "$what: no nosniff: $h"
	printf '%s\n' "$h"
}
u=(-u prom:right)
headers_ok "/metrics" "${u[@]}" "$PW_URL/metrics" >/dev/null
headers_ok "/status" "${u[@]}" "$PW_URL/status" >/dev/null
headers_ok "/status text" "${u[@]}" "$PW_URL/status?format=text" >/dev/null
headers_ok "/alerts" "${u[@]}" "$PW_URL/alerts" >/dev/null
headers_ok "/" "${u[@]}" "$PW_URL/" >/dev/null
headers_ok "/healthz" "$PW_URL/healthz" >/dev/null
headers_ok "/history" "${u[@]}" "$PW_URL/history?since=-10s&format=csv" >/dev/null
grep -q '^HTTP/1.1 400' <<<"$(headers_ok "/history 400" "${u[@]}" "$PW_URL/history?since=nonsense")" ||
	pw_fail "/history?since=nonsense is not 400"
grep -q '^HTTP/1.1 404' <<<"$(headers_ok "404" "$PW_URL/nope")" || pw_fail "not 404"
grep -q '^HTTP/1.1 405' <<<"$(headers_ok "405" -X POST "$PW_URL/metrics")" || pw_fail "not 405"
grep -q '^HTTP/1.1 401' <<<"$(headers_ok "401" "$PW_URL/metrics")" || pw_fail "not 401"
grep -q '^HTTP/1.1 421' <<<"$(headers_ok "421" -H 'Host: evil.example' "$PW_URL/healthz")" || pw_fail "not 421"
# /ui sends its own policy: one header that holds both.
ui=$(headers_ok "/ui" "${u[@]}" "$PW_URL/ui")
grep -qi "^Content-Security-Policy: default-src 'none';.*frame-ancestors 'none'$" <<<"$ui" || pw_fail "/ui policy not merged: $ui"
# 429: each wrong guess is a bcrypt check; after the client's 5 the answer is 429.
throttled=
for i in 1 2 3 4 5 6 7 8; do
	h=$(headers_ok "guess $i" -u prom:"guess-$i" "$PW_URL/metrics")
	grep -q '^HTTP/1.1 429' <<<"$h" && throttled=$i && break
	grep -q '^HTTP/1.1 401' <<<"$h" || pw_fail "guess $i: $h"
done
[ -n "$throttled" ] || pw_fail "no 429 after 8 wrong passwords"
pw_stop "$PW_PID"

# protect narrows: only the listed endpoints want the password.
printf '[auth]\nuser.prom = %s\nprotect = /metrics /history\n' "$right" >"$conf"
pw_start narrow --config "$conf" "${base[@]}"
[ "$(code "$PW_URL/metrics")" = 401 ] || pw_fail "protect = /metrics: /metrics is not 401"
[ "$(code "$PW_URL/history")" = 401 ] || pw_fail "protect = /history: /history is not 401"
for path in / /status /alerts /ui /healthz; do
	[ "$(code "$PW_URL$path")" = 200 ] || pw_fail "$path is not in protect but is not 200"
done
pw_stop "$PW_PID"

# An empty protect list would leave everything open: refused with its line.
printf '[auth]\nuser.prom = %s\nprotect =\n' "$right" >"$conf"
rc=0
"$PERFWATCHD" --config "$conf" "${base[@]}" --check-config >/dev/null 2>"$PW_WORK/err" || rc=$?
[ "$rc" = 2 ] || pw_fail "empty protect: exit $rc, want 2"
grep -qF "$conf:3: protect: empty list" "$PW_WORK/err" || pw_fail "empty protect said: $(cat "$PW_WORK/err")"
echo "PASS: users protect all but /healthz; every answer carries frame-ancestors 'none' and nosniff"
