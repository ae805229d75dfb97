#!/usr/bin/env bash
# HTTP behaviour: routing, methods, content negotiation, gzip, hostile requests, staleness.
source "$(dirname "$0")/lib.sh"

tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"
pw_start http --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms

code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }

[ "$(code "$PW_URL/")" = 200 ] || pw_fail "GET / is not 200"
[ "$(code "$PW_URL/nope")" = 404 ] || pw_fail "unknown path is not 404"
[ "$(code "$PW_URL/metrics/extra")" = 404 ] || pw_fail "/metrics/extra is not 404"
[ "$(code -X POST -d x=1 "$PW_URL/metrics")" = 405 ] || pw_fail "POST /metrics is not 405"
[ "$(code -X DELETE "$PW_URL/status")" = 405 ] || pw_fail "DELETE /status is not 405"
grep -qi '^Allow: GET, HEAD' <<<"$(curl -s -D - -o /dev/null -X PUT "$PW_URL/metrics")" || pw_fail "405 without Allow"
[ "$(code -I "$PW_URL/metrics")" = 200 ] || pw_fail "HEAD /metrics is not 200"
[ -z "$(curl -s -I "$PW_URL/metrics" -o /dev/null -w '%{size_download}' | tr -d 0)" ] || pw_fail "HEAD sent a body"

# Keep-alive: Prometheus reuses its connection; a second request on it must not need a new one.
reuse=$(curl -sv -o /dev/null -o /dev/null "$PW_URL/metrics" "$PW_URL/status" 2>&1)
grep -q 'Re-using existing connection' <<<"$reuse" || pw_fail "the connection was not kept alive"
# A request body (never used) is read and skipped, then answered.
[ "$(code -X POST --data-binary @<(head -c 100000 /dev/zero) "$PW_URL/metrics")" = 405 ] ||
	pw_fail "POST with a 100 kB body is not 405"

# /status: JSON for tools (curl's */*), one screenful of text for people on request.
curl -s -D "$PW_WORK/sh" -o "$PW_WORK/status.json" "$PW_URL/status"
grep -qi '^Content-Type: application/json' "$PW_WORK/sh" || pw_fail "/status is not JSON by default"
for how in "$PW_URL/status?format=text" "-H Accept:text/plain $PW_URL/status"; do
	# shellcheck disable=SC2086 # $how is a curl argument list
	curl -s -D "$PW_WORK/sh" -o "$PW_WORK/status.txt" $how
	grep -qi '^Content-Type: text/plain' "$PW_WORK/sh" || pw_fail "/status text content type ($how)"
	grep -q '^DIAGNOSIS  ' <<<"$(head -2 "$PW_WORK/status.txt")" || pw_fail "the text /status does not start with the diagnosis"
	[ "$(wc -l <"$PW_WORK/status.txt")" -le 24 ] || pw_fail "the text /status is over one screen"
done

# Text format by default, OpenMetrics on request.
curl -s -D "$PW_WORK/h" -o "$PW_WORK/text" "$PW_URL/metrics"
grep -qi '^Content-Type: text/plain; version=0.0.4' "$PW_WORK/h" || pw_fail "text content type"
grep -q '^# EOF' "$PW_WORK/text" && pw_fail "text format must not end with # EOF"
curl -s -D "$PW_WORK/h" -o "$PW_WORK/om" -H 'Accept: application/openmetrics-text; version=1.0.0' "$PW_URL/metrics"
grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0' "$PW_WORK/h" || pw_fail "OpenMetrics content type"
[ "$(tail -n 1 "$PW_WORK/om")" = "# EOF" ] || pw_fail "OpenMetrics does not end with # EOF"
grep -q '^# UNIT perfwatch_cpu_seconds seconds' "$PW_WORK/om" || pw_fail "OpenMetrics has no UNIT for cpu_seconds"

# Small bodies go plain even when gzip is accepted (compressing 16 KiB costs more than it saves).
curl -s -D "$PW_WORK/h" -o /dev/null -H 'Accept-Encoding: gzip' "$PW_URL/metrics"
grep -qi '^Content-Encoding' "$PW_WORK/h" && pw_fail "a 2-CPU body was gzipped"

