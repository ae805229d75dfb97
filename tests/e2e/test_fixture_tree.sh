#!/usr/bin/env bash
# The whole pipeline over a real capture: /metrics and /status against golden files (figures that
# depend on time are masked), /healthz, then the tree rewritten in place to the next capture and the
# new rates checked against the fixtures' own deltas. PW_REGENERATE_GOLDEN=1 rewrites the goldens.
source "$(dirname "$0")/lib.sh"

golden="$PW_TESTS/e2e/golden"
for id in vm-2cpu-idle-1 host-16cpu-load-1; do
	tree="$PW_WORK/$id"
	pw_copy_tree "$id" "$tree"
	pw_start "$id" --procfs "$tree/proc" --sysfs "$tree/sys" --interval 1s

	pw_wait_samples 2 || pw_fail "no second sample"

	# Masked: the sampler's own timings and counts, which depend on when we asked.
	pw_get metrics |
		grep -vE '^perfwatch_(samples_total|[a-z_]*duration_seconds(_total)?|last_sample_timestamp_seconds|scrapes_total|missed_deadlines_total) ' \
			>"$PW_WORK/$id.prom"
	pw_golden "$PW_WORK/$id.prom" "$golden/$id.prom"
	pw_get status |
		jq -S '.sample.time = "T" | .sample.age_seconds = 0 | .sample.interval_seconds = 0 | .sample.seq = 0
			| .sampler.samples_taken = 0 | .sampler.last_duration_ms = 0 | .sampler.history_samples = 0
			| .sampler.missed_deadlines = 0 | if .recent then .recent = "masked" else . end
			| if .detector then .detector.samples_seen = 0 else . end' >"$PW_WORK/$id.json"
	pw_golden "$PW_WORK/$id.json" "$golden/$id.json"
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$PW_URL/healthz")" = 200 ] || pw_fail "/healthz not 200"
	pw_stop "$PW_PID"
done

# The tree changes under a running daemon: vm-2cpu idle-1 -> load-1, file by file, in place.
tree="$PW_WORK/live"
pw_copy_tree vm-2cpu-idle-1 "$tree"
pw_start live --procfs "$tree/proc" --sysfs "$tree/sys" --interval 2s
pw_wait_samples 2 || pw_fail "no second sample"
next="$PW_FIXTURES/kernels/vm-2cpu-load-1/proc"
pw_rewrite "$next" "$tree/proc" stat interrupts softirqs vmstat meminfo loadavg pressure/cpu pressure/io pressure/memory
python3 "$PW_TESTS/e2e/check_rates.py" "$PW_URL" "$PW_FIXTURES/kernels/vm-2cpu-idle-1/proc" "$next" 15 ||
	pw_fail "rates after the rewrite"
pw_stop "$PW_PID"
echo PASS
