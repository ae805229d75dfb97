#!/usr/bin/env bash
# Flags and the config file: every bad flag, value or line is a clear error naming where and why,
# and a non-zero exit; flags override the file; --check-config validates and exits.
source "$(dirname "$0")/lib.sh"

tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"

# expect_error EXPECTED_TEXT ARGS...: perfwatchd exits 2 and says EXPECTED_TEXT on stderr.
expect_error() {
	local want=$1 rc=0
	shift
	"$PERFWATCHD" "$@" >"$PW_WORK/out" 2>"$PW_WORK/err" || rc=$?
	[ "$rc" = 2 ] || pw_fail "'$*' exited $rc, want 2"
	grep -qF -- "$want" "$PW_WORK/err" || pw_fail "'$*' said '$(cat "$PW_WORK/err")', want '$want'"
}

grep -q -- "--interval DUR" <<<"$("$PERFWATCHD" --help)" || pw_fail "--help does not list --interval"
grep -qE '^perfwatchd [0-9]+\.[0-9]+\.[0-9]+$' <<<"$("$PERFWATCHD" --version)" || pw_fail "--version"

base=(--config /dev/null --procfs "$tree/proc" --sysfs "$tree/sys")
expect_error "--bogus: unknown flag" "${base[@]}" --bogus
expect_error "--interval: invalid duration '5x'" "${base[@]}" --interval 5x
expect_error "--interval: invalid duration '-1s'" "${base[@]}" --interval -1s
expect_error "interval: must be between 10ms and 1h" "${base[@]}" --interval 1ms
expect_error "history: must be at least one interval" "${base[@]}" --interval 10s --history 1s
expect_error "--listen: invalid address '127.0.0.1'" "${base[@]}" --listen 127.0.0.1
expect_error "--listen: invalid address 'localhost:99999'" "${base[@]}" --listen localhost:99999
expect_error "--log-level: invalid log level 'loud'" "${base[@]}" --log-level loud
expect_error "unexpected argument" "${base[@]}" stray
expect_error "procfs: cannot read /nonexistent/stat" --config /dev/null --procfs /nonexistent
expect_error "missing.conf: cannot open" --config "$PW_WORK/missing.conf" --check-config

conf="$PW_WORK/perfwatchd.conf"
printf '# comment\n[perfwatchd]\ninterval = 1s\nbogus = 3\n' >"$conf"
expect_error "$conf:4: unknown key 'bogus'" --config "$conf" --check-config --procfs "$tree/proc"
printf 'interval = 1s\nhistory = forever\n' >"$conf"
expect_error "$conf:2: invalid duration 'forever'" --config "$conf" --check-config --procfs "$tree/proc"
printf 'interval = 1s\nthis line has no equals sign\n' >"$conf"
expect_error "$conf:2: syntax error" --config "$conf" --check-config --procfs "$tree/proc"
printf '[elsewhere]\ninterval = 1s\n' >"$conf"
expect_error "$conf:2: unknown section [elsewhere]" --config "$conf" --check-config --procfs "$tree/proc"
printf 'check-config = true\n' >"$conf"
expect_error "$conf:1: unknown key 'check-config'" --config "$conf" --check-config --procfs "$tree/proc"

printf '[rule.Bogus]\nfor = 1s\n' >"$conf"
expect_error "$conf:2: unknown rule [rule.Bogus]" --config "$conf" --check-config --procfs "$tree/proc"
printf '[rule.IoWaitHigh]\nthreshold = -1\n' >"$conf"
expect_error "$conf:2: invalid number '-1'" --config "$conf" --check-config --procfs "$tree/proc"
printf '[rule.IoWaitHigh]\nfrobnicate = 1\n' >"$conf"
expect_error "$conf:2: unknown key 'frobnicate' (want enabled, for, resolve" --config "$conf" --check-config --procfs "$tree/proc"
printf '[rule.InterruptRateDrop]\nfor = soon\n' >"$conf"
expect_error "$conf:2: invalid duration 'soon'" --config "$conf" --check-config --procfs "$tree/proc"
expect_error "--alert-for: invalid duration '5x'" "${base[@]}" --alert-for 5x
expect_error "--baseline-warmup: invalid duration" "${base[@]}" --baseline-warmup never

printf '[perfwatchd]\ninterval = 250ms\nhistory = 10m\nprocfs = %s\nsysfs = %s\n' "$tree/proc" "$tree/sys" >"$conf"
grep -q "configuration OK" <<<"$("$PERFWATCHD" --config "$conf" --check-config)" || pw_fail "valid config rejected"

# The file sets 250ms; the flag wins.
pw_start flags --config "$conf" --interval 2s
[ "$(pw_metric perfwatch_interval_seconds)" = 2 ] || pw_fail "flag did not override file"
pw_stop "$PW_PID"
echo "PASS"
