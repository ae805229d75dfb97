#!/usr/bin/env bash
# DNS rebinding: a web page whose name an attacker points at 127.0.0.1 makes the browser send
# "Host: evil.example:PORT" to the loopback listener. Only the listen address, localhost (on a
# loopback listener) and the names of --http-allowed-hosts are answered; anything else gets 421
# on every path, before any password is asked. A request without Host (HTTP/1.0) is answered: no
# browser sends one. A socket passed by systemd is judged by its own address. (A wildcard listener
# and the parsing details are test_http_host's unit cases: tests listen on loopback only.)
source "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || pw_skip "python3 not installed"
tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"
base=(--procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms)

# check PORT [ADDR] < lines "WANT REQUEST": send each REQUEST (with "\r\n" and "\x1b" escapes) on
# a connection of its own to ADDR (127.0.0.1) and compare the answer's status with WANT. One
# Python for all the cases of a daemon.
cat >"$PW_WORK/check.py" <<'PY'
import re, socket, sys
port, addr = int(sys.argv[1]), sys.argv[2]
failed = 0
for line in sys.stdin:
    want, _, request = line.rstrip("\n").partition(" ")
    s = socket.create_connection((addr, port), timeout=5)
    s.sendall(request.encode().decode("unicode_escape").encode("latin-1"))
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    got = m.group(1).decode() if m else "none"
    if got != want:
        print("FAIL: %r: got %s, want %s" % (request, got, want), file=sys.stderr)
        failed += 1
sys.exit(1 if failed else 0)
PY
check() { python3 "$PW_WORK/check.py" "$1" "${2:-127.0.0.1}" || pw_fail "the cases above"; }
# get WANT HOST [PATH]: a line for check: GET PATH (/healthz) with that Host header.
get() { printf '%s GET %s HTTP/1.1\\r\\nHost: %s\\r\\nConnection: close\\r\\n\\r\\n\n' "$1" "${3:-/healthz}" "$2"; }

# The first refusal is logged (then one a minute): a hostile Host shows escaped, never raw.
pw_start loop "${base[@]}"
p=$PW_PORT
get 421 'ev\x1bil.example' | check "$p"
pw_wait_for 5 "the refusal in the log" grep -q "http: refused a request for Host" "$PW_WORK/loop.log" ||
	pw_fail "no log line: $(cat "$PW_WORK/loop.log")"
grep -qF 'ev\x1bil.example' "$PW_WORK/loop.log" || pw_fail "Host not escaped in the log: $(cat -v "$PW_WORK/loop.log")"
! grep -q $'\x1b' "$PW_WORK/loop.log" || pw_fail "a raw ESC in the log"

{
	# The listen address, with or without port; localhost (any case, FQDN dot) on a loopback listener.
	for h in "127.0.0.1:$p" 127.0.0.1 "localhost:$p" localhost LOCALHOST "localhost.:$p" "127.0.0.1:"; do
		get 200 "$h"
	done
	# Names, other addresses, junk: 421, on every path and before auth.
	for h in "evil.example:$p" evil.example "127.0.0.2:$p" "[::1]:$p" "127.1:$p" "127.0.0.1:x" "127.0.0.1:$p:1" \
		"localhost.evil.example" "a b" "[127.0.0.1]" "0x7f.1:$p" "127.0.0.1.nip.io:$p"; do
		get 421 "$h"
	done
	for path in / /metrics /status /alerts /history /ui /nope; do
		get 421 evil.example "$path"
	done
	# No Host at all (HTTP/1.0): answered. Two Host headers: refused, whichever comes first.
	echo '200 GET /healthz HTTP/1.0\r\n\r\n'
	echo "200 GET /healthz HTTP/1.0\\r\\nHost: 127.0.0.1:$p\\r\\n\\r\\n"
	echo "421 GET /healthz HTTP/1.1\\r\\nHost: 127.0.0.1:$p\\r\\nHost: evil.example\\r\\n\\r\\n"
	echo "421 GET /healthz HTTP/1.1\\r\\nHost: evil.example\\r\\nHost: 127.0.0.1\\r\\n\\r\\n"
} | check "$p"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$p/healthz")" = 200 ] || pw_fail "curl via localhost"
body=$(curl -s -H 'Host: evil.example' "$PW_URL/status")
grep -q '^misdirected request' <<<"$body" || pw_fail "421 body: $body"
pw_stop "$PW_PID"

