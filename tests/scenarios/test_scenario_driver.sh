#!/usr/bin/env bash
# The scenario driver against the real daemon: every spec (and variant) of tests/scenarios/specs runs
# on its own live tree with its own perfwatchd at --interval 200ms, and check_scenario.py checks that
# /status reports, phase by phase, the shares, rates, frequencies and levels the spec describes —
# and the incident figures of INCIDENTS.md the spec carries. Before that, quick checks of the driver
# itself: every spec loads and writes a tree, the files keep their inode while they change, a bad
# spec is refused. Phases are short (3 s + 4 s + 3 s), scenarios run $PW_SCENARIO_JOBS at a time.
source "$(dirname "$0")/../e2e/lib.sh"

command -v python3 >/dev/null || pw_skip "python3 not installed"
command -v curl >/dev/null || pw_skip "curl not installed"

here=$(cd "$(dirname "$0")" && pwd)
driver="$here/pwscenario.py"
tick=${PW_SCENARIO_TICK:-0.05}
jobs=${PW_SCENARIO_JOBS:-8}
phases=(--param baseline=3 --param incident=4 --param recovery=3)

# --- the driver alone -------------------------------------------------------------------------
# (Every spec and variant also writes its first tree in the scenario runs below.)
python3 "$driver" incident2_ondemand "$PW_WORK/freq" --init-only || pw_fail "incident2_ondemand --init-only"
[ -L "$PW_WORK/freq/sys/devices/system/cpu/cpu3/cpufreq" ] || pw_fail "cpu3/cpufreq is not a link to its policy"
[ -s "$PW_WORK/freq/sys/devices/system/cpu/cpu3/cpufreq/stats/time_in_state" ] || pw_fail "no time_in_state"
rc=0
python3 "$driver" incident1_irq_time:nosuch "$PW_WORK/bad" --init-only 2>/dev/null || rc=$?
[ "$rc" = 2 ] || pw_fail "an unknown variant exited $rc, want 2"

# The files change in place: same inode before and after a run, counters further on.
tree="$PW_WORK/inode"
python3 "$driver" traps:irq_spike "$tree" --init-only
before=$(stat -c %i "$tree/proc/stat" "$tree/proc/interrupts" "$tree/proc/meminfo")
ctxt0=$(awk '$1 == "ctxt" { print $2 }' "$tree/proc/stat")
python3 "$driver" traps:irq_spike "$tree" --param baseline=0.3 --param incident=0.3 --param recovery=0.3 \
	--param spike=0.1 --tick 0.02 >"$PW_WORK/inode.events" || pw_fail "driver exited $?"
[ "$(stat -c %i "$tree/proc/stat" "$tree/proc/interrupts" "$tree/proc/meminfo")" = "$before" ] ||
	pw_fail "the driver replaced files instead of rewriting them in place"
ctxt1=$(awk '$1 == "ctxt" { print $2 }' "$tree/proc/stat")
[ "$ctxt1" -gt "$ctxt0" ] || pw_fail "ctxt did not advance ($ctxt0 -> $ctxt1)"
[ "$(grep -c '"phase"' "$PW_WORK/inode.events")" = 3 ] || pw_fail "want 3 phase lines: $(cat "$PW_WORK/inode.events")"
tail -n1 "$PW_WORK/inode.events" | grep -q '"event": "end"' || pw_fail "no end line"

# --- against perfwatchd -----------------------------------------------------------------------
# name | spec | extra driver/checker args
scenarios=(
	"i1-1cpu|incident1_irq_time:1cpu|"
	"i1-4cpu|incident1_irq_time:4cpu|"
	"i2-ondemand|incident2_ondemand:ondemand|"
	"i2-performance|incident2_ondemand:performance|"
	"i2-idle|incident2_ondemand:idle|"
	"i3-4k|incident3_irq_drop:4k|"
	"i3-2k-speed2|incident3_irq_drop:2k|--speed 2 --param baseline=6 --param incident=8 --param recovery=6"
	"i4|incident4_swapping|"
	"i5|incident5_lock_contention|"
	"t-user-ramp|traps:user_ramp|"
	"t-irq-spike|traps:irq_spike|--param spike=0.2"
	"t-hotplug|traps:cpu_hotplug|"
	"t-psi-gone|traps:pressure_io_gone|"
	"t-new-irq|traps:new_irq|"
	"t-reset|traps:counter_reset|"
	"t-intel-turbo|traps:intel_turbo|"
	"json-vm-build|vm_build_job|"
)

