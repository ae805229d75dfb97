#!/bin/bash
# Run the libFuzzer harnesses built by PW_FUZZ=ON (tests/fuzz/CMakeLists.txt), one at a time, one
# process each (the machine is shared).
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS [HARNESS...]    each harness for SECONDS (make fuzz)
#   tests/fuzz/run.sh BUILD_DIR smoke [HARNESS...]      each replays its seeds, then 2000 runs or 1 s (make test)
#   tests/fuzz/run.sh BUILD_DIR runs=N [HARNESS...]     each harness until N executions (seeds included)
#
# Seeds: the fixtures each parser reads (tests/fixtures), copied into BUILD_DIR/fuzz-seeds/NAME,
# plus tests/fuzz/corpus/NAME (hand-made seeds and the inputs of crashes found and fixed, so the
# smoke run replays them). New inputs go to BUILD_DIR/fuzz-corpus/NAME and are kept between runs
# (the smoke run's to BUILD_DIR/fuzz-smoke/NAME, emptied first); a crash's input to
# BUILD_DIR/fuzz-artifacts/NAME/. Prints executions and coverage per harness;
# exits 1 when a harness crashed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/../fixtures
build=${1:?usage: run.sh BUILD_DIR SECONDS|smoke [HARNESS...]}
mode=${2:?usage: run.sh BUILD_DIR SECONDS|smoke [HARNESS...]}
shift 2
bin=$build/tests/fuzz

if [ $# -eq 0 ]; then
	set -- $(cd "$here" && ls fuzz_*.c | sed 's/\.c$//')
fi

# The fixture files each harness starts from (globs relative to tests/fixtures).
seeds_of() {
	case $1 in
	fuzz_procstat) echo 'kernels/*/proc/stat quirks/stat-*' ;;
	fuzz_interrupts) echo 'kernels/*/proc/interrupts quirks/interrupts-*' ;;
	fuzz_softirqs) echo 'kernels/*/proc/softirqs quirks/softirqs-*' ;;
	fuzz_kvfile) echo 'kernels/*/proc/vmstat kernels/*/proc/meminfo quirks/vmstat-* quirks/meminfo-*' ;;
	fuzz_small) echo 'kernels/*/proc/pressure/* kernels/*/proc/loadavg quirks/pressure-* quirks/loadavg-* quirks/pidstat/*.stat' ;;
	fuzz_cpufreq) echo 'quirks/time-in-state-* cpufreq/*/sys/devices/system/cpu/cpu0/cpufreq/* cpufreq/*/sys/devices/system/cpu/cpufreq/policy0/* cpufreq/*/sys/devices/system/cpu/cpufreq/policy0/stats/time_in_state cpufreq/*/sys/devices/system/cpu/cpu0/cpufreq/stats/time_in_state cpufreq/*/sys/devices/system/cpu/online kernels/*/sys/devices/system/cpu/online' ;;
	fuzz_diskstats) echo 'kernels/*/proc/diskstats quirks/diskstats-*' ;;
	fuzz_replay) echo 'recordings/*.pwrec' ;;
	fuzz_rec_schema) echo 'recordings/*.pwrec' ;;
	fuzz_replay_samples) echo '' ;; # its own seeds: patches to the recording it loads
	*) echo '' ;;
	esac
}

# Options per harness: recordings are larger than libFuzzer's default input size.
opts_of() {
	case $1 in
	fuzz_replay | fuzz_rec_schema) echo '-max_len=8192' ;;
	*) echo '' ;;
	esac
}

if [ "$mode" = smoke ]; then
	run_opts="-runs=2000 -max_total_time=1"
elif [[ "$mode" == runs=* ]]; then
	run_opts="-runs=${mode#runs=}"
else
	run_opts="-max_total_time=$mode"
fi

status=0
printf '%-22s %12s %8s %8s  %s\n' harness executions exec/s cov result
for name in "$@"; do
	exe=$bin/$name
	if [ ! -x "$exe" ]; then
		echo "run.sh: $exe is not built (cmake -DPW_FUZZ=ON with CC=clang)" >&2
		exit 2
	fi
	seeds=$build/fuzz-seeds/$name corpus=$build/fuzz-corpus/$name art=$build/fuzz-artifacts/$name
	# The smoke run starts from the seeds alone, so its time does not grow with the long runs' corpus.
	[ "$mode" = smoke ] && corpus=$build/fuzz-smoke/$name && rm -rf "$corpus"
	mkdir -p "$seeds" "$corpus" "$art"
	n=0
	for g in $(seeds_of "$name"); do
		for f in $fx/$g; do
			[ -f "$f" ] || continue
			n=$((n + 1))
			cp "$f" "$seeds/$n-$(basename "$f")"
		done
	done
	extra=()
	[ -d "$here/corpus/${name#fuzz_}" ] && extra=("$here/corpus/${name#fuzz_}")
	log=$build/fuzz-artifacts/$name.log
	# shellcheck disable=SC2086
	"$exe" $run_opts $(opts_of "$name") -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$art/" "$corpus" "$seeds" "${extra[@]}" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	result=ok
	if [ $rc -ne 0 ]; then
		result="CRASH (exit $rc): $(grep -m1 -E 'ERROR|runtime error|deadly signal|Assertion' "$log"); see $log and $art/"
		status=1
	fi
	printf '%-22s %12s %8s %8s  %s\n' "$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$result"
done
exit $status
