# lib.sh — shared by the shell tests: scratch trees, a free loopback port, starting perfwatchd and
# waiting for it by polling, in-place rewrites, and cleanup of every process a test starts.
# Sourced by tests/e2e/test_*.sh; ctest provides PERFWATCHD, PW_FIXTURES, PW_TESTS and PW_SCRATCH.
set -euo pipefail

: "${PERFWATCHD:?run through ctest}"
: "${PW_FIXTURES:?run through ctest}"

PW_TEST_NAME=$(basename "$0" .sh)
PW_WORK="${PW_SCRATCH:-/tmp}/$PW_TEST_NAME.$$"
PW_PIDS=()
PW_SHARED=""
mkdir -p "$PW_WORK"

pw_cleanup() {
	local pid
	for pid in "${PW_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$PW_WORK" ${PW_SHARED:+"$PW_SHARED"}
}
trap pw_cleanup EXIT
# A command that fails outside any check (set -e) says where, instead of ending the test silently.
set -E
trap 'echo "FAIL: ${BASH_SOURCE[0]}:$LINENO: \"$BASH_COMMAND\" exited $?" >&2' ERR

pw_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

pw_skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# pw_shared_dir: set PW_SHARED to a new directory under /tmp that every user may traverse (0711),
# removed at exit. $PW_WORK lies in the checkout, which another user may not reach (a clone under
# /root or in a 0700 directory): what a test runs as another uid goes here, with owner and mode set.
pw_shared_dir() {
	PW_SHARED=$(mktemp -d /tmp/perfwatch-test.XXXXXX)
	chmod 0711 "$PW_SHARED"
}

# A TCP port nobody listens on now, on 127.0.0.1.
pw_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# pw_copy_tree KERNEL_ID DEST: a writable copy of tests/fixtures/kernels/KERNEL_ID.
pw_copy_tree() {
	mkdir -p "$2"
	cp -r "$PW_FIXTURES/kernels/$1/proc" "$PW_FIXTURES/kernels/$1/sys" "$2/"
}

# pw_rewrite SRC_DIR DEST_DIR FILE...: each DEST_DIR/FILE gets SRC_DIR/FILE's content in place, as
# the kernel's files change: same inode, one write at offset 0, then truncated; all files in one go.
pw_rewrite() {
	python3 - "$@" <<'PY'
import os, sys
src, dst = sys.argv[1], sys.argv[2]
for name in sys.argv[3:]:
    data = open(os.path.join(src, name), "rb").read()
    fd = os.open(os.path.join(dst, name), os.O_WRONLY)
    os.pwrite(fd, data, 0)
    os.ftruncate(fd, len(data))
    os.close(fd)
PY
}

# pw_start NAME ARGS...: start perfwatchd in the background (its log in $PW_WORK/NAME.log), set
# PW_PID and PW_URL, and wait until /healthz answers 200.
pw_start() {
	local name=$1 attempt
	shift
	# A port pw_free_port found free may be taken by a concurrent test before perfwatchd binds it
	# (it binds after its first sample); then another server answers there and ours cannot listen.
	# So the port must be ours (its listening socket is one of PW_PID's), else try another.
	for attempt in 1 2 3; do
		PW_PORT=$(pw_free_port)
		PW_URL="http://127.0.0.1:$PW_PORT"
		"$PERFWATCHD" --config /dev/null --listen "127.0.0.1:$PW_PORT" "$@" >"$PW_WORK/$name.log" 2>&1 &
		PW_PID=$!
		PW_PIDS+=("$PW_PID")
		pw_wait_for 20 "perfwatchd /healthz" _pw_healthy_or_gone || true
		if kill -0 "$PW_PID" 2>/dev/null && _pw_owns_port "$PW_PID" "$PW_PORT"; then
			pw_wait_for 20 "perfwatchd /healthz" pw_healthy && return 0
		elif ! grep -q "cannot listen" "$PW_WORK/$name.log"; then
			break
		fi
		kill "$PW_PID" 2>/dev/null || true
		wait "$PW_PID" 2>/dev/null || true
	done
	cat "$PW_WORK/$name.log" >&2
	pw_fail "perfwatchd did not become healthy (attempt $attempt)"
}

# Poll until perfwatchd answers /healthz or has exited (pw_start then looks at which).
_pw_healthy_or_gone() {
	kill -0 "$PW_PID" 2>/dev/null || return 0
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$PW_URL/healthz")" = 200 ]
}

# _pw_owns_port PID PORT: PID holds the socket listening on TCP PORT (its own network namespace).
_pw_owns_port() {
	python3 - "$1" "$2" <<'PY'
import os, sys
pid, port = sys.argv[1], int(sys.argv[2])
fds = "/proc/%s/fd" % pid
inodes = set()
for fd in os.listdir(fds):
    try:
        target = os.readlink(os.path.join(fds, fd))
    except OSError:
        continue
    if target.startswith("socket:["):
        inodes.add(target[8:-1])
for table in ("tcp", "tcp6"):
    try:
        rows = open("/proc/%s/net/%s" % (pid, table)).read().splitlines()[1:]
    except OSError:
        continue
    for row in rows:
        f = row.split()
        if f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port and f[9] in inodes:
            sys.exit(0)
sys.exit(1)
PY
}

