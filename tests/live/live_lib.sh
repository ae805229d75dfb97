# shellcheck shell=bash
# shellcheck disable=SC2034 # DISK, CG, NS and REASON are results for the cases that call the helpers
# live_lib.sh — shared by tests/live/test_*.sh: real incidents produced on this machine, judged by a
# perfwatchd sampling the real /proc and /sys. Adds to tests/e2e/lib.sh: root and facility checks
# (exit 77 with the reason), a cleanup trap that removes every resource a case creates on every exit
# path (processes by PID, cgroups, swap files, network namespaces, files), daemons on a free loopback
# port with a poller logging /alerts and /status every 250 ms, and the workload binary (load.c).
# Run through ctest, or by hand as root: LIVE_CASES="a c" bash tests/live/test_live_incidents.sh
LIVE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${PERFWATCHD:=$LIVE_DIR/../../build/daemon/perfwatchd}"
: "${PW_FIXTURES:=$LIVE_DIR/../fixtures}"
: "${PW_TESTS:=$LIVE_DIR/..}"
export PERFWATCHD PW_FIXTURES PW_TESTS
# shellcheck source=tests/e2e/lib.sh disable=SC1091
source "$LIVE_DIR/../e2e/lib.sh"

LIVE_WARMUP=${LIVE_WARMUP:-30}   # --baseline-warmup, seconds
LIVE_ALERT_FOR=3                 # --alert-for, seconds
LIVE_PIDS=() LIVE_CGROUPS=() LIVE_SWAPS=() LIVE_NETNS=() LIVE_FILES=()
declare -A LIVE_URL LIVE_DPID

# Undo in the reverse order of dependence: processes first (they hold cgroups, swap pages and
# namespaces), then what they used. Every step tolerates a resource already gone.
live_cleanup() {
	local pid cg swap ns i alive
	trap - INT TERM
	for pid in "${LIVE_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for i in $(seq 20); do
		alive=0
		for pid in "${LIVE_PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
		[ $alive = 1 ] || break
		sleep 0.1
	done
	for pid in "${LIVE_PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
	for cg in "${LIVE_CGROUPS[@]}"; do live_cgroup_remove "$cg"; done
	for swap in "${LIVE_SWAPS[@]}"; do
		swapoff "$swap" 2>/dev/null || true
		rm -f "$swap"
	done
	for ns in "${LIVE_NETNS[@]}"; do ip netns delete "$ns" 2>/dev/null || true; done
	for i in "${LIVE_FILES[@]}"; do rm -rf "$i"; done
	pw_cleanup
}
trap live_cleanup EXIT
# Signals end the script through exit, so the EXIT trap cleans up after ^C and ctest's timeout too.
trap 'exit 130' INT
trap 'exit 143' TERM

live_now() { date +%s.%N; }
# live_sleep SECONDS: a sleep a signal interrupts (bash runs a trap only after a foreground command
# ends, so a plain 15 s sleep would hold back the cleanup of ^C or ctest's timeout).
live_sleep() {
	sleep "$1" &
	wait $!
}

# live_require_root: the whole suite needs root (namespaces, swap, cgroups, the real /sys).
live_require_root() {
	[ "$(id -u)" = 0 ] || pw_skip "the live suite needs root (network namespaces, swap, cgroups)"
	if [ ! -r /proc/stat ] || [ ! -r /proc/interrupts ]; then pw_skip "no /proc/stat or /proc/interrupts here"; fi
	command -v cc >/dev/null || pw_skip "no C compiler (cc) for the workloads"
}

# live_missing CMD...: the commands not installed (empty when all are).
live_missing() {
	local c
	for c; do command -v "$c" >/dev/null || printf '%s ' "$c"; done
}

# live_build_load: compile load.c into $LOAD.
live_build_load() {
	LOAD="$PW_WORK/load"
	cc -O2 -o "$LOAD" "$LIVE_DIR/load.c" || pw_fail "cannot compile tests/live/load.c"
}

# live_bg CMD...: run CMD in the background (output to $PW_WORK/workload.log) and register its PID;
# CASE_PIDS collects the current case's PIDs so the case stops them.
live_bg() {
	"$@" >>"$PW_WORK/workload.log" 2>&1 &
	LIVE_PIDS+=($!)
	CASE_PIDS+=($!)
}

