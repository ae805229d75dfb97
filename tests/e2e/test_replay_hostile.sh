#!/usr/bin/env bash
# --replay of the hostile recordings of issue 10 (hostile_recording.py; checksums right, contents
# not): an IRQ line name with no NUL up to the end of the sample is a corrupt record (exit 1 with its
# offset), not a read past the buffer; a schema block row outside its struct is refused (exit 2); a header with a 2^62 ns interval or samples of 163 or 259 MB
# is refused (exit 2) before anything is allocated; the worst files stay within the memory bound of
# docs/architecture.md ("The flight recorder"): what replaying a small real recording takes (the
# process itself: 10 MB in a release build) + 3 x the header's sample size + the largest record. Run it on an ASan+UBSan build to see that nothing is read out of bounds or overflows.
source "$(dirname "$0")/lib.sh"

python3 "$(dirname "$0")/hostile_recording.py" "$PW_FIXTURES/recordings/incident1_irq_time-4cpu.pwrec" "$PW_WORK" \
	>"$PW_WORK/sizes"

# replay NAME: exit status in rc, peak RSS in kB in rss, stderr in $PW_WORK/NAME.err.
replay() {
	rc=0
	/usr/bin/time -f '%M' -o "$PW_WORK/$1.rss" "$PERFWATCHD" --config /dev/null --replay "$PW_WORK/$1.pwrec" \
		>/dev/null 2>"$PW_WORK/$1.err" || rc=$?
	rss=$(tail -n 1 "$PW_WORK/$1.rss")
}
[ -x /usr/bin/time ] || pw_skip "no /usr/bin/time to measure memory"
# Sanitizers' redzones and quarantine are not the program's memory: their builds check outcomes only.
sanitized=false
if grep -qa __asan_init "$PERFWATCHD"; then sanitized=true; fi

cp "$PW_FIXTURES/recordings/incident1_irq_time-4cpu.pwrec" "$PW_WORK/real.pwrec"
replay real
[ "$rc" = 0 ] || pw_fail "the real recording: exit $rc: $(cat "$PW_WORK/real.err")"
base_kb=$rss

# The first record: after the 72-byte header and the schema block (its size at byte 64).
first=$((72 + $(od -An -tu4 -j64 -N4 "$PW_WORK/real.pwrec")))
replay unterminated
[ "$rc" = 1 ] && grep -q "corrupt record at offset $first: stopped there" "$PW_WORK/unterminated.err" ||
	pw_fail "unterminated line name: exit $rc: $(cat "$PW_WORK/unterminated.err")"

replay schema-row
[ "$rc" = 2 ] && grep -q "schema: field .* does not fit its" "$PW_WORK/schema-row.err" ||
	pw_fail "schema-row: exit $rc: $(cat "$PW_WORK/schema-row.err")"

for name in interval huge-header 256mib-header; do
	replay "$name"
	[ "$rc" = 2 ] && grep -qE "beyond the format's" "$PW_WORK/$name.err" ||
		pw_fail "$name: exit $rc: $(cat "$PW_WORK/$name.err")"
	# Refused at the header: the memory of a replay that reads nothing.
	$sanitized || [ "$rss" -lt $((base_kb + 1024)) ] || pw_fail "$name: $rss kB, a real recording $base_kb kB"
done

# The bound, from the header's sample size and the file's largest record, plus 4 MB for the
# detector's per-CPU and per-line state.
bound_kb() {
	local size
	size=$(awk -v n="$1" '$1 == n { print $2 }' "$PW_WORK/sizes")
	$sanitized && echo 99999999 && return
	echo $((base_kb + 4096 + (3 * size + $(stat -c %s "$PW_WORK/$1.pwrec")) / 1024))
}
replay largest-record
[ "$rc" = 1 ] && grep -q "corrupt record at offset $first" "$PW_WORK/largest-record.err" ||
	pw_fail "largest-record: exit $rc: $(cat "$PW_WORK/largest-record.err")"
[ "$rss" -le "$(bound_kb largest-record)" ] || pw_fail "largest-record: $rss kB, bound $(bound_kb largest-record) kB"
replay largest-valid
[ "$rc" = 0 ] && grep -q "replayed 3 samples" "$PW_WORK/largest-valid.err" ||
	pw_fail "largest-valid: exit $rc: $(cat "$PW_WORK/largest-valid.err")"
[ "$rss" -le "$(bound_kb largest-valid)" ] || pw_fail "largest-valid: $rss kB, bound $(bound_kb largest-valid) kB"
echo "largest valid file: $rss kB (bound $(bound_kb largest-valid) kB; a real recording: $base_kb kB)"
echo PASS
