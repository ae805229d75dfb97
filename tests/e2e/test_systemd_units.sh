#!/usr/bin/env bash
# contrib/systemd: the service's hardening scores at most 2.0 in `systemd-analyze security` (offline;
# node_exporter's Debian unit scores 9.2) while keeping what perfwatchd needs; both units pass
# `systemd-analyze verify`; and the daemon runs as an unprivileged uid (what DynamicUser= gives it)
# on the real /proc and /sys with every source up and its state dir written.
source "$(dirname "$0")/lib.sh"
command -v systemd-analyze >/dev/null || pw_skip "systemd-analyze not installed"

units="$PW_TESTS/../contrib/systemd"
service="$units/perfwatchd.service"
[ -f "$service" ] && [ -f "$units/perfwatchd.socket" ] || pw_fail "units missing in $units"

# 1. Exposure. --threshold counts in tenths of the printed level: 20 is the printed 2.0.
out=$(systemd-analyze security --offline=true --threshold=20 "$service" 2>&1) ||
	pw_fail "exposure above 2.0: $(grep -E '✗|Overall' <<<"$out")"
level=$(sed -nE 's/.*Overall exposure level for perfwatchd.service: ([0-9.]+).*/\1/p' <<<"$out")
echo "systemd-analyze security: overall exposure $level"
awk -v l="$level" 'BEGIN { exit !(l != "" && l <= 2.0) }' || pw_fail "exposure '$level'"

# 2. ...without taking away what perfwatchd needs.
setting() { sed -nE "s/^$1=(.*)/\1/p" "$service" | tail -1; }
[ "$(setting Type)" = notify ] || pw_fail "Type=$(setting Type), want notify"
[ -n "$(setting WatchdogSec)" ] || pw_fail "no WatchdogSec="
[ "$(setting Restart)" = on-failure ] || pw_fail "Restart=$(setting Restart)"
[ "$(setting DynamicUser)" = yes ] || pw_fail "no DynamicUser=yes"
[ "$(setting StateDirectory)" = perfwatch ] || pw_fail "StateDirectory=$(setting StateDirectory)"
grep -q -- '--state-dir=${STATE_DIRECTORY}' "$service" || pw_fail "ExecStart does not use the state directory"
[ "$(setting RestrictAddressFamilies)" = "AF_INET AF_INET6 AF_UNIX" ] || pw_fail "address families: $(setting RestrictAddressFamilies)"
[ "$(setting ProcSubset)" = all ] || pw_fail "ProcSubset=$(setting ProcSubset) hides /proc/stat"
case "$(setting ProtectProc)" in "" | default) ;; *) pw_fail "ProtectProc=$(setting ProtectProc) hides other users' /proc/PID/stat" ;; esac
for forbidden in PrivateNetwork=yes IPAddressDeny=any; do
	grep -qx "$forbidden" "$service" && pw_fail "$forbidden cuts off webhook receivers"
done
grep -qx 'ListenStream=127.0.0.1:10071' "$units/perfwatchd.socket" || pw_fail "socket does not listen on 127.0.0.1:10071"

# 3. verify, offline: ExecStart pointed at the built binary, the man page on MANPATH.
mkdir -p "$PW_WORK/units" "$PW_WORK/man/man8"
cp "$units/perfwatchd.service" "$units/perfwatchd.socket" "$PW_WORK/units/"
sed -i "s#^ExecStart=/usr/sbin/perfwatchd#ExecStart=$PERFWATCHD#" "$PW_WORK/units/perfwatchd.service"
cp "$PW_TESTS/../docs/perfwatchd.8" "$PW_WORK/man/man8/"
out=$(MANPATH="$PW_WORK/man" systemd-analyze verify "$PW_WORK/units/perfwatchd.service" "$PW_WORK/units/perfwatchd.socket" 2>&1) ||
	pw_fail "systemd-analyze verify: $out"
[ -z "$out" ] || pw_fail "systemd-analyze verify warned: $out"

# 4. As an unprivileged uid with no groups, on the real /proc and /sys: serves, every source that
# exists is up, the state dir (0700, its own) is written at SIGTERM. The binary and the state dir
# live in a directory outside the checkout, which that uid may not be able to reach.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	uid=61871
	pw_shared_dir
	install -m 0755 "$PERFWATCHD" "$PW_SHARED/perfwatchd"
	state="$PW_SHARED/state"
	mkdir -m 0700 "$state"
	chown "$uid:$uid" "$state"
	PW_PORT=$(pw_free_port)
	PW_URL="http://127.0.0.1:$PW_PORT"
	(cd "$PW_SHARED" && exec setpriv --reuid=$uid --regid=$uid --clear-groups --no-new-privs \
		"$PW_SHARED/perfwatchd" --config /dev/null --listen "127.0.0.1:$PW_PORT" --interval 200ms \
		--state-dir "$state") >"$PW_WORK/unpriv.log" 2>&1 &
	PW_PID=$!
	PW_PIDS+=("$PW_PID")
	pw_wait_for 20 "/healthz as uid $uid" pw_healthy || pw_fail "unprivileged: $(cat "$PW_WORK/unpriv.log")"
	pw_wait_samples 3
	down=$(pw_get metrics | awk '/^perfwatch_source_present\{/ { split($1, a, "\""); if ($2 == 1) present[a[2]] = 1 }
		/^perfwatch_source_up\{/ { split($1, a, "\""); if ($2 == 0) down[a[2]] = 1 }
		END { for (s in down) if (s in present) printf "%s ", s }')
	[ -z "$down" ] || pw_fail "sources down as uid $uid: $down"
	for src in stat interrupts softirqs vmstat meminfo; do
		pw_has_metric "^perfwatch_source_up\\{source=\"$src\"\\} 1\$" || pw_fail "$src not read as uid $uid"
	done
	pw_stop "$PW_PID"
	[ -s "$state/baselines" ] || pw_fail "no state written as uid $uid: $(cat "$PW_WORK/unpriv.log")"
	[ "$(stat -c %u "$state/baselines")" = $uid ] || pw_fail "state file not owned by $uid"
fi
echo "PASS: exposure $level, verify clean, runs unprivileged"
