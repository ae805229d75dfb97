#!/usr/bin/env bash
# The Debian package (debian/, `make deb`) on this machine, as root: `make deb-package` builds it
# from a copy of the tree and lintian passes it; VERSION, the package's version and the installed
# `perfwatchd --version` agree; `dpkg -i` installs the binary, the units, the sysusers file, the
# user perfwatch and the config as a conffile, 0640 root:perfwatch; the installed daemon runs as
# the unit runs it (user perfwatch, the installed config) and serves /metrics on a test port; an
# upgrade keeps a locally changed config; remove stops the service; purge leaves nothing behind:
# no file of the package, no /etc/perfwatch, no state, no user. Where systemd is PID 1 the
# installed unit itself runs (on a test port, through a runtime drop-in); elsewhere (a container,
# a chroot) the maintainer scripts must succeed without it and the daemon runs under setpriv.
# Everything it installs is purged at exit, also on failure.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || pw_skip "needs root: it installs and purges the package"
for tool in dpkg-buildpackage dh lintian make; do
	command -v "$tool" >/dev/null ||
		pw_skip "$tool is not installed (contrib/install-deps.sh test installs it)"
done
# It purges what it installed: nothing of a real installation may be here before.
status=$(dpkg-query -W -f='${Status}' perfwatch 2>/dev/null || true)
case "$status" in
"" | *not-installed) ;;
*) pw_skip "perfwatch is installed here ($status): the test would purge it" ;;
esac
for path in /usr/sbin/perfwatchd /etc/perfwatch /var/lib/perfwatch /var/lib/private/perfwatch \
	/run/systemd/system/perfwatchd.service.d; do
	[ ! -e "$path" ] || pw_skip "$path exists (an install from source?): the test would remove it"
done
! getent passwd perfwatch >/dev/null && ! getent group perfwatch >/dev/null ||
	pw_skip "a user or group perfwatch exists: the purge would remove it"

root=$(cd "$PW_TESTS/.." && pwd)
version=$(cat "$root/VERSION")
unitdir=/lib/systemd/system
dropin=/run/systemd/system/perfwatchd.service.d
systemd=false
[ -d /run/systemd/system ] && systemd=true # as the maintainer scripts decide
made_private=false

pkg_cleanup() {
	local pid
	for pid in "${PW_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	case "$(dpkg-query -W -f='${Status}' perfwatch 2>/dev/null || true)" in
	"" | *not-installed) ;;
	*) dpkg --purge perfwatch >"$PW_WORK/cleanup.log" 2>&1 || cat "$PW_WORK/cleanup.log" >&2 ;;
	esac
	rm -rf /etc/perfwatch /var/lib/perfwatch /var/lib/private/perfwatch "$dropin"
	if $made_private; then rmdir /var/lib/private 2>/dev/null || true; fi
	if $systemd; then systemctl daemon-reload 2>/dev/null || true; fi
	if getent passwd perfwatch >/dev/null; then userdel perfwatch 2>/dev/null || true; fi
	if getent group perfwatch >/dev/null; then groupdel perfwatch 2>/dev/null || true; fi
	pw_cleanup
}
trap pkg_cleanup EXIT

# 1. Build (from a copy of the tree, outside it: PW_WORK may lie inside the checkout) and lintian,
# which `make deb-package` runs with --fail-on error,warning. Not under ctest's make: no jobserver.
pw_shared_dir
debs="$PW_SHARED/deb"
t0=$SECONDS
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$root" deb-package DEB_DIR="$debs" \
	DEB_BUILD_OPTIONS=noddebs >"$PW_WORK/build.log" 2>&1 ||
	pw_fail "make deb-package: $(tail -40 "$PW_WORK/build.log")"
t_build=$((SECONDS - t0))
lintian_out=$(sed -n '/lintian --fail-on/,$p' "$PW_WORK/build.log" |
	grep -v 'lintian --fail-on\|root privileges\|^make' || true)