# live_stop_case: stop the current case's processes by PID (SIGTERM, then SIGKILL after 2 s).
live_stop_case() {
	local pid
	for pid in "${CASE_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${CASE_PIDS[@]}"; do
		pw_wait_for 2 "workload $pid to end" _live_gone "$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	CASE_PIDS=()
}
_live_gone() { ! kill -0 "$1" 2>/dev/null; }

# live_daemon_start NAME: perfwatchd on the real /proc and /sys at a free loopback port, recording
# to $PW_WORK/NAME.pwrec, and its poller logging to $PW_WORK/NAME.poll. Sets LIVE_URL[NAME] and
# LIVE_DPID[NAME]. A port found free may be taken before perfwatchd binds it: then try another.
live_daemon_start() {
	local name=$1 _
	for _ in 1 2 3; do
		PW_PORT=$(pw_free_port)
		PW_URL="http://127.0.0.1:$PW_PORT"
		"$PERFWATCHD" --config "$LIVE_DIR/live.conf" --listen "127.0.0.1:$PW_PORT" --interval 1s \
			--baseline-warmup "${LIVE_WARMUP}s" --alert-for "${LIVE_ALERT_FOR}s" \
			--record "$PW_WORK/$name.pwrec" >"$PW_WORK/$name.log" 2>&1 &
		PW_PID=$!
		LIVE_PIDS+=("$PW_PID")
		pw_wait_for 20 "perfwatchd /healthz" _pw_healthy_or_gone || true
		if kill -0 "$PW_PID" 2>/dev/null && _pw_owns_port "$PW_PID" "$PW_PORT"; then
			pw_wait_for 20 "perfwatchd /healthz" pw_healthy || break
			LIVE_URL[$name]=$PW_URL LIVE_DPID[$name]=$PW_PID
			python3 "$LIVE_DIR/poll.py" "$PW_URL" "$PW_WORK/$name.poll" "$PW_PID" 1800 &
			LIVE_PIDS+=($!)
			return 0
		fi
		kill "$PW_PID" 2>/dev/null || true
		wait "$PW_PID" 2>/dev/null || true
		grep -q "cannot listen" "$PW_WORK/$name.log" || break
	done
	cat "$PW_WORK/$name.log" >&2
	pw_fail "perfwatchd did not become healthy"
}

# live_daemon_stop NAME: SIGTERM by PID; the recording is complete once it has exited.
live_daemon_stop() {
	pw_stop "${LIVE_DPID[$1]}"
}

# live_active NAME: how many alerts are pending or firing on daemon NAME now.
live_active() {
	curl -sf "${LIVE_URL[$1]}/alerts" | jq '.alerts | length'
}
_live_quiet() { [ "$(live_active "$1")" = 0 ]; }

# live_wait_quiet NAME SECONDS: until daemon NAME has no active alert, at most SECONDS (no failure:
# the judge says which alert outlived its workload).
live_wait_quiet() {
	live_wait_for "$2" "no active alert" _live_quiet "$1" 2>/dev/null || true
}

# live_wait_for SECONDS WHAT CMD...: pw_wait_for at one look a second. Its 20 looks a second (a
# curl and a jq each) took 30% of this 2-CPU machine: the daemons learned the suite's own polling
# as the host's normal load.
live_wait_for() { PW_WAIT_STEP=1 pw_wait_for "$@"; }

_live_warm() { [ "$(curl -sf "${LIVE_URL[$1]}/status" | jq .detector.warm)" = true ]; }
# live_wait_warm NAME: until daemon NAME's detector ends its warmup.
live_wait_warm() {
	live_wait_for $((LIVE_WARMUP + 30)) "the baseline warmup" _live_warm "$1"
}

# The helpers below set a global (DISK, CG, NS) rather than print, so that what they register stays
# in this shell; on failure they set REASON and return 1.

# live_disk_dir: DISK, a directory on a disk file system, for direct I/O and the swap file (tmpfs
# and overlayfs take neither).
live_disk_dir() {
	local fs
	DISK=$(mktemp -d "${LIVE_DISK:-/var/tmp}/pwlive.XXXXXX") || { REASON="cannot create a directory in ${LIVE_DISK:-/var/tmp}"; return 1; }
	LIVE_FILES+=("$DISK")
	fs=$(stat -f -c %T "$DISK")
	case $fs in
	tmpfs | overlayfs | ramfs | nfs* | fuse*) REASON="$DISK is on $fs: no direct I/O to a disk, no swap file"; return 1 ;;
	esac
}

