#!/usr/bin/env bash
# The detector over the recorded incidents and traps (tests/fixtures/recordings, made by its
# regenerate.sh): each incident's alert fires within the pending time plus two intervals of onset
# and resolves after recovery, nothing else fires, the traps fire nothing — in well under a second,
# where test_incidents.sh needs the scenarios' real time. Detector settings as test_incidents.sh:
# 6 s warmup, 2 s pending, resolve after 3 recorded intervals. The live cases (tests/live/record.sh)
# share one recording per daemon run, replayed once with the flags their metadata gives.
source "$(dirname "$0")/lib.sh"

recordings="$PW_FIXTURES/recordings"
pending=2 resolve=3
count=0

for meta in "$recordings"/*.json; do
	pw_recording_case "$meta" "$pending"
	name=$REC_NAME
	[ -e "$PW_WORK/$name.jsonl" ] && continue # a live case's shared recording, replayed already
	out="$PW_WORK/$name.jsonl"
	rc=0
	(cd "$recordings" && "$PERFWATCHD" "${REC_FLAGS[@]}" --replay "$name.pwrec" --json) >"$out" 2>"$PW_WORK/$name.err" || rc=$?
	if grep -q "another sample layout" "$PW_WORK/$name.err"; then
		pw_fail "$name.pwrec was recorded with another sample layout: run" \
			"tests/fixtures/recordings/regenerate.sh BUILD_DIR and commit the new recordings"
	fi
	[ "$rc" = 0 ] || pw_fail "$name: replay exited $rc: $(cat "$PW_WORK/$name.err")"
	count=$((count + 1))
done
[ "$count" -ge 10 ] || pw_fail "only $count recordings in $recordings"
python3 "$(dirname "$0")/check_replay.py" "$recordings" "$PW_WORK" --for $pending --resolve $resolve ||
	pw_fail "the detector missed its budget on a recording (above)"
echo PASS
