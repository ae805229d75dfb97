#!/usr/bin/env bash
# The whole daemon under ThreadSanitizer (issue 10, item 4): a TSan build of perfwatchd samples a live
# fixture tree (freq_hotplug.json: CpuFrequencyLow fires and resolves twice, then fires for good; a
# CPU goes offline and comes back twice) at 250 ms while, all at once,
#   - three scrapers go round /metrics (plain, gzip, OpenMetrics, HEAD), /status (JSON, text),
#     /alerts, /history (JSON, CSV) and /healthz, and a slow client's half requests are cut by the
#     HTTP guard's thread (scrape.py);
#   - SIGHUP reloads every 2.5 s cycle through configs that change rules (for, resolve, enabled),
#     the log level, the receivers (added, dropped, settings changed, a bearer_token_file rewritten)
#     and [auth] (the endpoints it protects; the scrapers send a password, one request none), and
#     one that is rejected;
#   - the webhook receiver answers in turn 200, 500, slowly, not at all (past the receiver's 1 s
#     timeout), not even a connection (it is stopped: refused) and 503; a third receiver's port
#     refuses connections all along;
#   - the baselines are saved every 500 ms and the notification queue as it changes (--state-dir),
#     and every sample is recorded (--record);
#   - a NOTIFY_SOCKET listener stands in for systemd: the main thread refreshes STATUS= every 5 s
#     and around reloads, the sampler pings the watchdog every 0.5 s.
# It passes when every endpoint was served throughout, the alerts fired, resolved and were delivered,
# the recording replays, the daemon exits 0 on SIGTERM and TSan reported nothing. Skips unless
# $PERFWATCHD is a TSan build (make test-tsan). About 60 s.

# clang-14's TSan cannot map its shadow under the mmap randomisation of newer kernels: run without it
# (the personality is inherited by the daemon). make test-tsan does the same for the whole ctest run.
if [ "${PW_TSAN_NORANDOMIZE:-}" != 1 ] && command -v setarch >/dev/null; then
	PW_TSAN_NORANDOMIZE=1 exec setarch "$(uname -m)" -R bash "$0" "$@"
fi
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/../e2e/notify_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

grep -qa __tsan_init "$PERFWATCHD" || pw_skip "$PERFWATCHD is not a ThreadSanitizer build (make test-tsan builds one)"
command -v jq >/dev/null || pw_skip "jq not installed"

seconds=${PW_TSAN_SECONDS:-45}
# halt_on_error: the first report kills the daemon, so the run fails where it happened. No
# suppressions: jansson, libcurl, libmicrohttpd and GnuTLS are not instrumented, so TSan sees only our
# accesses (and their pthread calls), and none of them needed one.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4"

tsan_daemon=$PERFWATCHD
conf="$PW_WORK/perfwatchd.conf"
state="$PW_WORK/state"
record="$PW_WORK/samples.pwrec"
log="$PW_WORK/perfwatchd.log"
mkdir -p "$state"