deb="$debs/perfwatch_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || pw_fail "no $deb: $(ls "$debs")"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
	pw_fail "the package is $(dpkg-deb -f "$deb" Version), VERSION says $version"
# libcurl is dlopen()ed (daemon/curl_api.h), so shlibs cannot name it: debian/control must.
grep -qw libcurl3-gnutls <<<"$(dpkg-deb -f "$deb" Depends)" ||
	pw_fail "the package does not depend on libcurl3-gnutls: $(dpkg-deb -f "$deb" Depends)"

# 2. Install. Under systemd the service starts at once: on a test port, not 10071.
port=$(pw_free_port)
if $systemd; then
	mkdir -p "$dropin"
	printf '[Service]\nExecStart=\nExecStart=%s --listen 127.0.0.1:%s\n' \
		'/usr/sbin/perfwatchd --state-dir=${STATE_DIRECTORY}' "$port" >"$dropin/test-port.conf"
fi
pkg_install() {
	DEBIAN_FRONTEND=noninteractive dpkg -i "$1" </dev/null >"$PW_WORK/dpkg.log" 2>&1 ||
		pw_fail "dpkg -i $(basename "$1"): $(cat "$PW_WORK/dpkg.log")"
}
pkg_install "$deb"

conf=/etc/perfwatch/perfwatchd.conf
owner() { stat -c '%a %U:%G' "$1"; }
for f in /usr/sbin/perfwatchd "$unitdir/perfwatchd.service" "$unitdir/perfwatchd.socket" \
	/usr/lib/sysusers.d/perfwatch.conf "$conf" /usr/share/man/man8/perfwatchd.8.gz \
	/usr/share/doc/perfwatch/copyright /usr/share/doc/perfwatch/README.md.gz \
	/usr/share/perfwatch/perfwatch.rules.yml /usr/share/perfwatch/perfwatch.alerts.yml \
	/usr/share/perfwatch/perfwatch.json; do
	[ -s "$f" ] || pw_fail "not installed: $f"
done
[ "$(owner /usr/sbin/perfwatchd)" = "755 root:root" ] ||
	pw_fail "/usr/sbin/perfwatchd is $(owner /usr/sbin/perfwatchd)"
[ "$(owner "$conf")" = "640 root:perfwatch" ] ||
	pw_fail "$conf is $(owner "$conf"), want 640 root:perfwatch"
grep -q "^ $conf " <<<"$(dpkg-query -W -f='${Conffiles}\n' perfwatch)" || pw_fail "$conf is not a conffile"
IFS=: read -r _ _ uid gid _ home shell < <(getent passwd perfwatch) || pw_fail "no user perfwatch"
[ "$(getent group perfwatch | cut -d: -f3)" = "$gid" ] || pw_fail "perfwatch's primary group is not perfwatch"
[ "$uid" -lt 1000 ] && [ "$shell" = /usr/sbin/nologin ] ||
	pw_fail "perfwatch is not a system user without login: uid $uid, shell $shell"
grep -qx 'User=perfwatch' "$unitdir/perfwatchd.service" || pw_fail "the unit does not run as perfwatch"
installed=$(/usr/sbin/perfwatchd --version)
[ "$installed" = "perfwatchd $version" ] ||
	pw_fail "installed --version says '$installed', VERSION says $version"
[ -z "$(dpkg --verify perfwatch)" ] || pw_fail "dpkg --verify: $(dpkg --verify perfwatch)"
dpkg -L perfwatch >"$PW_WORK/files"

# 3. The installed daemon as the unit runs it, until /metrics answers.
metrics_up() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" = 200 ]; }
if $systemd; then
	[ "$(systemctl is-enabled perfwatchd.service || true)" = enabled ] ||
		pw_fail "the service is not enabled"
	[ "$(systemctl is-enabled perfwatchd.socket || true)" = disabled ] || pw_fail "the socket is enabled"
	pw_wait_for 20 "perfwatchd.service's /metrics" metrics_up ||
		pw_fail "the service does not serve: $(systemctl status perfwatchd.service 2>&1 | tail -20)"
	pid=$(systemctl show -p MainPID --value perfwatchd.service)
	[ "$(stat -c %U "/proc/$pid" 2>/dev/null || true)" = perfwatch ] ||
		pw_fail "the service does not run as perfwatch"
