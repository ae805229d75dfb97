#!/usr/bin/env bash
# Incident 2's evidence end to end: the interval-average frequency from time_in_state deltas (not the
# instantaneous scaling_cur_freq), then a CPU going offline and coming back: its series vanish and
# return, nothing fails to parse, and no counter reset turns into a rate.
source "$(dirname "$0")/lib.sh"

freq="$PW_FIXTURES/cpufreq/acpi-ondemand-16cpu"
tree="$PW_WORK/tree"
mkdir -p "$tree"
cp -r "$PW_FIXTURES/kernels/host-16cpu-load-1/proc" "$tree/"
cp -a "$freq/t0/sys" "$tree/" # -a keeps cpuN/cpufreq -> ../cpufreq/policyN links
pw_start freq --procfs "$tree/proc" --sysfs "$tree/sys" --interval 1s

metric() { pw_metric "$1"; }
samples() { metric perfwatch_samples_total; }
grep_metrics() { pw_has_metric "$1"; }

pw_wait_samples 2 || pw_fail "no second sample"
grep_metrics '^perfwatch_cpu_frequency_info\{cpu="3",governor="ondemand",driver="acpi-cpufreq",source="[a-z_]+"\} 1$' ||
	pw_fail "no governor/driver info for cpu 3"
[ "$(metric 'perfwatch_cpu_frequency_max_hertz{cpu="3"}')" = 2000000000 ] || pw_fail "max frequency"

# 10 s of ondemand life in one interval: the averages of the incident (README of the fixture).
policies=$(cd "$freq/t1/sys" && find . -path '*/stats/time_in_state' | sed 's|^\./||')
# shellcheck disable=SC2086
pw_rewrite "$freq/t1/sys" "$tree/sys" $policies
averaged() {
	[ "$(metric 'perfwatch_cpu_frequency_hertz{cpu="3"}')" = 1940000000 ] &&
		[ "$(metric 'perfwatch_cpu_frequency_hertz{cpu="7"}')" = 1520000000 ] &&
		[ "$(metric 'perfwatch_cpu_frequency_hertz{cpu="12"}')" = 1430000000 ] &&
		[ "$(metric 'perfwatch_cpu_frequency_ratio{cpu="3"}')" = 0.97 ] &&
		grep_metrics '^perfwatch_cpu_frequency_info\{cpu="12",[^}]*source="time_in_state"\} 1$'
}
pw_wait_for 10 "time_in_state averages" averaged || pw_fail "interval averages not exported: $(curl -s "$PW_URL/metrics" | grep 'frequency_hertz{cpu="3"}')"

# cpu15 goes offline: its /proc/stat line, its interrupts/softirqs columns and its cpufreq go away.
# The exported counter of a numbered line must not drop with its column (Prometheus would see a
# reset): it comes from /proc/stat, which still counts cpu15.
line31() { pw_get metrics | awk '/^perfwatch_interrupts_total\{irq="31",/ { print $2 }'; }
line_before=$(line31) # virtio0-req.0: all 1069 of its interrupts were taken on cpu15
python3 "$PW_TESTS/e2e/hotplug.py" offline "$tree" 15
rm "$tree/sys/devices/system/cpu/cpu15/cpufreq"
gone() {
	! grep_metrics '^perfwatch_cpu_seconds_total\{cpu="15"' && ! grep_metrics '^perfwatch_cpu_frequency_hertz\{cpu="15"\}' &&
		grep_metrics '^perfwatch_cpu_seconds_total\{cpu="14"'
}
pw_wait_for 10 "cpu15 series to vanish" gone || pw_fail "cpu15 still exported while offline"
line_after=$(line31)
[ -n "$line_before" ] && [ "$line_after" -ge "$line_before" ] ||
	pw_fail "irq 31's counter went from '$line_before' to '$line_after' when cpu15 went offline"
pw_wait_samples $(($(samples) + 2)) || pw_fail "sampling stopped with a CPU offline"

# cpu15 returns, with every counter further on (the next capture) and its cpufreq link back.
ln -s ../cpufreq/policy15 "$tree/sys/devices/system/cpu/cpu15/cpufreq"
pw_rewrite "$PW_FIXTURES/kernels/host-16cpu-load-2/proc" "$tree/proc" stat interrupts softirqs
printf '0-15\n' >"$tree/sys/devices/system/cpu/online"
back() { grep_metrics '^perfwatch_cpu_seconds_total\{cpu="15"' && grep_metrics '^perfwatch_cpu_frequency_hertz\{cpu="15"\}'; }
pw_wait_for 10 "cpu15 series to return" back || pw_fail "cpu15 did not come back"

# Through all of it: no parse error, no reset counted, no absurd per-CPU interrupt rate.
for src in stat interrupts softirqs cpufreq; do
	[ "$(metric "perfwatch_parse_errors_total{source=\"$src\"}")" = 0 ] || pw_fail "parse errors in $src"
done
[ "$(metric perfwatch_resets_detected_total)" = 0 ] || pw_fail "a CPU coming back was counted as a reset"
max_rate=$(pw_get status | jq '[.interrupts.per_cpu_per_second[].per_second] | max')
python3 -c "import sys; sys.exit(0 if float('$max_rate') < 1e6 else 1)" || pw_fail "absurd interrupt rate $max_rate/s"
pw_stop "$PW_PID"
echo PASS
