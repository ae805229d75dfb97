#!/usr/bin/env bash
# Hostile HTTP clients (tests/e2e/http_attack.py): slowloris connections are cut by the request
# deadline while others are served and sampling goes on; a client address beyond its connection
# limit is refused and served again once it lets go; a 100 kB header is refused; a burst of
# thousands of connections leaves the daemon serving with its fds back where they were.
source "$(dirname "$0")/lib.sh"

tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"
attack=(python3 "$PW_TESTS/e2e/http_attack.py")

expect_error() {
	local want=$1 rc=0
	shift
	"$PERFWATCHD" --config /dev/null --procfs "$tree/proc" --check-config "$@" >/dev/null 2>"$PW_WORK/err" || rc=$?
	[ "$rc" = 2 ] || pw_fail "'$*' exited $rc, want 2"
	grep -qF -- "$want" "$PW_WORK/err" || pw_fail "'$*' said '$(cat "$PW_WORK/err")', want '$want'"
}
expect_error "http-max-connections: must be between 1 and 65536" --http-max-connections 0
expect_error "--http-max-connections-per-ip: invalid number 'many'" --http-max-connections-per-ip many
expect_error "http-max-connections-per-ip: must be between 1 and http-max-connections" \
	--http-max-connections 10 --http-max-connections-per-ip 11
expect_error "http-timeout: must be between 1s and 1h" --http-timeout 100ms
expect_error "http-max-header-bytes: must be between 4096" --http-max-header-bytes 100
grep -q -- "--http-timeout DUR" <<<"$("$PERFWATCHD" --help)" || pw_fail "--help does not list --http-timeout"

pw_start limits --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms --http-timeout 2s \
	--http-max-connections 64 --http-max-connections-per-ip 8

# (a) Slowloris: 8 connections (the attacker's whole per-IP allowance) trickling a header byte
# each every 0.25 s; an idle timeout alone would keep them forever.
"${attack[@]}" slowloris "$PW_PORT" 8 2 | tee "$PW_WORK/slowloris.out" || pw_fail "slowloris"
# ... and each cut is counted. Polled: the guard counts a cut just after its shutdown().
cut=$(sed -n 's|^slowloris: \([0-9]*\)/.*|\1|p' "$PW_WORK/slowloris.out")
[ "${cut:-0}" -ge 1 ] || pw_fail "cannot read the number of slowloris connections cut"
counted_cut() { counted=$(pw_metric 'perfwatch_http_connections_cut_total{reason="deadline"}') && [ "${counted:-0}" -ge "$cut" ]; }
pw_wait_for 5 "the cuts counted" counted_cut ||
	pw_fail "connections_cut_total{reason=\"deadline\"} = '$counted', want >= $cut"
echo "slowloris: $cut cut, $counted counted"
[ -n "$(pw_metric 'perfwatch_http_connections_cut_total{reason="shed"}')" ] || pw_fail "no shed series"
# (b) One address opening 18 connections with a limit of 8.
"${attack[@]}" per-ip "$PW_PORT" 8 || pw_fail "per-IP limit"
# (c) A 100 kB header against the 32 KiB per-connection bound.
"${attack[@]}" big-header "$PW_PORT" || pw_fail "big header"
# (d) 3000 connection attempts from many addresses at once, 64 at most held by the daemon.
"${attack[@]}" burst "$PW_PORT" "$PW_PID" 3000 || pw_fail "burst"
grep -q 'perfwatch_samples_total' <<<"$(pw_get metrics)" || pw_fail "no metrics after the attacks"
pw_stop "$PW_PID"
echo PASS