else
	# The maintainer scripts had no systemd to talk to and succeeded; the daemon as the unit would
	# start it, its state in a directory of its own.
	as_perfwatch=(setpriv --reuid perfwatch --regid perfwatch --init-groups --no-new-privs)
	"${as_perfwatch[@]}" /usr/sbin/perfwatchd --config "$conf" --check-config >/dev/null 2>&1 ||
		pw_fail "perfwatch cannot read $conf"
	! setpriv --reuid nobody --regid nogroup --clear-groups /usr/sbin/perfwatchd --config "$conf" \
		--check-config >/dev/null 2>&1 || pw_fail "$conf is readable by other users"
	state="$PW_SHARED/state"
	install -d -m 0700 -o perfwatch -g perfwatch "$state"
	(cd / && exec "${as_perfwatch[@]}" /usr/sbin/perfwatchd --config "$conf" --state-dir="$state" \
		--listen "127.0.0.1:$port") >"$PW_WORK/daemon.log" 2>&1 &
	PW_PID=$!
	PW_PIDS+=("$PW_PID")
	alive_and_up() {
		kill -0 "$PW_PID" 2>/dev/null || pw_fail "perfwatchd exited: $(cat "$PW_WORK/daemon.log")"
		metrics_up
	}
	pw_wait_for 20 "the installed perfwatchd's /metrics" alive_and_up ||
		pw_fail "$(cat "$PW_WORK/daemon.log")"
	_pw_owns_port "$PW_PID" "$port" || pw_fail "another process answers on port $port"
	pw_stop "$PW_PID"
	[ "$(stat -c %U "$state/baselines" 2>/dev/null || true)" = perfwatch ] ||
		pw_fail "no state saved as perfwatch: $(ls -la "$state")"
fi

