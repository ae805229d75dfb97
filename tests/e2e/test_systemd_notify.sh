#!/usr/bin/env bash
# Type=notify without systemd: a Python NOTIFY_SOCKET listener stands in for PID 1. READY=1 comes
# once /healthz answers; STATUS= lines name samples and alerts and are refreshed; WATCHDOG=1 comes
# from the sampler at half of WATCHDOG_USEC when WATCHDOG_PID is the daemon, never when it is not;
# STOPPING=1 and exit 0 on SIGTERM.
source "$(dirname "$0")/lib.sh"

tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"
sock="$PW_WORK/notify.sock"
msgs="$PW_WORK/notify.txt"
: >"$msgs"

python3 "$PW_TESTS/e2e/sdproto.py" notify "$sock" "$msgs" &
PW_PIDS+=($!)
pw_wait_for 10 "the notify socket" test -S "$sock"

# WATCHDOG_PID must name the daemon itself: a wrapper that execs it keeps its pid.
wrapper="$PW_WORK/perfwatchd-wd"
printf '#!/bin/sh\nWATCHDOG_PID=$$ exec "%s" "$@"\n' "$PERFWATCHD" >"$wrapper"
chmod +x "$wrapper"

has() { grep -q " $1\$" "$msgs"; }

# 1. READY=1, and at that moment /healthz answers: the first sample is in and the socket listens.
PW_PORT=$(pw_free_port)
PW_URL="http://127.0.0.1:$PW_PORT"
NOTIFY_SOCKET="$sock" WATCHDOG_USEC=1000000 "$wrapper" --config /dev/null --listen "127.0.0.1:$PW_PORT" \
	--procfs "$tree/proc" --sysfs "$tree/sys" --interval 200ms >"$PW_WORK/notify.log" 2>&1 &
PW_PID=$!
PW_PIDS+=("$PW_PID")
pw_wait_for 20 "READY=1" has READY=1 || pw_fail "no READY=1: $(cat "$PW_WORK/notify.log")"
code=$(curl -s -o /dev/null -w '%{http_code}' "$PW_URL/healthz")
[ "$code" = 200 ] || pw_fail "READY=1 sent but /healthz answered $code"

# 2. STATUS=: one with READY, then refreshed (every 5 s) with more samples.
first_status=$(grep -m1 ' STATUS=' "$msgs") || pw_fail "no STATUS= with READY"
grep -qE 'STATUS=sampling every 0\.2 s, [0-9]+ samples, learning baselines; 0 alerts firing$' <<<"$first_status" ||
	pw_fail "unexpected STATUS line: $first_status"
two_statuses() { [ "$(grep -c ' STATUS=' "$msgs")" -ge 2 ]; }
pw_wait_for 15 "a refreshed STATUS=" two_statuses || pw_fail "STATUS= not refreshed: $(cat "$msgs")"
samples() { sed -n "${1}p" <(grep ' STATUS=' "$msgs") | sed -E 's/.*, ([0-9]+) samples.*/\1/'; }
[ "$(samples 2)" -gt "$(samples 1)" ] || pw_fail "the sample count in STATUS did not grow: $(grep STATUS "$msgs")"

# 3. WATCHDOG=1 every 0.5 s (half of 1 s), from the sampler.
grep -q "systemd watchdog: 1 s; the sampler pings every 0.5 s" "$PW_WORK/notify.log" ||
	pw_fail "watchdog not announced: $(cat "$PW_WORK/notify.log")"
enough_pings() { [ "$(grep -c ' WATCHDOG=1$' "$msgs")" -ge 8 ]; }
pw_wait_for 15 "8 watchdog pings" enough_pings || pw_fail "too few WATCHDOG=1: $(cat "$msgs")"
grep ' WATCHDOG=1$' "$msgs" | awk '
	NR > 1 { gap = $1 - prev; if (gap < 0.35 || gap > 0.8) bad = bad " " gap; n++ }
	{ prev = $1 }
	END { if (bad != "") { print "watchdog gaps out of 0.35..0.8 s:" bad; exit 1 } }' ||
	pw_fail "WATCHDOG=1 cadence wrong: $(grep WATCHDOG "$msgs" | tr '\n' ' ')"

# 3b. A hung sampler (only its thread stopped, by ptrace) stops the pings while HTTP still answers,
# so systemd would restart the service; they resume when it runs again.
if window=$(python3 "$PW_TESTS/e2e/sdproto.py" freeze "$PW_PID" pw-sampler 2.5 2>"$PW_WORK/freeze.err"); then
	read -r from to <<<"$window"
	# Pings received between 0.1 s after FROM (one sent just before may still be in flight) and TO.
	pings_in() { grep ' WATCHDOG=1$' "$msgs" | awk -v a="$1" -v b="$2" '$1 > a + 0.1 && $1 < b' | wc -l; }
	[ "$(pings_in "$from" "$to")" = 0 ] ||
		pw_fail "WATCHDOG=1 while the sampler was stopped ($from..$to): $(grep WATCHDOG "$msgs" | tail -8 | tr '\n' ' ')"
	resumed() { [ "$(pings_in "$to" 1e12)" -ge 2 ]; }
	pw_wait_for 10 "pings after the sampler runs again" resumed || pw_fail "pings did not resume"
	echo "no WATCHDOG=1 in the 2.5 s the sampler was stopped; resumed after"
elif grep -q "^ptrace:" "$PW_WORK/freeze.err"; then
	echo "hung-sampler check skipped: $(cat "$PW_WORK/freeze.err")"
else
	pw_fail "freeze: $(cat "$PW_WORK/freeze.err")"
fi

# 4. SIGTERM: STOPPING=1, exit 0.
pw_stop "$PW_PID"
has STOPPING=1 || pw_fail "no STOPPING=1"

# 5. WATCHDOG_PID naming another process (the variables leaked from a parent): no pings. And an
# alert firing shows in STATUS= by name (IoWaitHigh made to fire at once: absolute, no pending).
: >"$msgs"
load_tree="$PW_WORK/load-tree"
pw_copy_tree vm-2cpu-load-1 "$load_tree"
printf '[rule.IoWaitHigh]\nthreshold = 0\ncritical = 1\nsigmas = 0\nfor = 0s\nresolve = 1h\n' >"$PW_WORK/alert.conf"
NOTIFY_SOCKET="$sock" WATCHDOG_USEC=200000 WATCHDOG_PID=1 \
	pw_start nowd --config "$PW_WORK/alert.conf" --procfs "$load_tree/proc" --sysfs "$load_tree/sys" \
	--interval 100ms --baseline-warmup 0s
pw_wait_for 20 "READY=1" has READY=1 || pw_fail "no READY=1 in the second run"
pw_wait_samples 2
pw_rewrite "$PW_FIXTURES/kernels/vm-2cpu-load-2/proc" "$load_tree/proc" stat interrupts softirqs vmstat
alert_status() { grep -qE ' STATUS=sampling every 0\.1 s, [0-9]+ samples; 1 alert firing: IoWaitHigh$' "$msgs"; }
pw_wait_for 15 "STATUS= naming the firing alert" alert_status || pw_fail "no alert in STATUS=: $(grep STATUS "$msgs")"
grep -q 'WATCHDOG=1' "$msgs" && pw_fail "pinged a watchdog meant for pid 1"
grep -q "systemd watchdog" "$PW_WORK/nowd.log" && pw_fail "announced a watchdog meant for pid 1"
pw_stop "$PW_PID"
echo "PASS: READY after healthz, STATUS refreshed and naming alerts, WATCHDOG every ~0.5 s, STOPPING, no foreign watchdog"
