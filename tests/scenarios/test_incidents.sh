#!/usr/bin/env bash
# The detector end to end: each incident of INCIDENTS.md (and its traps) is played on a live fixture
# tree (pwscenario.py) under the real daemon, and expect_alerts.py follows /alerts: the expected
# alert fires within the pending time plus two intervals of onset, resolves after recovery, and
# nothing else fires. Short figures to stay fast: 1 s interval (per-CPU shares come in whole ticks,
# 1% at 1 s, 5% at 200 ms), 6 s warmup, 2 s pending, resolve after 3 clear intervals.
source "$(dirname "$0")/../e2e/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
interval=1 pending=2 resolve=3
phases=(--param baseline=9 --param incident=6 --param recovery=6)
jobs=${PW_SCENARIO_JOBS:-8}

scenarios=(
	incident1_irq_time:1cpu incident1_irq_time:4cpu incident2_ondemand:ondemand incident3_irq_drop:4k
	incident3_irq_drop:2k incident4_swapping incident5_lock_contention
	incident2_ondemand:performance incident2_ondemand:idle traps:user_ramp traps:irq_spike
	traps:cpu_hotplug traps:pressure_io_gone traps:new_irq traps:counter_reset traps:intel_turbo
)
# PW_SCENARIOS="spec[:variant] ..." runs only those (while working on one).
[ -z "${PW_SCENARIOS:-}" ] || read -ra scenarios <<<"$PW_SCENARIOS"

declare -A driver_pid daemon_pid judge_pid
start() {
	local spec=$1 dir="$PW_WORK/${1//:/-}"
	mkdir -p "$dir"
	# The clock runs from the start: a tree that stands still while the daemon starts would teach
	# the baselines rates of zero, which no kernel ever shows.
	python3 "$here/pwscenario.py" "$spec" "$dir/tree" --tick 0.05 "${phases[@]}" >"$dir/events" 2>"$dir/driver.err" &
	driver_pid[$spec]=$!
	PW_PIDS+=($!)
	pw_wait_for 20 "$spec's first tree" grep -qs '"phase"' "$dir/events" || pw_fail "$spec: $(cat "$dir/driver.err")"
	pw_start "${spec//:/-}" --procfs "$dir/tree/proc" --sysfs "$dir/tree/sys" --interval 1s \
		--baseline-warmup 6s --alert-for ${pending}s
	daemon_pid[$spec]=$PW_PID
	python3 "$here/expect_alerts.py" "$spec" --url "$PW_URL" --events "$dir/events" \
		--interval $interval --for $pending --resolve $resolve "${phases[@]}" >"$dir/judge.out" 2>&1 &
	judge_pid[$spec]=$!
	PW_PIDS+=($!)
}

failed=()
finish() {
	local spec=$1 dir="$PW_WORK/${1//:/-}" rc=0
	wait "${judge_pid[$spec]}" || rc=$?
	cat "$dir/judge.out"
	[ "$rc" = 0 ] || failed+=("$spec")
	wait "${driver_pid[$spec]}" || true
	pw_stop "${daemon_pid[$spec]}"
	grep -h 'alert ' "$PW_WORK/${spec//:/-}.log" | sed 's/^/    log: /' || true
}

pw_pool "$jobs" start finish "${scenarios[@]}"
[ "${#failed[@]}" = 0 ] || pw_fail "scenarios failed: ${failed[*]}"
echo PASS
