#!/usr/bin/env bash
# The wall clock stepped under a running perfwatchd (libfaketime: CLOCK_REALTIME faked from a file
# the test rewrites, CLOCK_MONOTONIC left alone; the host's clock is not touched). CpuFrequencyLow
# goes pending, the clock jumps 1 h forward, the alert fires, the clock jumps 2 h back while the
# firing webhook is still in flight, the incident ends and the alert resolves:
# - timers run on the monotonic clock: the `for` (3 s) and `resolve` (3 s) times, the webhook
#   repeats (every 2 s), the state saves (every 1 s) and the samples (100 ms) keep their pace;
# - the alert's times stay right: started <= fired <= ends, each span what the monotonic clock
#   measured (the times move with the step), the resolution's endsAt is the wall clock's time then
#   (an Alertmanager resolves at once, and refuses an endsAt before startsAt), and the delivery
#   latency is not the step.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/notify_lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"
faketime_lib=""
for f in /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 /usr/lib/*/faketime/libfaketime.so.1 \
	/usr/lib/faketime/libfaketime.so.1 /usr/local/lib/faketime/libfaketime.so.1; do
	[ -f "$f" ] && { faketime_lib=$f; break; }
done
[ -n "$faketime_lib" ] || pw_skip "libfaketime is not installed (Debian package faketime)"
# libfaketime's clock_gettime recurses into a sanitizer runtime's start-up (seen: an ASan daemon
# that never became healthy); the clocks are the release build's to prove.
! grep -qaE '__asan_init|__tsan_init' "$PERFWATCHD" || pw_skip "a sanitizer build: libfaketime and its runtime do not start together"

clock="$PW_WORK/clock"
echo "+0" >"$clock"
cat >"$PW_WORK/faked" <<EOF
#!/bin/sh
export LD_PRELOAD="$faketime_lib" FAKETIME_TIMESTAMP_FILE="$clock" FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1
# An ASan build wants its runtime first among the libraries; libfaketime preloaded comes before it.
export ASAN_OPTIONS="\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0"
exec "$PERFWATCHD" "\$@"
EOF
chmod +x "$PW_WORK/faked"
# Steps of the faked wall clock, as offsets from the real one.
step_to() { echo "$1" >"$PW_WORK/clock.tmp" && mv "$PW_WORK/clock.tmp" "$clock"; }

cat >"$PW_WORK/rules.conf" <<'EOF'
[rule.CpuFrequencyLow]
for = 3s
resolve = 3s
EOF
mkdir -p "$PW_WORK/state"
receiver_start
receiver_mode '{"mode": "slow", "delay": 1}'
scenario_start 9 2
start=$(date +%s.%N)
PERFWATCHD="$PW_WORK/faked" pw_start run --procfs "$PW_WORK/tree/proc" --sysfs "$PW_WORK/tree/sys" \
	--interval 100ms --config "$PW_WORK/rules.conf" --webhook "$RX_URL/hook" --webhook-repeat-interval 2s \
	--state-dir "$PW_WORK/state" --state-interval 1s --log-level debug
# pw_start passed --config /dev/null first; the later --config wins.
faked_now=$(curl -s "$PW_URL/metrics" | awk '$1 == "perfwatch_last_sample_timestamp_seconds" { print $2 }')
awk -v f="$faked_now" -v r="$(date +%s.%N)" 'BEGIN { exit !(f - r < 5 && r - f < 5) }' ||
	pw_fail "the faked clock is not at +0 at the start: $faked_now"

now() { date +%s.%N; } # the real clock: the test is not faked
alert_state() { pw_get alerts | jq -r '[.alerts[] | select(.name == "CpuFrequencyLow") | .state][0] // "none"'; }
state_is() { [ "$(alert_state)" = "$1" ]; }
# within A B LO HI: LO <= B - A <= HI
within() { awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" 'BEGIN { d = b - a; exit !(d >= lo && d <= hi) }'; }
iso() { date -u -d "@$1" +%s.%N; }
epoch() { date -u -d "$1" +%s.%N; } # RFC 3339 to epoch seconds
# wait_state STATE SECONDS: poll until the alert is in STATE. It changed after SEEN_AFTER (when the
# last poll that missed it began) and by SEEN_BY: a loaded machine's slow polls widen the bracket,
# they do not move it.
wait_state() {
	local deadline=$((SECONDS + $2)) t
	SEEN_AFTER=$(now)
	while t=$(now) && ! state_is "$1"; do
		[ $SECONDS -lt $deadline ] || return 1
		SEEN_AFTER=$t
		sleep 0.05
	done
	SEEN_BY=$(now)
}

wait_state pending 20 || pw_fail "never pending"
pending_after=$SEEN_AFTER t_pending=$SEEN_BY
samples0=$(pw_metric perfwatch_samples_total)
sleep 1
step_to "+3600"
t_step1=$(now)
wait_state firing 20 || pw_fail "never fired"
fired_after=$SEEN_AFTER t_fired=$SEEN_BY
step_to "-3600" # 2 h back, with the firing webhook in flight (the receiver takes 1 s)
t_step2=$(now)
# At most (fired_by - pending_after), at least (fired_after - pending_by) passed between the two: a
# timer on the wall clock would have fired at the step, 1 s after pending.
within "$pending_after" "$t_fired" 2.9 1000 && within "$t_pending" "$fired_after" -1000 4.5 ||
	pw_fail "for = 3s: fired between $(awk -v a="$t_pending" -v b="$fired_after" 'BEGIN { print b - a }') and $(awk -v a="$pending_after" -v b="$t_fired" 'BEGIN { print b - a }') s after pending"

# /alerts after the step back: the times moved 2 h back with the clock, 3 s apart, and ~1 h behind
# the real clock (the faked one).
pw_wait_for 5 "a sample after the step" pw_has_metric '^perfwatch_last_sample_timestamp_seconds [0-9]'
sleep 0.5
doc=$(pw_get alerts)
started=$(epoch "$(jq -r '.alerts[] | select(.name == "CpuFrequencyLow") | .started_at' <<<"$doc")")
fired=$(epoch "$(jq -r '.alerts[] | select(.name == "CpuFrequencyLow") | .fired_at' <<<"$doc")")
within "$started" "$fired" 2.6 4.0 || pw_fail "/alerts: started $started, fired $fired: $doc"
within "$t_fired" "$fired" -3700 -3500 || pw_fail "/alerts: fired_at $fired is not the faked clock's (real $t_fired - 1 h): $doc"

pw_wait_for 30 "resolved" state_is none || pw_fail "never resolved"
t_resolved=$(now)
recovery=$(jq -r 'select(.phase == "recovery") | .wall' "$PW_WORK/events")
within "$recovery" "$t_resolved" 2.6 5 || pw_fail "resolve = 3s: resolved $(awk -v a="$recovery" -v b="$t_resolved" 'BEGIN { print b - a }') s after the incident ended"
receiver_mode '{"mode": "ok"}'
metric_at_least "perfwatch_notifications_sent_total$RX_LABELS" 1 10
_resolved_in() { [ "$(rx_count log '.body.status == "resolved"')" = 1 ]; }
pw_wait_for 10 "the resolved webhook" _resolved_in || pw_fail "no resolved webhook: $(cat "$PW_WORK/rx.log.jsonl")"

# Webhooks: the firing one before the step back (the fake clock +1 h), the resolved one after (-1 h).
log="$PW_WORK/rx.log.jsonl"
res=$(jq -c 'select(.body.status == "resolved") | .body.alerts[0]' "$log")
r_start=$(epoch "$(jq -r .startsAt <<<"$res")")
r_end=$(epoch "$(jq -r .endsAt <<<"$res")")
within "$t_resolved" "$r_end" -3605 -3595 || pw_fail "resolved endsAt $r_end is not the faked clock's at resolution: $res"
# Its span is what passed on the monotonic clock from pending to resolved (the test's real clock).
span=$(awk -v a="$t_pending" -v b="$t_resolved" 'BEGIN { print b - a }')
within "$r_start" "$r_end" "$(awk -v s="$span" 'BEGIN { print s - 1.5 }')" "$(awk -v s="$span" 'BEGIN { print s + 0.5 }')" ||
	pw_fail "resolved: startsAt $r_start .. endsAt $r_end, but $span s passed: $res"
# Firing and repeats every 2 s of monotonic time (deliveries 1 s each), neither a burst after the
# step forward nor a pause after the step back.
mapfile -t times < <(jq -r 'select(.body.status == "firing") | .time' "$log")
[ "${#times[@]}" -ge 3 ] || pw_fail "want the firing webhook and >= 2 repeats, got ${#times[@]}: $(cat "$log")"
for ((i = 1; i < ${#times[@]}; i++)); do
	within "${times[i - 1]}" "${times[i]}" 1.5 3.2 || pw_fail "repeats ${times[i - 1]} -> ${times[i]}: not 2 s apart"
done
# The latency histogram: the firing webhook took about 1 s (the receiver), not -2 h.
sum=$(pw_metric "perfwatch_notification_delivery_seconds_sum$RX_LABELS")
count=$(pw_metric "perfwatch_notification_delivery_seconds_count$RX_LABELS")
awk -v s="$sum" -v c="$count" 'BEGIN { exit !(c >= 3 && s >= 0 && s / c < 3) }' ||
	pw_fail "delivery latency sum $sum over $count deliveries"

# Samples every 100 ms throughout, none missed; state saved every second.
samples1=$(pw_metric perfwatch_samples_total)
t_end=$(now)
n=$((samples1 - samples0))
want=$(awk -v a="$t_pending" -v b="$t_end" 'BEGIN { printf "%d", (b - a) * 10 }')
[ "$n" -ge $((want - 10)) ] && [ "$n" -le $((want + 10)) ] || pw_fail "$n samples in $want intervals"
[ "$(pw_metric perfwatch_missed_deadlines_total)" = 0 ] || pw_fail "deadlines missed"
pw_healthy || pw_fail "/healthz not 200 after the steps"
pw_stop "$PW_PID"
t_stop=$(now)
saves=$(grep -c "baselines saved to" "$PW_WORK/run.log" || true)
secs=$(awk -v a="$start" -v b="$t_stop" 'BEGIN { printf "%d", b - a }')
[ "$saves" -ge $((secs - 3)) ] && [ "$saves" -le $((secs + 2)) ] || pw_fail "$saves state saves in $secs s at 1 s"
echo PASS
