#!/usr/bin/env bash
# Streamed /history answers under ThreadSanitizer: the history thread pushes an answer's blocks while
# libmicrohttpd's thread sends them and suspends the connection between them (daemon/history_stream.c).
# A TSan build of perfwatchd serves a 16-CPU store (bench/make_store, three hours) while, at once,
# clients read whole hours (streamed), hang up after 64 KiB, ask with HEAD and read slowly, and
# /metrics is scraped; then it is stopped with a slow reader still reading. Passes when every whole
# hour parses with all its rows, /metrics was answered throughout, the daemon exits 0 and TSan
# reported nothing. Skips unless $PERFWATCHD is a TSan build (make test-tsan). About 30 s.
if [ "${PW_TSAN_NORANDOMIZE:-}" != 1 ] && command -v setarch >/dev/null; then
	PW_TSAN_NORANDOMIZE=1 exec setarch "$(uname -m)" -R bash "$0" "$@"
fi
source "$(dirname "$0")/../e2e/lib.sh"

grep -qa __tsan_init "$PERFWATCHD" || pw_skip "$PERFWATCHD is not a ThreadSanitizer build (make test-tsan builds one)"
command -v jq >/dev/null || pw_skip "jq not installed"
make_store="$(dirname "$PERFWATCHD")/../bench/make_store"
[ -x "$make_store" ] || pw_skip "no bench/make_store beside $PERFWATCHD"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4"

tree="$PW_FIXTURES/kernels/host-16cpu-load-1"
"$make_store" "$PW_WORK/state" 16 10800 >/dev/null || pw_fail "make_store failed"
pw_start stream --procfs "$tree/proc" --sysfs "$tree/sys" --state-dir "$PW_WORK/state" --history 10s \
	--http-timeout 5s
log="$PW_WORK/stream.log"
tsan_report() {
	sed -n '/WARNING: ThreadSanitizer/,/SUMMARY: ThreadSanitizer/p' "$log"
}

until_s=$(($(date +%s) - 60))
hour="$PW_URL/history?since=$((until_s - 3600))&until=$until_s"
clients=()
for i in 1 2 3; do
	curl -s -m 120 -o "$PW_WORK/hour$i.json" "$hour" &
	clients+=($!)
	for _ in 1 2; do curl -s -N -m 120 "$hour" 2>/dev/null | head -c 65536 >/dev/null & done
	curl -s -I -m 120 -o /dev/null "$hour" &
done
curl -s -m 120 --limit-rate 400k -o "$PW_WORK/slow.json" "$hour" &
clients+=($!)
scrapes=0
while jobs -r | grep -q curl; do
	[ "$(curl -s -m 10 -o /dev/null -w '%{http_code}' "$PW_URL/metrics")" = 200 ] ||
		pw_fail "/metrics not answered while hours streamed $(tsan_report)"
	scrapes=$((scrapes + 1))
	sleep 0.2
done
for pid in "${clients[@]}"; do wait "$pid" || pw_fail "a client reading a whole hour failed $(tsan_report)"; done
for f in "$PW_WORK"/hour[123].json "$PW_WORK/slow.json"; do
	rows=$(jq '.time_ms | length' "$f" 2>/dev/null) || pw_fail "$(basename "$f") is not JSON $(tsan_report)"
	[ "$rows" -ge 3000 ] || pw_fail "$(basename "$f"): $rows rows"
done

# Stopped while a slow client is still reading a streamed hour.
curl -s -m 60 --limit-rate 100k -o /dev/null "$hour" &
sleep 2
pw_stop "$PW_PID" || pw_fail "perfwatchd did not exit 0 with a streamed answer in flight $(tsan_report)"
wait || true
report=$(tsan_report)
[ -z "$report" ] || pw_fail "ThreadSanitizer reported: $report"
echo "PASS: 4 whole hours streamed, 6 clients hung up, 3 HEADs, $scrapes scrapes beside them, stopped mid-stream"