# Big bodies (16 CPUs with per-CPU interrupt series) are gzipped when accepted, the same document inside.
small_pid=$PW_PID small_url=$PW_URL small_port=$PW_PORT
big="$PW_WORK/big"
pw_copy_tree host-16cpu-load-1 "$big"
pw_start big --procfs "$big/proc" --sysfs "$big/sys" --interrupts-per-cpu
curl -s -D "$PW_WORK/h" -o "$PW_WORK/gz" -H 'Accept-Encoding: gzip' "$PW_URL/metrics"
grep -qi '^Content-Encoding: gzip' "$PW_WORK/h" || pw_fail "no gzip when accepted"
grep -q '^perfwatch_interrupts_per_cpu_total{irq="LOC",device="Local timer interrupts",cpu="2"} 2218$' \
	<<<"$(gzip -dc "$PW_WORK/gz")" || pw_fail "gzip body does not hold the per-CPU metrics"
# ERR and MIS print one host-wide count (0 in the capture): a total, no per-CPU series.
grep -qE '^perfwatch_interrupts_per_cpu_total\{irq="(ERR|MIS)"' <<<"$(gzip -dc "$PW_WORK/gz")" &&
	pw_fail "per-CPU series for ERR/MIS"
grep -q '^perfwatch_interrupts_total{irq="ERR",chip="",device=""} 0$' <<<"$(gzip -dc "$PW_WORK/gz")" ||
	pw_fail "no ERR total"
curl -s -D "$PW_WORK/h" -o /dev/null -H 'Accept-Encoding: gzip;q=0' "$PW_URL/metrics"
grep -qi '^Content-Encoding' "$PW_WORK/h" && pw_fail "gzip despite q=0"
pw_stop "$PW_PID"
PW_PID=$small_pid PW_URL=$small_url PW_PORT=$small_port

# Hostile requests: an oversized header block, a garbage request line, a half-sent request.
big=$(head -c 60000 /dev/zero | tr '\0' a)
c=$(code -H "X-Big: $big" "$PW_URL/metrics" || true)
[ "$c" = 431 ] || [ "$c" = 413 ] || [ "$c" = 400 ] || [ "$c" = 000 ] || pw_fail "oversized header got $c"
printf 'BLAH\r\n\r\n' | timeout 5 python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.stdin.buffer.read()); s.settimeout(5)
try: s.recv(100)
except Exception: pass' "$PW_PORT"
python3 - "$PW_PORT" <<'PY' &
import socket, sys, time
# Opens and never finishes a request; the server must keep serving others meanwhile.
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
time.sleep(3)
PY
slow=$!
PW_PIDS+=("$slow")
[ "$(code -m 2 "$PW_URL/healthz")" = 200 ] || pw_fail "a half-sent request stalled the server"
wait "$slow" || true

# Staleness: an enormous /proc/vmstat makes each sample take longer than three 10 ms intervals, so
# /healthz must say 503 and missed deadlines must be counted, while the daemon keeps serving.
pw_stop "$PW_PID"
python3 - "$tree/proc/vmstat" <<'PY'
import sys
with open(sys.argv[1], "a") as f:
    f.write("".join("unknown_counter_%d %d\n" % (i, i) for i in range(1500000)))
PY
pw_start_slow() {
	PW_PORT=$(pw_free_port)
	PW_URL="http://127.0.0.1:$PW_PORT"
	"$PERFWATCHD" --config /dev/null --listen "127.0.0.1:$PW_PORT" --procfs "$tree/proc" --sysfs "$tree/sys" \
		--interval 10ms >"$PW_WORK/slow.log" 2>&1 &
	PW_PID=$!
	PW_PIDS+=("$PW_PID")
}
pw_start_slow
stale() { [ "$(code "$PW_URL/healthz")" = 503 ]; }
pw_wait_for 30 "/healthz 503 on a slow sampler" stale || pw_fail "never 503"
missed() { pw_has_metric '^perfwatch_missed_deadlines_total [1-9]'; }
pw_wait_for 30 "missed deadlines counted" missed || pw_fail "missed deadlines not counted"
pw_stop "$PW_PID"
echo PASS