# _live_cgroup NAME CONTROLLER V1_FILE: CG, a new cgroup NAME, registered for removal: on the
# unified hierarchy where CONTROLLER is there (enabled for children; LIVE_CG_V2=1), else beside
# V1_FILE in its v1 hierarchy (LIVE_CG_V2=0). Fails when neither has the controller.
_live_cgroup() {
	local r root=""
	LIVE_CG_V2=0
	for r in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		grep -qw "$2" "$r/cgroup.controllers" 2>/dev/null || continue
		grep -qw "$2" "$r/cgroup.subtree_control" || echo "+$2" >"$r/cgroup.subtree_control" || continue
		root=$r LIVE_CG_V2=1
		break
	done
	if [ -z "$root" ]; then
		[ -f "$3" ] || return 1
		root=$(dirname "$3")
	fi
	CG="$root/$1"
	mkdir "$CG" || return 1
	LIVE_CGROUPS+=("$CG")
}

# live_cgroup_memory NAME LIMIT: CG, a memory cgroup limited to LIMIT bytes with swap unlimited: v2
# where the memory controller is on the unified hierarchy, else v1.
live_cgroup_memory() {
	REASON="cannot create memory cgroup $1 (cgroup v2 memory controller, or v1 memory hierarchy)"
	_live_cgroup "$1" memory /sys/fs/cgroup/memory/memory.limit_in_bytes || return 1
	if [ "$LIVE_CG_V2" = 1 ]; then
		echo "$2" >"$CG/memory.max" && echo max >"$CG/memory.swap.max"
	else
		# v1 leaves memory+swap (memory.memsw.limit_in_bytes) unlimited unless told otherwise.
		echo "$2" >"$CG/memory.limit_in_bytes"
	fi
}

# live_whole_disk DIR: MAJ:MIN of the whole disk holding DIR (a partition's parent), for blk-throttle.
live_whole_disk() {
	local sys
	sys=/sys/dev/block/$(stat -c '%Hd:%Ld' "$1") && [ -e "$sys" ] || return 1
	[ -f "$sys/partition" ] && sys=$(readlink -f "$sys")/..
	cat "$sys/dev"
}

# live_cgroup_io_cap NAME DIR IOPS: CG, a cgroup whose writes to the disk holding DIR are capped at
# IOPS a second (blk-throttle, as a cloud volume's provisioned IOPS): v2 io.max where the io
# controller is on the unified hierarchy, else v1 blkio.
live_cgroup_io_cap() {
	local dev
	dev=$(live_whole_disk "$2") || { REASON="no block device found under $2"; return 1; }
	REASON="cannot create an I/O cgroup $1 capping $dev (cgroup v2 io controller, or v1 blkio)"
	_live_cgroup "$1" io /sys/fs/cgroup/blkio/blkio.throttle.write_iops_device || return 1
	if [ "$LIVE_CG_V2" = 1 ]; then
		echo "$dev wiops=$3" >"$CG/io.max"
	else
		echo "$dev $3" >"$CG/blkio.throttle.write_iops_device"
	fi
}

# live_cgroup_remove DIR: kill what is left inside (by PID), then remove it.
live_cgroup_remove() {
	local pid i
	[ -d "$1" ] || return 0
	[ -f "$1/cgroup.kill" ] && { echo 1 >"$1/cgroup.kill" 2>/dev/null || true; }
	for i in $(seq 30); do
		while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done <"$1/cgroup.procs"
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "cannot remove cgroup $1" >&2
}

# live_swapfile PATH SIZE_MIB: a swap file, registered, swapped on.
live_swapfile() {
	LIVE_SWAPS+=("$1")
	REASON="cannot make a ${2} MiB swap file at $1"
	fallocate -l "${2}M" "$1" 2>/dev/null || dd if=/dev/zero of="$1" bs=1M count="$2" status=none || return 1
	chmod 600 "$1"
	mkswap -q "$1" >/dev/null 2>&1 || return 1
	swapon "$1" 2>/dev/null && return 0
	# Some file systems refuse fallocated swap files (holes); written ones they take.
	dd if=/dev/zero of="$1" bs=1M count="$2" status=none && mkswap -q "$1" >/dev/null 2>&1 && swapon "$1" 2>/dev/null && return 0
	REASON="the kernel refuses a swap file on $(stat -f -c %T "$1") ($1)"
	return 1
}

# live_netns: NS, a private network namespace with lo up, registered.
live_netns() {
	NS="pwlive$$"
	REASON="cannot create network namespace $NS"
	ip netns add "$NS" || return 1
	LIVE_NETNS+=("$NS")
	ip -n "$NS" link set lo up
}
