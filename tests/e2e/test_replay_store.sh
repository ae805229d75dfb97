#!/usr/bin/env bash
# --replay STATE_DIR: the detector judges the history on disk again. Every recorded incident, trap
# and live case (tests/fixtures/recordings) is replayed into a store (--to-store), then the store
# is replayed and judged by the same budgets as the recordings (check_replay.py): the store keeps
# what the rules need. Then a daemon's own store, with a restart (a new detector per run), a
# window (--since/--until), and every misuse refused with exit 2.
source "$(dirname "$0")/lib.sh"

recordings="$PW_FIXTURES/recordings"
pending=2 resolve=3
count=0
mkdir "$PW_WORK/from-store"
for meta in "$recordings"/*.json; do
	pw_recording_case "$meta" "$pending"
	name=$REC_NAME flags=("${REC_FLAGS[@]}")
	[ -e "$PW_WORK/from-store/$name.jsonl" ] && continue # a live case's shared recording, done
	state="$PW_WORK/state-$name"
	rc=0
	(cd "$recordings" && "$PERFWATCHD" "${flags[@]}" --replay "$name.pwrec" --json --to-store "$state") \
		>"$PW_WORK/$name.jsonl" 2>"$PW_WORK/$name.err" || rc=$?
	[ "$rc" = 0 ] || pw_fail "$name: replay into a store exited $rc: $(cat "$PW_WORK/$name.err")"
	[ "$(stat -c %a "$state/history")" = 700 ] || pw_fail "$name: store directory not 0700"
	(cd "$recordings" && "$PERFWATCHD" "${flags[@]}" --replay "$state" --json) \
		>"$PW_WORK/from-store/$name.jsonl" 2>"$PW_WORK/$name.store.err" || rc=$?
	[ "$rc" = 0 ] || pw_fail "$name: replay of the store exited $rc: $(cat "$PW_WORK/$name.store.err")"
	# Every sample of the recording was kept and judged again.
	recorded=$(sed -n 's/.*replayed \([0-9]*\) samples.*/\1/p' "$PW_WORK/$name.err")
	stored=$(sed -n 's/.*replayed \([0-9]*\) stored samples.*/\1/p' "$PW_WORK/$name.store.err")
	[ -n "$recorded" ] && [ "$recorded" = "$stored" ] ||
		pw_fail "$name: $recorded samples recorded, $stored replayed from the store"
	count=$((count + 1))
done
[ "$count" -ge 10 ] || pw_fail "only $count recordings in $recordings"
python3 "$(dirname "$0")/check_replay.py" "$recordings" "$PW_WORK/from-store" --for $pending --resolve $resolve ||
	pw_fail "the detector over the store missed a budget the recording meets (above)"

# The store keeps the transitions too: the swapping incident's firing and resolution are in it.
for to in firing inactive; do
	grep -qP "\tMemorySwapping\t[a-z]+\t$to\t" "$PW_WORK/state-incident4_swapping/history/transitions" ||
		pw_fail "the store did not keep MemorySwapping -> $to"
done

# A window: up to the swapping incident's onset nothing fires; the whole store fires it.
onset=$(jq -r '.onsets.incident' "$recordings/incident4_swapping.json")
s4="$PW_WORK/state-incident4_swapping"
"$PERFWATCHD" --config /dev/null --baseline-warmup 6s --alert-for 2s --replay "$s4" --until "$onset" --json \
	>"$PW_WORK/before.jsonl" 2>"$PW_WORK/before.err" || pw_fail "--until: $(cat "$PW_WORK/before.err")"
[ ! -s "$PW_WORK/before.jsonl" ] || pw_fail "alerts before the onset: $(cat "$PW_WORK/before.jsonl")"
grep -q 'replayed [1-9][0-9]* stored samples' "$PW_WORK/before.err" || pw_fail "--until replayed nothing: $(cat "$PW_WORK/before.err")"
# From the onset on (text this time): nothing before it to learn from, so the baseline rules are
# still warming up when the incident ends: silent, but every sample from then on was judged.
"$PERFWATCHD" --config /dev/null --baseline-warmup 6s --alert-for 2s --replay "$s4" --since "$onset" \
	>"$PW_WORK/after.txt" 2>"$PW_WORK/after.err" || pw_fail "--since: $(cat "$PW_WORK/after.err")"
before=$(sed -n 's/.*replayed \([0-9]*\) stored samples.*/\1/p' "$PW_WORK/before.err")
after=$(sed -n 's/.*replayed \([0-9]*\) stored samples.*/\1/p' "$PW_WORK/after.err")
whole=$(sed -n 's/.*replayed \([0-9]*\) samples.*/\1/p' "$PW_WORK/incident4_swapping.err")
[ $((before + after)) = "$whole" ] || pw_fail "--until onset ($before) and --since onset ($after) are not the $whole samples"

# The daemon's own store: two runs, each judged by its own detector.
tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"
mkdir -m 0700 "$PW_WORK/state"
for run in 1 2; do
	pw_start "run$run" --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms --state-dir "$PW_WORK/state"
	sleep 2
	pw_stop "$PW_PID"
done
"$PERFWATCHD" --config /dev/null --replay "$PW_WORK/state" >"$PW_WORK/own.txt" 2>"$PW_WORK/own.err" ||
	pw_fail "replay of the daemon's store: $(cat "$PW_WORK/own.err")"
grep -q 'replayed [1-9][0-9] stored samples, .* in 2 run(s)' "$PW_WORK/own.err" ||
	pw_fail "two runs of at least 10 samples expected: $(cat "$PW_WORK/own.err")"

# Misuse: each refused with exit 2 and a sentence.
refused() { # refused WHAT ARGS...: exit 2 and a "perfwatchd:" line
	local what=$1 rc=0
	shift
	"$PERFWATCHD" --config /dev/null "$@" >/dev/null 2>"$PW_WORK/refused.err" || rc=$?
	[ "$rc" = 2 ] || pw_fail "$what: exit $rc, want 2: $(cat "$PW_WORK/refused.err")"
	grep -q 'perfwatchd' "$PW_WORK/refused.err" || pw_fail "$what: said nothing"
}
mkdir "$PW_WORK/empty"
refused "a directory without a store" --replay "$PW_WORK/empty"
refused "--since that is no time" --replay "$PW_WORK/state" --since yesterday
refused "--until before --since" --replay "$PW_WORK/state" --since -1m --until -2m
refused "--since with a recording" --replay "$recordings/incident4_swapping.pwrec" --since -1h
refused "--to-store with a state dir" --replay "$PW_WORK/state" --to-store "$PW_WORK/other"
refused "--since without --replay" --since -1h
echo "PASS: $count recordings judged again from their stores within the recordings' budgets"
