#!/usr/bin/env bash
# A long /history request is answered on its own thread: /metrics scrapes sent while it renders
# are answered before it ends (on the HTTP thread alone they waited for the whole render). The
# window is a day of a busy 16-CPU host read from disk at 30 s steps (bench/make_store writes a day
# through the daemon's store code), a quarter of a second here; each scrape takes about a
# millisecond. (Six hours at 1 s, read as columns, now take 20 ms: too short to send 5 scrapes in.)
# Then 40 windows asked at once: the first 32 wait their turn and are answered, the rest get 503
# with Retry-After, and the daemon goes on answering.
source "$(dirname "$0")/lib.sh"

make_store="$(dirname "$PERFWATCHD")/../bench/make_store"
[ -x "$make_store" ] || pw_skip "no bench/make_store beside $PERFWATCHD"
tree="$PW_FIXTURES/kernels/host-16cpu-load-1"
"$make_store" "$PW_WORK/state" 16 86400 >/dev/null || pw_fail "make_store failed"
# Per address 64 connections (32 by default, which would refuse the crowd below before the queue).
pw_start iso --procfs "$tree/proc" --sysfs "$tree/sys" --state-dir "$PW_WORK/state" --history 10s \
	--http-max-connections-per-ip 64

stamp() { date +%s%N; }
for attempt in 1 2 3; do
	curl -s -o "$PW_WORK/day.json" -w '%{http_code}' "$PW_URL/history?since=-24h&step=30s" >"$PW_WORK/code" &
	history=$!
	sleep 0.05
	scrapes_from=$(stamp)
	# One curl, one connection kept alive: five processes would take longer to start than to scrape.
	codes=$(curl -s -o /dev/null -w '%{http_code}\n' "$PW_URL/metrics" "$PW_URL/metrics" "$PW_URL/metrics" \
		"$PW_URL/metrics" "$PW_URL/metrics")
	[ "$(grep -c '^200$' <<<"$codes")" = 5 ] || pw_fail "scrapes answered: $codes"
	scrapes_done=$(stamp)
	running=0
	kill -0 "$history" 2>/dev/null && running=1
	wait "$history"
	history_done=$(stamp)
	[ "$(cat "$PW_WORK/code")" = 200 ] || pw_fail "/history?since=-24h&step=30s answered $(cat "$PW_WORK/code")"
	[ "$running" = 1 ] && break
	# The window came back before the scrapes were done: on a fast machine, or the scrapes waited.
	echo "attempt $attempt: the window took $(((history_done - scrapes_from) / 1000000)) ms after the first" \
		"scrape, the 5 scrapes $(((scrapes_done - scrapes_from) / 1000000)) ms" >&2
done
[ "$running" = 1 ] || pw_fail "5 scrapes were not answered while /history?since=-24h&step=30s rendered (3 attempts)"
points=$(jq '.time_ms | length' "$PW_WORK/day.json")
[ "$points" -ge 2000 ] || pw_fail "a day at 30 s steps came back with $points rows"
echo "5 scrapes in $(((scrapes_done - scrapes_from) / 1000000)) ms while the window rendered" \
	"(done $(((history_done - scrapes_done) / 1000000)) ms after them, $points rows)"

# A long answer is sent as it is made (chunked), and is the same answer as the whole one (gzip):
# an hour of the day on disk, a fixed window, its figures and times compared.
until_s=$(($(date +%s) - 600))
window="since=$((until_s - 3600))&until=$until_s"
curl -s -D "$PW_WORK/streamed-head" -o "$PW_WORK/streamed.json" "$PW_URL/history?$window" ||
	pw_fail "the streamed hour failed"
grep -qi '^Transfer-Encoding: chunked' "$PW_WORK/streamed-head" ||
	pw_fail "an hour of 16 CPUs was not streamed: $(tr -d '\r' <"$PW_WORK/streamed-head" | tr '\n' ' ')"
curl -s --compressed -D "$PW_WORK/whole-head" -o "$PW_WORK/whole.json" "$PW_URL/history?$window" ||
	pw_fail "the gzipped hour failed"
grep -qi '^Content-Encoding: gzip' "$PW_WORK/whole-head" || pw_fail "the hour asked with gzip was not gzipped"
figures='[.time_ms, (.signals | map([.key, .values]))]'
[ "$(jq -c "$figures" "$PW_WORK/streamed.json")" = "$(jq -c "$figures" "$PW_WORK/whole.json")" ] ||
	pw_fail "the streamed hour differs from the whole one"
rows=$(jq '.time_ms | length' "$PW_WORK/streamed.json")
[ "$rows" -ge 3000 ] || pw_fail "the streamed hour has $rows rows"
# Clients that hang up mid-answer (after 64 KiB), and a HEAD: the daemon goes on answering.
for _ in $(seq 10); do
	curl -s -N "$PW_URL/history?since=-6h" 2>/dev/null | head -c 65536 >/dev/null || true
done
[ "$(curl -s -I -o /dev/null -w '%{http_code}' "$PW_URL/history?since=-1h")" = 200 ] || pw_fail "HEAD /history"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$PW_URL/history?$window")" = 200 ] ||
	pw_fail "no hour after clients hung up"
pw_has_metric '^perfwatch_samples_total ' || pw_fail "no /metrics after clients hung up"
echo "streamed: $rows rows in $(grep -c . "$PW_WORK/streamed.json") line(s), equal to the gzipped answer"

# A crowd: 32 wait their turn, the rest are refused at once, nothing is lost.
crowd=()
for i in $(seq 40); do
	curl -s -m 60 -o "$PW_WORK/crowd-body$i" -D "$PW_WORK/crowd-head$i" -w '%{http_code}\n' "$PW_URL/history?since=-1h" \
		>"$PW_WORK/crowd-code$i" &
	crowd+=($!)
done
wait "${crowd[@]}" || true # the daemon is a child too: not a bare wait
codes=$(cat "$PW_WORK"/crowd-code*)
ok=$(grep -c '^200$' <<<"$codes" || true)
busy=$(grep -c '^503$' <<<"$codes" || true)
[ $((ok + busy)) = 40 ] || pw_fail "40 requests: $ok answered, $busy refused, the others: $(grep -v '^200$\|^503$' <<<"$codes" | sort | uniq -c | tr '\n' ' ')"
[ "$ok" -ge 32 ] || pw_fail "only $ok of 40 answered (32 may wait)"
if [ "$busy" -gt 0 ]; then
	refused=$(grep -l '^HTTP/1.1 503' "$PW_WORK"/crowd-head* | head -1)
	grep -qi '^Retry-After: 1' "$refused" || pw_fail "a 503 without Retry-After"
	# Its body exactly: the length once counted two bytes past the text (ASan: a global overflow).
	[ "$(od -An -c "${refused/crowd-head/crowd-body}" | tr -s ' \n' ' ')" = \
		"$(printf 'too many /history requests waiting\n' | od -An -c | tr -s ' \n' ' ')" ] ||
		pw_fail "the 503's body: $(od -c "${refused/crowd-head/crowd-body}" | head -3)"
fi
[ "$(curl -s -o /dev/null -w '%{http_code}' "$PW_URL/history?since=-2s")" = 200 ] || pw_fail "no answer after the crowd"
pw_has_metric '^perfwatch_samples_total ' || pw_fail "no /metrics after the crowd"
echo "PASS: 40 at once: $ok answered, $busy refused with 503"
