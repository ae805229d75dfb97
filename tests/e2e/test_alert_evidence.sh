#!/usr/bin/env bash
# The alert probes in the real daemon (also under ASan): a live tree plays incident 5 (lock
# contention) with six processes burning system time; /alerts must name the top one by pid and
# comm, with its share of a CPU, while SystemTimeHigh fires, and /status must carry the same list.
# The log must show no probe trouble and the daemon must stop cleanly.
source "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || pw_skip "python3 not installed"
command -v jq >/dev/null || pw_skip "jq not installed"
scenarios="$PW_TESTS/scenarios"
tree="$PW_WORK/tree"

python3 "$scenarios/pwscenario.py" incident5_lock_contention "$tree" --tick 0.05 \
	--param baseline=8 --param incident=30 --param recovery=1 >"$PW_WORK/events" 2>"$PW_WORK/driver.err" &
PW_PIDS+=($!)
pw_wait_for 20 "the first tree" grep -qs '"phase"' "$PW_WORK/events" || pw_fail "driver: $(cat "$PW_WORK/driver.err")"
pw_start evidence --procfs "$tree/proc" --sysfs "$tree/sys" --interval 500ms --baseline-warmup 4s --alert-for 1s

# Firing, and the probes have had their second look (the first only starts the window).
evidence_ready() {
	local doc
	doc=$(pw_get alerts) || return 1
	jq -e '.alerts[] | select(.name == "SystemTimeHigh" and .state == "firing")
		| select(.evidence.processes.status == "ok")' <<<"$doc" >/dev/null
}
pw_wait_for 40 "SystemTimeHigh firing with process evidence" evidence_ready || pw_fail "no evidence: $(pw_get alerts)"

doc=$(pw_get alerts)
ev=$(jq -c '.alerts[] | select(.name == "SystemTimeHigh") | .evidence.processes' <<<"$doc")
[ "$(jq -r '.top[0].pid' <<<"$ev")" = 4242 ] || pw_fail "top process is not pid 4242: $ev"
[ "$(jq -r '.top[0].comm' <<<"$ev")" = reader ] || pw_fail "top comm is not reader: $ev"
[ "$(jq -r '.top[1].comm' <<<"$ev")" = "read) (er" ] || pw_fail "a comm with ') (' was misread: $ev"
jq -e '.top[0].system_percent_of_cpu >= 50 and .top[0].system_percent_of_cpu <= 75' <<<"$ev" >/dev/null ||
	pw_fail "pid 4242 should take ~62% of a CPU in system time: $ev"
jq -e '.system_cpus > 2.5 and .system_cpus < 3.8 and .truncated == false and .processes_scanned == 8' \
	<<<"$ev" >/dev/null || pw_fail "totals over the 8 processes are off: $ev"
jq -r '.alerts[] | select(.name == "SystemTimeHigh") | .description' <<<"$doc" |
	grep -q 'Most system time: reader (pid 4242)' || pw_fail "the description does not name the process"
status=$(pw_get status)
jq -e '.alerts[] | select(.name == "SystemTimeHigh") | .evidence.processes.top[0].pid == 4242' \
	<<<"$status" >/dev/null || pw_fail "/status does not carry the evidence"

pw_stop "$PW_PID"
! grep -qiE 'sanitizer|runtime error' "$PW_WORK/evidence.log" || pw_fail "$(cat "$PW_WORK/evidence.log")"
echo PASS
