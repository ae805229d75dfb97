#!/usr/bin/env bash
# Socket activation: a launcher passes a listening socket as fd 3 (LISTEN_FDS=1, LISTEN_PID = the
# daemon), as systemd does for perfwatchd.socket. The daemon serves on it, ignores --listen and says
# so; with LISTEN_PID naming another process the variables are not for it and --listen is used.
source "$(dirname "$0")/lib.sh"

tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"
portfile="$PW_WORK/port"
ignored=$(pw_free_port)

# 1. fd 3 from the launcher; --listen names another free port, which must stay closed.
python3 "$PW_TESTS/e2e/sdproto.py" activate "$portfile" -- "$PERFWATCHD" --config /dev/null \
	--listen "127.0.0.1:$ignored" --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms \
	>"$PW_WORK/activated.log" 2>&1 &
PW_PID=$!
PW_PIDS+=("$PW_PID")
pw_wait_for 10 "the launcher's port" test -s "$portfile"
PW_URL="http://127.0.0.1:$(cat "$portfile")"
pw_wait_for 20 "/healthz on the passed socket" pw_healthy || pw_fail "not serving on fd 3: $(cat "$PW_WORK/activated.log")"
pw_has_metric '^perfwatch_samples_total [0-9]+' || pw_fail "no /metrics on the passed socket"
grep -qF "socket activation: serving on fd 3 ($(sed 's/^/127.0.0.1:/' "$portfile")) passed by systemd; listen 127.0.0.1:$ignored ignored" \
	"$PW_WORK/activated.log" || pw_fail "no log line about socket activation: $(cat "$PW_WORK/activated.log")"
grep -qF "listening on http://127.0.0.1:$(cat "$portfile")," "$PW_WORK/activated.log" ||
	pw_fail "start-up line does not name the passed socket"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$ignored/healthz" || true)
[ "$code" = 000 ] || pw_fail "--listen port answered $code although a socket was passed"
pw_stop "$PW_PID"

# 2. LISTEN_PID of another process: not ours, serve on --listen as usual.
LISTEN_FDS=1 LISTEN_PID=1 pw_start foreign --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms
grep -q "socket activation" "$PW_WORK/foreign.log" && pw_fail "took fds meant for pid 1"
# SIGINT stops it like SIGTERM, exit 0 (a background job starts with SIGINT ignored: still taken).
kill -INT "$PW_PID"
rc=0
wait "$PW_PID" || rc=$?
[ "$rc" = 0 ] || pw_fail "exit $rc on SIGINT"
grep -q "Interrupt received, stopping" "$PW_WORK/foreign.log" || pw_fail "SIGINT not logged: $(cat "$PW_WORK/foreign.log")"

# 3. fd 3 that is not a listening socket: a clear error, exit 1.
rc=0
python3 - "$PERFWATCHD" "$tree" >"$PW_WORK/bad.log" 2>&1 <<'PY' || rc=$?
import os, sys
r, w = os.pipe()
os.dup2(r, 3)
env = dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
tree = sys.argv[2]
os.execve(sys.argv[1], [sys.argv[1], "--config", "/dev/null", "--procfs", tree + "/proc", "--sysfs", tree + "/sys"], env)
PY
[ "$rc" = 1 ] || pw_fail "a pipe as fd 3: exit $rc, want 1: $(cat "$PW_WORK/bad.log")"
grep -q "socket activation: fd 3 is not a listening TCP socket" "$PW_WORK/bad.log" || pw_fail "said: $(cat "$PW_WORK/bad.log")"

# 4. systemd's own launcher, when installed, does the same.
if command -v systemd-socket-activate >/dev/null; then
	port=$(pw_free_port)
	systemd-socket-activate -l "127.0.0.1:$port" "$PERFWATCHD" --config /dev/null --listen "127.0.0.1:$ignored" \
		--procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms >"$PW_WORK/ssa.log" 2>&1 &
	PW_PID=$!
	PW_PIDS+=("$PW_PID")
	PW_URL="http://127.0.0.1:$port"
	# It accepts nothing itself and execs the daemon on the first connection: poll until it answers.
	pw_wait_for 20 "/healthz via systemd-socket-activate" pw_healthy || pw_fail "$(cat "$PW_WORK/ssa.log")"
	grep -q "socket activation: serving on fd 3" "$PW_WORK/ssa.log" || pw_fail "$(cat "$PW_WORK/ssa.log")"
	pw_stop "$PW_PID"
fi
echo "PASS: serves on the passed socket, ignores --listen, rejects foreign and bad fds"