# Configured names (flag, or config key), and "*" for any Host.
pw_start names "${base[@]}" --http-allowed-hosts 'perf.example, Metrics.Example. [2001:db8::1] 192.0.2.7'
{
	for h in "perf.example:$PW_PORT" PERF.EXAMPLE "perf.example." metrics.example "[2001:db8:0::1]:$PW_PORT" \
		192.0.2.7 "127.0.0.1:$PW_PORT" localhost; do
		get 200 "$h"
	done
	for h in other.example "sub.perf.example" "192.0.2.8" "[2001:db8::2]"; do
		get 421 "$h"
	done
} | check "$PW_PORT"
pw_stop "$PW_PID"
printf 'http-allowed-hosts = *\n' >"$PW_WORK/any.conf"
pw_start any "${base[@]}" --config "$PW_WORK/any.conf"
get 200 evil.example | check "$PW_PORT"
pw_stop "$PW_PID"
for bad in 'bad/name' 'a..b' '[::1' 'under score!' "$(printf 'a%.0s' $(seq 1 300))"; do
	rc=0
	"$PERFWATCHD" --config /dev/null "${base[@]}" --check-config --http-allowed-hosts "$bad" >/dev/null 2>"$PW_WORK/err" || rc=$?
	[ "$rc" = 2 ] || pw_fail "--http-allowed-hosts '$bad' exited $rc, want 2"
	grep -q 'http-allowed-hosts' "$PW_WORK/err" || pw_fail "no reason for '$bad': $(cat "$PW_WORK/err")"
done

# An IPv6 loopback listener: [::1] and localhost.
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
	PW_PORT=$(pw_free_port)
	"$PERFWATCHD" --config /dev/null --listen "[::1]:$PW_PORT" "${base[@]}" >"$PW_WORK/v6.log" 2>&1 &
	PW_PID=$!
	PW_PIDS+=("$PW_PID")
	PW_URL="http://[::1]:$PW_PORT"
	pw_wait_for 20 "the IPv6 listener" pw_healthy || pw_fail "$(cat "$PW_WORK/v6.log")"
	{
		for h in "[::1]:$PW_PORT" "[::1]" "[0:0::1]" "localhost:$PW_PORT"; do
			get 200 "$h"
		done
		for h in "127.0.0.1:$PW_PORT" "::1" "evil.example"; do
			get 421 "$h"
		done
	} | check "$PW_PORT" ::1
	pw_stop "$PW_PID"
else
	echo "no IPv6 loopback: its cases skipped"
fi

# Socket activation: the passed socket (127.0.0.1) decides, not --listen ([::1], ignored).
portfile="$PW_WORK/port"
python3 "$PW_TESTS/e2e/sdproto.py" activate "$portfile" -- "$PERFWATCHD" --config /dev/null \
	--listen "[::1]:$(pw_free_port)" "${base[@]}" >"$PW_WORK/activated.log" 2>&1 &
PW_PID=$!
PW_PIDS+=("$PW_PID")
pw_wait_for 10 "the launcher's port" test -s "$portfile"
p=$(cat "$portfile")
PW_URL="http://127.0.0.1:$p"
pw_wait_for 20 "/healthz on the passed socket" pw_healthy || pw_fail "$(cat "$PW_WORK/activated.log")"
{
	get 200 "127.0.0.1:$p"
	get 200 "localhost:$p"
	get 421 "[::1]:$p"
	get 421 "evil.example:$p"
} | check "$p"
pw_stop "$PW_PID"
echo "PASS: only the listen address, localhost on loopback and configured names are answered"