# notify_lib's, with TSan's report first when there is one (halt_on_error: the daemon died of it).
pw_fail() {
	echo "FAIL: $*" >&2
	if grep -qs 'WARNING: ThreadSanitizer' "$log"; then
		echo "--- ThreadSanitizer's report in $log:" >&2
		sed -n '/WARNING: ThreadSanitizer/,/SUMMARY: ThreadSanitizer/p' "$log" >&2
	fi
	for f in "$PW_WORK"/*.log "$PW_WORK/events"; do
		[ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
	done
	exit 1
}
receiver_start
dead_port=$(pw_free_port) # nobody listens there: connections are refused

# systemd's side (sdproto.py); WATCHDOG_PID must name the daemon: a wrapper that execs it keeps its pid.
export NOTIFY_SOCKET="$PW_WORK/notify.sock" WATCHDOG_USEC=1000000
python3 "$PW_TESTS/e2e/sdproto.py" notify "$NOTIFY_SOCKET" "$PW_WORK/notify.txt" &
PW_PIDS+=("$!")
pw_wait_for 10 "the notify socket" test -S "$NOTIFY_SOCKET" || pw_fail "sdproto.py notify did not start"
PERFWATCHD="$PW_WORK/perfwatchd-watchdog"
printf '#!/bin/sh\nWATCHDOG_PID=$$ exec "%s" "$@"\n' "$tsan_daemon" >"$PERFWATCHD"
chmod +x "$PERFWATCHD"

# write_conf N: config variant N (0-3); 3 is invalid and must be rejected.
right='$2b$04$ked814RXI13WwpPz4C.dHeTwBFR1PpANMF8jKpFIc42Jvy5Pon6ji' # "right", bcrypt cost 4
write_conf() {
	local for=1s resolve=750ms level=info system=true header=1 protect='protect = /alerts /history'
	local receivers=(flaky am)
	case $1 in
	# 1 leaves /alerts open: users without a protect line would protect every endpoint.
	1) for=500ms resolve=1s level=debug system=false receivers=(flaky dead) protect='protect = /history' ;;
	2) header=2 receivers=(flaky am dead) protect='protect = /alerts /status /metrics' ;;
	esac
	printf 'token-%s\n' "$1" >"$PW_WORK/token.tmp"
	chmod 0600 "$PW_WORK/token.tmp"
	mv "$PW_WORK/token.tmp" "$PW_WORK/token"
	{
		printf '[perfwatchd]\nlog-level = %s\nbaseline-warmup = 5s\nalert-for = 1s\n' "$level"
		[ "$1" != 3 ] || printf 'interval = now and then\n'
		printf '\n[auth]\nuser.prom = %s\n%s\n' "$right" "$protect"
		printf '\n[rule.CpuFrequencyLow]\nfor = %s\nresolve = %s\n' "$for" "$resolve"
		printf '\n[rule.SystemTimeHigh]\nenabled = %s\n' "$system"
		for r in "${receivers[@]}"; do
			case $r in
			flaky) printf '\n[receiver.flaky]\ntype = webhook\nurl = %s/flaky\ntimeout = 1s\n' "$RX_URL"
				printf 'repeat_interval = 2s\nheader = X-Variant: %s\nbearer_token_file = %s\n' "$header" \
					"$PW_WORK/token" ;;
			am) printf '\n[receiver.am]\ntype = alertmanager\nurl = %s\ntimeout = 1s\n' "$RX_URL" ;;
			dead) printf '\n[receiver.dead]\ntype = webhook\nurl = http://127.0.0.1:%s/\n' "$dead_port" ;;
			esac
		done
	} >"$conf.tmp"
	mv "$conf.tmp" "$conf"
}

python3 "$PW_SCENARIO_PY" "$here/freq_hotplug.json" "$PW_WORK/tree" --tick 0.05 >"$PW_WORK/events" 2>"$PW_WORK/driver.err" &
PW_PIDS+=("$!")
pw_wait_for 20 "the first tree" grep -qs '"phase"' "$PW_WORK/events" || pw_fail "$(cat "$PW_WORK/driver.err")"
write_conf 0
started=$SECONDS
pw_start perfwatchd --config "$conf" --procfs "$PW_WORK/tree/proc" --sysfs "$PW_WORK/tree/sys" \
	--interval 250ms --history 2m --interrupts-per-cpu --state-dir "$state" --state-interval 500ms \
	--record "$record" --http-timeout 2s

python3 "$here/scrape.py" --port "$PW_PORT" --threads 3 --seconds "$seconds" \
	--slow-every 4 --slow-wait 6 --user prom:right >"$PW_WORK/scrape.json" 2>"$PW_WORK/scrape.err" &
scraper=$!
PW_PIDS+=("$scraper")

# Every 0.5 s: the receiver's next answer every third tick, a reload every fifth. "down" stops the
# receiver (connections refused) until the next answer starts it again on the same port.
modes=('{"mode": "ok"}' '{"mode": "error", "status": 500}' '{"mode": "slow", "delay": 0.5}'
	'{"mode": "hang"}' down '{"mode": "error", "status": 503}')
rx_down=0
reloads=0
for ((tick = 0; SECONDS - started < seconds; tick++)); do
	kill -0 "$PW_PID" 2>/dev/null || pw_fail "perfwatchd died"
	if [ $((tick % 3)) = 0 ]; then
		mode=${modes[$((tick / 3 % ${#modes[@]}))]}
		if [ "$mode" = down ]; then
			kill "$RX_PID"
			wait "$RX_PID" 2>/dev/null || true
			rx_down=$((rx_down + 1))
		else
			[ "$(curl -s -o /dev/null -w '%{http_code}' "$RX_URL/-/healthy")" = 200 ] || receiver_start "$RX_PORT"
			receiver_mode "$mode"
		fi
	fi
	if [ $((tick % 5)) = 4 ]; then
		write_conf $((reloads % 4))
		kill -HUP "$PW_PID"
		reloads=$((reloads + 1))
	fi
	sleep 0.5
done

# Let what waits in the queue go out: the receiver answers, the last config keeps flaky.
[ "$(curl -s -o /dev/null -w '%{http_code}' "$RX_URL/-/healthy")" = 200 ] || receiver_start "$RX_PORT"
receiver_mode '{"mode": "ok"}'
write_conf 0
kill -HUP "$PW_PID"
got() { rx_count log ".path == \"/flaky\" and .body.status == \"$1\""; }
delivered() { [ "$(got firing)" -ge 1 ] && [ "$(got resolved)" -ge 1 ]; }
pw_wait_for 40 "firing and resolved at /flaky" delivered ||
	pw_fail "the receiver got $(got firing) firing and $(got resolved) resolved messages"
wait "$scraper" || pw_fail "the scrapers failed: $(cat "$PW_WORK/scrape.err")"
pw_healthy || pw_fail "not healthy at the end"
errors=$(pw_get metrics | awk '/^perfwatch_parse_errors_total\{/ { n += $2 } END { print n + 0 }')

# Stop in the thick of it: scrapes under way, the firing alert's repeat hanging at the receiver.
receiver_mode '{"mode": "hang"}'
python3 "$here/scrape.py" --port "$PW_PORT" --threads 2 --seconds 4 >/dev/null 2>&1 &
PW_PIDS+=("$!")
in_flight() { [ "$(rx_count attempts '.mode == "hang"')" -gt "$1" ]; }
pw_wait_for 10 "a notification in flight" in_flight "$(rx_count attempts '.mode == "hang"')" ||
	pw_fail "no repeat of the firing alert reached the receiver"
pw_stop "$PW_PID"

echo "run: $((SECONDS - started)) s, $reloads reloads, the receiver stopped $rx_down times"
! grep -q ThreadSanitizer "$log" || pw_fail "ThreadSanitizer reported a race"

# The scrapers: every endpoint answered 200 (/healthz may say 503 when TSan slows the sampler past
# 3 intervals; /alerts without a password 401 while it is protected), never an error; the big
# bodies came gzipped when asked.
jq -c 'to_entries[] | [.key, .value.status // .value, .value.gzip]' "$PW_WORK/scrape.json"
bad=$(jq -r 'to_entries[] | select(.key != "slow") | select((.value.status | keys - ["200", "401", "503"] | length) > 0
	or (.key != "healthz" and (.value.status | has("503"))) or (.key != "alerts_noauth" and (.value.status | has("401")))
	or (.value.status["200"] // 0) < 1) | .key' "$PW_WORK/scrape.json")
[ -z "$bad" ] || pw_fail "endpoints not served throughout: $bad"
[ "$(jq '.metrics_gzip.gzip' "$PW_WORK/scrape.json")" -ge 1 ] || pw_fail "/metrics never came gzipped"
[ "$(jq '.history.gzip' "$PW_WORK/scrape.json")" -ge 1 ] || pw_fail "/history never came gzipped"
[ "$(jq '.slow.cut' "$PW_WORK/scrape.json")" -ge 3 ] && [ "$(jq '.slow.not_cut + .slow.error' "$PW_WORK/scrape.json")" = 0 ] ||
	pw_fail "half requests not cut by the guard: $(jq -c .slow "$PW_WORK/scrape.json")"

# What the run was meant to go through happened.
n_firing=$(grep -c 'alert CpuFrequencyLow pending -> firing' "$log" || true)
n_resolved=$(grep -c 'alert CpuFrequencyLow firing -> resolved' "$log" || true)
[ "$n_firing" -ge 2 ] && [ "$n_resolved" -ge 2 ] ||
	pw_fail "CpuFrequencyLow fired $n_firing and resolved $n_resolved times, want 2 each"
[ "$(grep -c 'reload: configuration .* applied' "$log")" -ge 3 ] || pw_fail "reloads not applied"
grep -q 'reload rejected' "$log" || pw_fail "the invalid config was not rejected"
[ "$(jq '.alerts_noauth.status["401"] // 0' "$PW_WORK/scrape.json")" -ge 1 ] || pw_fail "/alerts was never protected"
grep -q 'reload: \[auth\] applied' "$log" || pw_fail "[auth] never reloaded"
! grep -q 'token-[0-9]' "$log" || pw_fail "a bearer token in the log"
[ "$(rx_count log '.path == "/flaky" and (.headers.Authorization // "" | startswith("Bearer token-"))')" -ge 1 ] ||
	pw_fail "no delivery carried the bearer token file's token"
grep -q 'notifier: 3 receivers configured' "$log" || pw_fail "the receivers never changed"
[ "$(grep -c '"cpu_o[nf]*line"' "$PW_WORK/events")" -ge 4 ] || pw_fail "the CPUs did not go offline and back"
[ "$errors" = 0 ] || pw_fail "$errors parse errors"
for mode in error slow hang; do
	[ "$(rx_count attempts ".mode == \"$mode\"")" -ge 1 ] || pw_fail "the receiver never answered '$mode'"
done
[ "$(grep -c ' WATCHDOG=1$' "$PW_WORK/notify.txt")" -ge 20 ] && grep -q ' RELOADING=1$' "$PW_WORK/notify.txt" &&
	grep -q ' STATUS=.*alert.* firing: CpuFrequencyLow' "$PW_WORK/notify.txt" ||
	pw_fail "systemd notifications missing: $(tail -n 20 "$PW_WORK/notify.txt")"
[ -s "$state/baselines" ] && [ -f "$state/notifications" ] || pw_fail "state files missing: $(ls -l "$state")"
"$tsan_daemon" --config /dev/null --replay "$record" >"$PW_WORK/replay.out" 2>"$PW_WORK/replay.err" ||
	pw_fail "the recording does not replay: $(cat "$PW_WORK/replay.err")"
grep -q CpuFrequencyLow "$PW_WORK/replay.out" || pw_fail "the replay saw no CpuFrequencyLow"
! grep -q ThreadSanitizer "$PW_WORK/replay.err" || pw_fail "TSan in --replay: $(cat "$PW_WORK/replay.err")"
echo PASS
