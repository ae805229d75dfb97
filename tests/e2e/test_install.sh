#!/usr/bin/env bash
# `cmake --install` into a DESTDIR with --prefix /usr: every file in its FHS place (sbin, man8, the
# systemd unit dir, /etc/perfwatch, share/doc/perfwatch, share/perfwatch), the service's ExecStart
# naming the installed binary, the installed config accepted by the installed binary, which runs
# --version.
source "$(dirname "$0")/lib.sh"

build=$(cd "$(dirname "$PERFWATCHD")/.." && pwd)
[ -f "$build/CMakeCache.txt" ] || pw_skip "no CMake build dir above $PERFWATCHD"
command -v cmake >/dev/null || pw_skip "cmake not on PATH"
dest="$PW_WORK/dest"

DESTDIR="$dest" cmake --install "$build" --prefix /usr >"$PW_WORK/install.log" 2>&1 ||
	pw_fail "cmake --install: $(cat "$PW_WORK/install.log")"

unitdir=$(sed -n 's/^PW_SYSTEMD_UNITDIR:PATH=//p' "$build/CMakeCache.txt")
case "$unitdir" in /*) ;; *) unitdir="/usr/$unitdir" ;; esac
want=(
	usr/sbin/perfwatchd
	usr/share/man/man8/perfwatchd.8
	"${unitdir#/}/perfwatchd.service"
	"${unitdir#/}/perfwatchd.socket"
	etc/perfwatch/perfwatchd.conf
	usr/share/doc/perfwatch/README.md
	usr/share/doc/perfwatch/architecture.md
	usr/share/doc/perfwatch/detection.md
	usr/share/doc/perfwatch/metrics.md
	usr/share/doc/perfwatch/performance.md
	usr/share/perfwatch/perfwatch.rules.yml
	usr/share/perfwatch/perfwatch.alerts.yml
	usr/share/perfwatch/perfwatch.json
)
for f in "${want[@]}"; do
	[ -s "$dest/$f" ] || pw_fail "not installed: /$f ($(cd "$dest" && find . -type f | sort | tr '\n' ' '))"
done
[ -x "$dest/usr/sbin/perfwatchd" ] || pw_fail "installed binary not executable"
extra=$(cd "$dest" && find . -type f | sed 's#^\./##' | sort | grep -vxF -f <(printf '%s\n' "${want[@]}") || true)
[ -z "$extra" ] || pw_fail "unexpected files installed: $extra"

version=$("$dest/usr/sbin/perfwatchd" --version) || pw_fail "installed binary does not run"
[[ "$version" =~ ^perfwatchd\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || pw_fail "--version said: $version"
grep -qx 'ExecStart=/usr/sbin/perfwatchd --state-dir=${STATE_DIRECTORY}' "$dest/${unitdir#/}/perfwatchd.service" ||
	pw_fail "ExecStart does not name /usr/sbin/perfwatchd: $(grep ExecStart "$dest/${unitdir#/}/perfwatchd.service")"
out=$("$dest/usr/sbin/perfwatchd" --config "$dest/etc/perfwatch/perfwatchd.conf" --check-config 2>&1) ||
	pw_fail "the installed config is rejected: $out"
if command -v man >/dev/null; then
	grep -q "SIGHUP" <<<"$(man -l "$dest/usr/share/man/man8/perfwatchd.8" 2>/dev/null)" || pw_fail "man page does not render or lacks SIGHUP"
fi
# The man page's header names the version the binary prints (both from VERSION).
grep -q "^\.TH PERFWATCHD 8 [^ ]* \"perfwatch ${version#perfwatchd }\"" "$dest/usr/share/man/man8/perfwatchd.8" ||
	pw_fail "man page header: $(grep '^\.TH' "$dest/usr/share/man/man8/perfwatchd.8")"
echo "PASS: ${#want[@]} files installed; $version"
