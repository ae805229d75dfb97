#!/usr/bin/env bash
# SIGHUP reloads the config file without losing baselines: a broken file is rejected with one line
# naming file:line and nothing changes; a valid one changes rule settings (seen in /status
# detector.rules) and the log level at once, names what needs a restart, and flags still override
# the file; a firing alert stays firing. SIGTERM stops accepting, writes the state file and exits 0
# within 2 s.
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"

tree="$PW_WORK/tree"
state="$PW_WORK/state"
conf="$PW_WORK/perfwatchd.conf"
mkdir -p "$state"
pw_copy_tree vm-2cpu-idle-1 "$tree"
files=(stat interrupts softirqs vmstat)
cat >"$conf" <<'EOF'
[perfwatchd]
log-level = info
[rule.InterruptRateDrop]
for = 3s
EOF
base=(--config "$conf" --procfs "$tree/proc" --sysfs "$tree/sys" --state-dir "$state" --baseline-warmup 1s)

baseline_means() { pw_get metrics | awk '/^perfwatch_baseline_mean\{/ { print $1, $2 }'; }
warm_is() { [ "$(pw_metric perfwatch_detector_warm)" = "$1" ]; }
rule() { pw_get status | jq -cS ".detector.rules.$1"; }
pw_wait_more() {
	local now
	now=$(pw_metric perfwatch_samples_total)
	pw_wait_samples $((${now:-0} + $1))
}

# 1. Learn on a moving tree until warm; SIGTERM saves the baselines.
pw_start learn "${base[@]}" --interval 100ms
pw_wait_more 2
pw_rewrite "$PW_FIXTURES/kernels/vm-2cpu-idle-2/proc" "$tree/proc" "${files[@]}"
pw_wait_more 2
pw_rewrite "$PW_FIXTURES/kernels/vm-2cpu-idle-3/proc" "$tree/proc" "${files[@]}"
pw_wait_more 2
pw_wait_for 20 "warm" warm_is 1
pw_stop "$PW_PID"

# 2. Restart with a 30 s interval: loaded baselines, and no further sample to move them during the
# reloads below, so they must stay exactly as they are.
pw_start reload "${base[@]}" --interval 30s
log="$PW_WORK/reload.log"
pw_wait_for 20 "warm" warm_is 1
before=$(baseline_means)
[ -n "$before" ] || pw_fail "no baselines served"
[ "$(rule InterruptRateDrop)" = '{"adopt_seconds":120,"critical":0.05,"enabled":true,"for_seconds":3,"resolve_seconds":90,"sigmas":4,"threshold":0.5}' ] ||
	pw_fail "unexpected rule settings at start: $(rule InterruptRateDrop)"

# 3. A broken file (a good line before the bad one must not leak in): one line, nothing changes.
cat >"$conf" <<'EOF'
[perfwatchd]
log-level = debug
[rule.InterruptRateDrop]
enabled = false
for = 5x
EOF
kill -HUP "$PW_PID"
rejected() { grep -qF "reload rejected: $conf:5: invalid duration '5x' (want e.g. 5s, 30s, 2m); keeping the running configuration" "$log"; }
pw_wait_for 10 "the rejection line" rejected || pw_fail "no rejection line: $(cat "$log")"
[ "$(grep -c 'reload rejected' "$log")" = 1 ] || pw_fail "more than one line for a rejected reload"
pw_healthy || pw_fail "not serving after a rejected reload"
[ "$(rule InterruptRateDrop | jq -c '[.enabled, .for_seconds]')" = '[true,3]' ] ||
	pw_fail "a rejected reload changed the rule: $(rule InterruptRateDrop)"
[ "$(baseline_means)" = "$before" ] || pw_fail "baselines changed on a rejected reload"

# 4. A valid file: rule settings and log level apply; history needs a restart; the command line's
# --baseline-warmup 1s and --interval 30s still beat the file (else the detector would no longer
# be warm, and the resolve times would follow an interval that is not in effect).
cat >"$conf" <<'EOF'
[perfwatchd]
log-level = debug
interval = 2s
history = 2h
baseline-warmup = 1h
[rule.InterruptRateDrop]
enabled = false
for = 7s
[rule.StealHigh]
threshold = 0.3
EOF
kill -HUP "$PW_PID"
applied() { grep -q "reload: new rule settings in effect in the detector" "$log"; }
pw_wait_for 10 "the detector to take the new settings" applied || pw_fail "not applied: $(cat "$log")"
grep -qF "reload: configuration $conf applied" "$log" || pw_fail "no 'applied' line"
grep -qF "reload: history changed; needs a restart (still running with the old value)" "$log" ||
	pw_fail "the history change was not named: $(cat "$log")"
