#!/usr/bin/env bash
# `make run` on a machine with only the build packages: configuring must not need check (only the
# tests do). With check's pkg-config file hidden, a fresh build dir configures (saying the tests are
# left out), builds perfwatchd, and that perfwatchd serves /metrics from the real /proc and /sys.
source "$(dirname "$0")/lib.sh"
command -v cmake >/dev/null || pw_skip "cmake not on PATH"
command -v pkg-config >/dev/null || pw_skip "pkg-config not on PATH"
src=$(cd "$PW_TESTS/.." && pwd)

# Every .pc file pkg-config would find, but check's, in a directory of its own that replaces the
# search path (copies, not links: a .pc file may name its place through ${pcfiledir}).
pcdir="$PW_WORK/pkgconfig"
mkdir -p "$pcdir"
IFS=: read -ra dirs <<<"${PKG_CONFIG_PATH:+$PKG_CONFIG_PATH:}$(pkg-config --variable pc_path pkg-config)"
for d in "${dirs[@]}"; do
	[ -d "$d" ] || continue
	find "$d" -maxdepth 1 -name '*.pc' ! -name check.pc -exec cp -n {} "$pcdir/" \;
done
export PKG_CONFIG_LIBDIR="$pcdir"
unset PKG_CONFIG_PATH CMAKE_PREFIX_PATH
pkg-config --exists check && pw_fail "check.pc still visible through $pcdir"
pkg-config --exists libmicrohttpd || pw_fail "the build packages' .pc files were not copied to $pcdir"

build="$PW_WORK/build"
# Unoptimised: this checks that it configures, builds and serves, not the code's speed (a third of the
# compile time, which the suite runs beside other tests).
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS=-O0 >"$PW_WORK/configure.log" 2>&1 ||
	pw_fail "configure without check: $(cat "$PW_WORK/configure.log")"
grep -q 'Tests not configured: check not found' "$PW_WORK/configure.log" ||
	pw_fail "configure did not say the tests are left out: $(cat "$PW_WORK/configure.log")"
[ ! -e "$build/tests" ] || pw_fail "tests configured although check is missing"
cmake -S "$src" -B "$PW_WORK/build-on" -DPW_TESTS=ON >"$PW_WORK/configure-on.log" 2>&1 &&
	pw_fail "PW_TESTS=ON configured without check"
cmake --build "$build" -j 2 --target perfwatchd >"$PW_WORK/build.log" 2>&1 ||
	pw_fail "build: $(tail -30 "$PW_WORK/build.log")"

PERFWATCHD="$build/daemon/perfwatchd"
pw_start real --interval 200ms
pw_wait_samples 2
for source in stat interrupts softirqs; do
	pw_has_metric "^perfwatch_source_up\\{source=\"$source\"\\} 1\$" || pw_fail "$source not read"
done
pw_stop "$PW_PID"
echo "PASS: configured without check, built perfwatchd, served /metrics from the real /proc"