declare -A driver_pid daemon_pid checker_pid
# start_scenario NAME SPEC EXTRA: the driver writes the t=0 tree and holds, perfwatchd starts on it,
# and the checker, once it reads /status, starts the driver's clock (SIGUSR1) and follows both.
start_scenario() {
	local name=$1 spec=$2 dir="$PW_WORK/$1"
	local -a extra
	read -r -a extra <<<"$3"
	mkdir -p "$dir"
	python3 "$driver" "$spec" "$dir/tree" --hold --tick "$tick" "${phases[@]}" "${extra[@]}" \
		>"$dir/events" 2>"$dir/driver.err" &
	driver_pid[$name]=$!
	PW_PIDS+=($!)
	pw_wait_for 20 "$name's first tree" grep -qs '"ready"' "$dir/events" || pw_fail "$name: $(cat "$dir/driver.err")"
	pw_start "$name" --procfs "$dir/tree/proc" --sysfs "$dir/tree/sys" --interval 200ms
	daemon_pid[$name]=$PW_PID
	python3 "$here/check_scenario.py" "$spec" --url "$PW_URL" --events "$dir/events" --tick "$tick" \
		--release "${driver_pid[$name]}" --save "$dir/status.jsonl" "${phases[@]}" "${extra[@]}" \
		>"$dir/check.out" 2>&1 &
	checker_pid[$name]=$!
	PW_PIDS+=($!)
}

# finish_scenario NAME: wait for its checker and driver, stop its daemon; prints the verdict.
failed=()
finish_scenario() {
	local name=$1 dir="$PW_WORK/$1" rc=0
	wait "${checker_pid[$name]}" || rc=$?
	sed 's/^/    /' "$dir/check.out"
	[ "$rc" = 0 ] || failed+=("$name")
	rc=0
	wait "${driver_pid[$name]}" || rc=$?
	[ "$rc" = 0 ] || failed+=("$name(driver exit $rc)")
	[ ! -s "$dir/driver.err" ] || sed 's/^/    driver: /' "$dir/driver.err"
	pw_stop "${daemon_pid[$name]}"
}

# Entries are NAME|SPEC|EXTRA; the pool hands each whole entry to both ends.
start_entry() {
	local name spec extra
	IFS='|' read -r name spec extra <<<"$1"
	start_scenario "$name" "$spec" "$extra"
}
finish_entry() { finish_scenario "${1%%|*}"; }
pw_pool "$jobs" start_entry finish_entry "${scenarios[@]}"

[ "${#failed[@]}" = 0 ] || pw_fail "scenarios failed: ${failed[*]}"

# The checker does tell a different scenario apart: the 4k pause (~1 000/s, idle 100 %) replayed
# against the 2k spec (18 424/s, idle 67 %) must fail on those very figures.
out=$(python3 "$here/check_scenario.py" incident3_irq_drop:2k --replay "$PW_WORK/i3-4k/status.jsonl" \
	--events "$PW_WORK/i3-4k/events" --tick "$tick" "${phases[@]}") && pw_fail "the checker passed 4k as 2k"
grep -q 'incident: intr = ' <<<"$out" || pw_fail "the 2k/4k mix-up was not caught on intr: $out"
grep -q 'incident: cpu.0.idle = ' <<<"$out" || pw_fail "the 2k/4k mix-up was not caught on cpu.0.idle: $out"
echo PASS
