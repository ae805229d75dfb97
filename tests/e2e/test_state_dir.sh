#!/usr/bin/env bash
# --state-dir: the baselines survive a restart (a restarted daemon is warm at once and serves the
# baselines the stopped one saved); a corrupt or foreign file is logged and ignored, never a crash;
# kill -9 at random moments while it saves every sample never leaves a file that does not load.
source "$(dirname "$0")/lib.sh"

tree="$PW_WORK/tree"
state="$PW_WORK/state"
mkdir -p "$state"
pw_copy_tree vm-2cpu-idle-1 "$tree"
base=(--procfs "$tree/proc" --sysfs "$tree/sys" --state-dir "$state" --baseline-warmup 1s)
files=(stat interrupts softirqs vmstat)

# A state dir that is missing or not a directory is a clear error, --check-config included.
out=$("$PERFWATCHD" --config /dev/null "${base[@]}" --state-dir "$PW_WORK/missing" --check-config 2>&1) &&
	pw_fail "a missing state dir was accepted"
grep -qF "state-dir: $PW_WORK/missing: No such file or directory" <<<"$out" || pw_fail "said: $out"
out=$("$PERFWATCHD" --config /dev/null "${base[@]}" --state-dir "$tree/proc/stat" --check-config 2>&1) &&
	pw_fail "a file as state dir was accepted"
grep -qF "not a directory" <<<"$out" || pw_fail "said: $out"
out=$("$PERFWATCHD" --config /dev/null "${base[@]}" --state-interval 1ms --check-config 2>&1) &&
	pw_fail "a 1ms state interval was accepted"
grep -qF "state-interval: must be at least 10ms" <<<"$out" || pw_fail "said: $out"
grep -q -- "--state-dir DIR" <<<"$("$PERFWATCHD" --help)" || pw_fail "--help does not list --state-dir"

# pw_wait_more N: N more samples than now.
pw_wait_more() {
	local now
	now=$(pw_metric perfwatch_samples_total)
	pw_wait_samples $((${now:-0} + $1))
}

# The baseline means /metrics shows, one "signal value" line each.
baseline_means() {
	pw_get metrics | awk '/^perfwatch_baseline_mean\{/ { print $1, $2 }'
}

warm_is() { [ "$(pw_metric perfwatch_detector_warm)" = "$1" ]; }

# 1. Learn from a tree that moves, until warm; SIGTERM saves.
pw_start learn "${base[@]}" --interval 100ms --state-interval 1m
[ -e "$state/baselines" ] && pw_fail "saved before the save period or the shutdown"
pw_wait_more 2
pw_rewrite "$PW_FIXTURES/kernels/vm-2cpu-idle-2/proc" "$tree/proc" "${files[@]}"
pw_wait_more 2
pw_rewrite "$PW_FIXTURES/kernels/vm-2cpu-idle-3/proc" "$tree/proc" "${files[@]}"
pw_wait_more 2
pw_wait_for 20 "warm" warm_is 1
pw_stop "$PW_PID"
[ -s "$state/baselines" ] || pw_fail "no baselines file after SIGTERM"
[ -e "$state/baselines.tmp" ] && pw_fail "temporary file left behind"
grep -q "no saved baselines yet" "$PW_WORK/learn.log" || pw_fail "first start did not say it learns from scratch"

# 2. Restart with a 10 s interval: the first sample learns nothing (no interval yet), so the first
# scrape shows exactly what was saved, and warm at once (the warmup was learned before).
pw_start restart1 "${base[@]}" --interval 10s
pw_wait_for 20 "warm after restart" warm_is 1
grep -q "baselines loaded" "$PW_WORK/restart1.log" || pw_fail "restart did not load: $(cat "$PW_WORK/restart1.log")"
first=$(baseline_means)
awk '$1 ~ /interrupts_per_second/ && $2 > 0 { found = 1 } END { exit !found }' <<<"$first" ||
	pw_fail "interrupts_per_second baseline not learned: $first"
pw_stop "$PW_PID"
pw_start restart2 "${base[@]}" --interval 10s
pw_wait_for 20 "warm after the second restart" warm_is 1
second=$(baseline_means)
[ "$first" = "$second" ] || pw_fail "baselines changed across a restart: $(diff <(echo "$first") <(echo "$second"))"
pw_stop "$PW_PID"
good=$(cat "$state/baselines" | base64 -w0)

# 3. A corrupt, a truncated and a foreign file: logged, ignored, served, relearned (not warm).
printf 'garbage, not baselines\n' >"$state/baselines"
pw_start corrupt "${base[@]}" --interval 10s
grep -q "corrupt or truncated: ignored, relearning" "$PW_WORK/corrupt.log" || pw_fail "corrupt file not reported"
pw_wait_for 20 "a judged sample" pw_has_metric '^perfwatch_detector_warm 0$'
pw_stop "$PW_PID"
# Not `base64 -d | head`: head leaving early can kill base64 with SIGPIPE (141, fatal under pipefail).
base64 -d <<<"$good" >"$PW_WORK/good"
head -c 100 "$PW_WORK/good" >"$state/baselines"
pw_start truncated "${base[@]}" --interval 10s
grep -q "corrupt or truncated: ignored, relearning" "$PW_WORK/truncated.log" || pw_fail "truncated file not reported"
pw_stop "$PW_PID"
{ printf 'PWBL\003\000\000\000'; base64 -d <<<"$good" | tail -c +9; } >"$state/baselines"
pw_start foreign "${base[@]}" --interval 10s
grep -q "foreign format or version: ignored, relearning" "$PW_WORK/foreign.log" || pw_fail "foreign version not reported"
pw_stop "$PW_PID"

# 4. Saving every sample, killed at random moments: each restart finds a file that loads.
base64 -d <<<"$good" >"$state/baselines"
for i in $(seq 1 30); do
	pw_start "kill$i" "${base[@]}" --interval 10ms --state-interval 10ms
	grep -q "baselines loaded" "$PW_WORK/kill$i.log" || pw_fail "after kill -9 no. $((i - 1)): $(cat "$PW_WORK/kill$i.log")"
	grep -q "ignored" "$PW_WORK/kill$i.log" && pw_fail "after kill -9 no. $((i - 1)): $(cat "$PW_WORK/kill$i.log")"
	sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
	kill -KILL "$PW_PID"
	wait "$PW_PID" 2>/dev/null || true
done
pw_start afterkills "${base[@]}" --interval 10s
grep -q "baselines loaded" "$PW_WORK/afterkills.log" || pw_fail "last restart did not load"
pw_wait_for 20 "warm after the kills" warm_is 1
pw_stop "$PW_PID"
echo "PASS"
