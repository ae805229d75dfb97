#!/usr/bin/env bash
# promtool (Debian package prometheus) lints real /metrics output: no errors, no warnings, on a small
# and a big tree, with and without the per-CPU interrupt series.
source "$(dirname "$0")/../e2e/lib.sh"

command -v promtool >/dev/null || pw_skip "promtool not installed (apt-get install prometheus)"
for id in vm-2cpu-load-1 host-16cpu-load-1; do
	tree="$PW_WORK/$id"
	pw_copy_tree "$id" "$tree"
	for extra in "" --interrupts-per-cpu; do
		# shellcheck disable=SC2086
		pw_start "$id" --procfs "$tree/proc" --sysfs "$tree/sys" --interval 200ms $extra
		pw_wait_samples 2 || pw_fail "no second sample"
		pw_get metrics >"$PW_WORK/metrics"
		# The HTTP server's own families are in what promtool reads.
		grep -q '^perfwatch_http_auth_failures_total{reason="throttled"} ' "$PW_WORK/metrics" ||
			pw_fail "no HTTP self-metrics on $id"
		out=$(promtool check metrics <"$PW_WORK/metrics" 2>&1) || pw_fail "promtool failed on $id $extra: $out"
		[ -z "$out" ] || pw_fail "promtool complains on $id $extra: $out"
		pw_stop "$PW_PID"
	done
done
echo PASS