# 4. Upgrades. What they test is dpkg with our maintainer scripts and conffile, which the binary
# does not change: so each newer package is this one repacked with a bumped Version (about 1 s;
# `dpkg-buildpackage -b -nc` after editing the copy's changelog reuses the compiled tree, but its
# binary sequence still takes 13-19 s). repack VERSION [LINE]: LINE appended to the packaged config.
repack() {
	local dir="$PW_SHARED/repack-$1"
	dpkg-deb -R "$deb" "$dir"
	sed -i "s/^Version: .*/Version: $1/" "$dir/DEBIAN/control"
	if [ -n "${2:-}" ]; then
		printf '%s\n' "$2" >>"$dir$conf"
		(cd "$dir" && md5sum "${conf#/}") >"$PW_WORK/md5"
		sed -i "\#  ${conf#/}\$#d" "$dir/DEBIAN/md5sums" && cat "$PW_WORK/md5" >>"$dir/DEBIAN/md5sums"
	fi
	dpkg-deb -b "$dir" "$PW_SHARED/perfwatch_$1.deb" >/dev/null
}
kept_local() {
	grep -q '^# a local change (test_package)$' "$conf" || pw_fail "$1 lost the local change to $conf"
	[ "$(owner "$conf")" = "640 root:perfwatch" ] || pw_fail "after $1 $conf is $(owner "$conf")"
	[ "$(dpkg-query -W -f='${Version}' perfwatch)" = "$2" ] || pw_fail "$1 did not install $2"
}
# 4a. The packaged config did not change, the local one did: kept, without a question (stdin is
# not a terminal: a question would fail dpkg).
printf '# a local change (test_package)\n' >>"$conf"
t0=$SECONDS
repack "$version+test1"
t_rebuild=$((SECONDS - t0))
pkg_install "$PW_SHARED/perfwatch_$version+test1.deb"
kept_local "the upgrade" "$version+test1"
! ls /etc/perfwatch/*.dpkg-* 2>/dev/null || pw_fail "the upgrade left $(ls /etc/perfwatch/*.dpkg-*)"
if $systemd; then
	pw_wait_for 20 "the restarted service's /metrics" metrics_up ||
		pw_fail "not serving after the upgrade"
fi
# 4b. Both changed: unattended (apt's Dpkg::Options --force-confdef, as unattended-upgrades), dpkg
# keeps the local file and puts the package's beside it as .dpkg-dist.
repack "$version+test2" "# a packaged change (test_package)"
DEBIAN_FRONTEND=noninteractive dpkg --force-confdef -i "$PW_SHARED/perfwatch_$version+test2.deb" \
	</dev/null >"$PW_WORK/dpkg.log" 2>&1 || pw_fail "dpkg --force-confdef -i: $(cat "$PW_WORK/dpkg.log")"
kept_local "the confdef upgrade" "$version+test2"
grep -q '^# a packaged change (test_package)$' "$conf.dpkg-dist" 2>/dev/null ||
	pw_fail "no $conf.dpkg-dist with the package's config: $(ls /etc/perfwatch)"

# 5. Remove stops the service (without systemd: the prerm would, both units) and keeps the
# config; purge takes the rest.
if ! $systemd; then
	for unit in perfwatchd.socket perfwatchd.service; do
		grep -q "deb-systemd-invoke stop '*$unit" /var/lib/dpkg/info/perfwatch.prerm ||
			pw_fail "the prerm does not stop $unit"
	done
fi
dpkg --remove perfwatch >"$PW_WORK/remove.log" 2>&1 || pw_fail "dpkg --remove: $(cat "$PW_WORK/remove.log")"
if $systemd; then
	! systemctl is-active --quiet perfwatchd.service || pw_fail "the service still runs after remove"
	! metrics_up || pw_fail "something still serves on port $port after remove"
fi
[ ! -e /usr/sbin/perfwatchd ] || pw_fail "remove left /usr/sbin/perfwatchd"
[ -f "$conf" ] || pw_fail "remove (not purge) took the config"
if ! $systemd; then
	# What the service leaves where it ran under systemd (DynamicUser=: the state in
	# /var/lib/private, a symlink at /var/lib/perfwatch), for the purge to take.
	[ -d /var/lib/private ] || { mkdir -m 0700 /var/lib/private && made_private=true; }
	install -d -m 0700 -o perfwatch -g perfwatch /var/lib/private/perfwatch
	install -m 0600 -o perfwatch -g perfwatch /dev/null /var/lib/private/perfwatch/baselines
	ln -s private/perfwatch /var/lib/perfwatch
fi
dpkg --purge perfwatch >"$PW_WORK/purge.log" 2>&1 || pw_fail "dpkg --purge: $(cat "$PW_WORK/purge.log")"
left=()
while read -r f; do
	# Directories other packages share (/usr, /lib/systemd/system) stay.
	if [ -e "$f" ] || [ -L "$f" ]; then [ -d "$f" ] && [[ "$f" != *perfwatch* ]] || left+=("$f"); fi
done <"$PW_WORK/files"
for f in /etc/perfwatch /var/lib/perfwatch /var/lib/private/perfwatch; do
	if [ -e "$f" ] || [ -L "$f" ]; then left+=("$f"); fi
done
[ ${#left[@]} = 0 ] || pw_fail "purge left: ${left[*]}"
! getent passwd perfwatch >/dev/null || pw_fail "purge left the user perfwatch"
! getent group perfwatch >/dev/null || pw_fail "purge left the group perfwatch"
case "$(dpkg-query -W -f='${Status}' perfwatch 2>/dev/null || true)" in
"" | *not-installed) ;;
*) pw_fail "dpkg still knows perfwatch after purge: $(dpkg-query -W -f='${Status}' perfwatch)" ;;
esac

lintian_out=${lintian_out:-no tags}
echo "PASS: perfwatch $version (systemd PID 1: $systemd): build ${t_build}s, upgrade package ${t_rebuild}s," \
	"total ${SECONDS}s; lintian: $lintian_out"