pw_healthy() {
	kill -0 "$PW_PID" 2>/dev/null || pw_fail "perfwatchd exited: $(cat "$PW_WORK"/*.log)"
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$PW_URL/healthz")" = 200 ]
}

# pw_pool JOBS START FINISH ITEM...: START each ITEM with at most JOBS started and not yet finished;
# FINISH them in the order they started (the scenario tests run several live trees side by side).
pw_pool() {
	local jobs=$1 start=$2 finish=$3 item
	local running=()
	shift 3
	for item; do
		if [ "${#running[@]}" -ge "$jobs" ]; then
			"$finish" "${running[0]}"
			running=("${running[@]:1}")
		fi
		"$start" "$item"
		running+=("$item")
	done
	for item in "${running[@]}"; do
		"$finish" "$item"
	done
}

# pw_wait_for SECONDS WHAT COMMAND...: poll COMMAND every 50 ms (PW_WAIT_STEP seconds) until it succeeds
# or time runs out.
pw_wait_for() {
	local deadline=$((SECONDS + $1)) what=$2
	shift 2
	until "$@"; do
		[ $SECONDS -lt $deadline ] || {
			echo "timed out after waiting for $what" >&2
			return 1
		}
		sleep "${PW_WAIT_STEP:-0.05}"
	done
}

# pw_stop PID: SIGTERM and wait; fails the test if it does not exit 0.
pw_stop() {
	local pid=$1 rc=0
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || pw_fail "perfwatchd exited $rc on SIGTERM"
}

# pw_golden ACTUAL_FILE GOLDEN_FILE: compare, or rewrite the golden with PW_REGENERATE_GOLDEN=1.
pw_golden() {
	if [ "${PW_REGENERATE_GOLDEN:-0}" = 1 ]; then
		cp "$1" "$2"
		echo "regenerated $2"
		return 0
	fi
	diff -u "$2" "$1" || pw_fail "output differs from golden $2 (PW_REGENERATE_GOLDEN=1 to accept)"
}

# pw_get PATH: the body of GET $PW_URL/PATH (fetched whole before anyone greps it: with pipefail,
# `curl | grep -q` fails when grep stops reading early).
pw_get() {
	local body
	body=$(curl -s "$PW_URL/$1") || return 1
	printf '%s\n' "$body"
}

# pw_has_metric ERE: a /metrics line matches.
pw_has_metric() {
	local body
	body=$(pw_get metrics) || return 1
	grep -qE "$1" <<<"$body"
}

# pw_metric SERIES: the value of one exact series, e.g. 'perfwatch_samples_total'.
pw_metric() {
	pw_get metrics | awk -v m="$1" '$1 == m { print $2 }'
}

# pw_wait_samples N: until perfwatch_samples_total >= N.
pw_wait_samples() {
	local want=$1
	_pw_enough() { local n; n=$(pw_metric perfwatch_samples_total); [ "${n:-0}" -ge "$want" ]; }
	pw_wait_for 20 "$want samples" _pw_enough
}

# pw_make_pki DIR: a throwaway CA (DIR/ca.crt) and a server certificate for 127.0.0.1 signed by it
# (DIR/server.crt, DIR/server.key), plus an unrelated key (DIR/other.key); EC P-256, 2 days.
pw_make_pki() {
	command -v openssl >/dev/null || pw_skip "openssl is not installed"
	mkdir -p "$1"
	(
		cd "$1"
		local ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
		openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.crt -days 2 -subj /CN=perfwatch-test-ca
		openssl req "${ec[@]}" -keyout server.key -out server.csr -subj /CN=127.0.0.1
		printf 'subjectAltName=IP:127.0.0.1\n' >san
		openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt \
			-days 2 -extfile san
		openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 -out other.key
	) >/dev/null 2>&1 || pw_fail "openssl could not make the test certificates"
}

# pw_recording_case META PENDING: the recording of tests/fixtures/recordings/META (a NAME.json) and
# how to replay it: sets REC_NAME (its .pwrec without the suffix) and REC_FLAGS (test_incidents.sh's
# settings with PENDING seconds of pending time, or a live case's own replay_args, whose cases
# share one recording). Run the replay from the recordings' directory: a live case's --config is
# the live.conf kept there.
pw_recording_case() {
	local rec
	REC_NAME=$(basename "$1" .json)
	REC_FLAGS=(--config /dev/null --baseline-warmup 6s --alert-for "${2}s")
	rec=$(jq -r '.recording // empty' "$1")
	if [ -n "$rec" ]; then
		REC_NAME=${rec%.pwrec}
		mapfile -t REC_FLAGS < <(jq -r '.replay_args[]' "$1")
	fi
}