grep -qF "reload: rule InterruptRateDrop: enabled=false for=7s" "$log" || pw_fail "rule change not logged"
grep -q "baseline-warmup" "$log" && pw_fail "the file's baseline-warmup beat the command line"
[ "$(rule InterruptRateDrop | jq -c '[.enabled, .for_seconds]')" = '[false,7]' ] ||
	pw_fail "rule settings not applied: $(rule InterruptRateDrop)"
[ "$(rule StealHigh | jq -c .threshold)" = 0.3 ] || pw_fail "StealHigh threshold not applied"
[ "$(pw_metric perfwatch_interval_seconds)" = 30 ] || pw_fail "the interval changed without a restart: $(pw_metric perfwatch_interval_seconds)"
warm_is 1 || pw_fail "no longer warm after the reload"
[ "$(baseline_means)" = "$before" ] || pw_fail "baselines changed across the reloads"

# 5. SIGTERM: exit 0 within 2 s, state written (the file is removed first), and the save is logged at
# debug level, which only the reload turned on.
rm -f "$state/baselines"
start=$(date +%s%N)
pw_stop "$PW_PID"
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
echo "SIGTERM to exit: ${elapsed_ms} ms"
[ "$elapsed_ms" -lt 2000 ] || pw_fail "took ${elapsed_ms} ms to stop"
[ -s "$state/baselines" ] || pw_fail "no state file written at shutdown"
grep -q "baselines saved to $state/baselines" "$log" || pw_fail "the reloaded debug level did not apply"
grep -q "SIGTERM\|Terminated" "$log" || pw_fail "stop not logged"
echo "rejected and applied reloads, baselines kept, SIGTERM stop in ${elapsed_ms} ms"

# 6. Alert state survives a reload: an IoWaitHigh made to fire at once (absolute, no pending time)
# and to hold for an hour stays firing, with the same start, across a reload that changes another rule.
alert_tree="$PW_WORK/alert-tree"
pw_copy_tree vm-2cpu-load-1 "$alert_tree"
cat >"$conf" <<'EOF2'
[rule.IoWaitHigh]
threshold = 0
critical = 1
sigmas = 0
for = 0s
resolve = 1h
EOF2
pw_start alert --config "$conf" --procfs "$alert_tree/proc" --sysfs "$alert_tree/sys" --interval 100ms --baseline-warmup 0s
pw_wait_samples 2
pw_rewrite "$PW_FIXTURES/kernels/vm-2cpu-load-2/proc" "$alert_tree/proc" "${files[@]}"
firing() { [ "$(pw_get alerts | jq -r '.alerts[] | select(.name == "IoWaitHigh") | .state')" = firing ]; }
pw_wait_for 20 "IoWaitHigh firing" firing || pw_fail "the alert did not fire: $(pw_get alerts)"
started=$(pw_get alerts | jq -r '.alerts[] | select(.name == "IoWaitHigh") | .started_at')
printf '[rule.StealHigh]\nthreshold = 0.2\n' >>"$conf"
kill -HUP "$PW_PID"
pw_wait_for 10 "the reload" grep -q "reload: new rule settings in effect" "$PW_WORK/alert.log" || pw_fail "not reloaded"
[ "$(rule StealHigh | jq -c .threshold)" = 0.2 ] || pw_fail "StealHigh threshold not applied"
firing || pw_fail "the alert is no longer firing after the reload: $(pw_get alerts)"
[ "$(pw_get alerts | jq -r '.alerts[] | select(.name == "IoWaitHigh") | .started_at')" = "$started" ] ||
	pw_fail "the alert restarted across the reload"
grep -c "alert IoWaitHigh" "$PW_WORK/alert.log" | grep -qx 1 || pw_fail "extra transitions: $(grep alert "$PW_WORK/alert.log")"
pw_stop "$PW_PID"
echo "PASS: a firing alert kept its state and start across a reload"
