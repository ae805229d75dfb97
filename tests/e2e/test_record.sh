#!/usr/bin/env bash
# --record / --replay: the daemon records a live incident (pwscenario.py, incident 3 at 200 ms), and
# replaying the file twice prints byte-identical output with the same alert transitions the live
# daemon logged; a restart appends a second run; a cut, corrupt or foreign file gets its exit
# status and a clear message; a file of another layout is not appended to; an unwritable path or a
# full disk or a file-size limit is logged once, a partial write taken back, and sampling goes on; a
# symlink (dangling: its target is not created) or a device is refused at start, a new file is 0640.
source "$(dirname "$0")/lib.sh"

scenarios="$PW_TESTS/scenarios"
rec="$PW_WORK/incident.pwrec"
detect=(--baseline-warmup 2s --alert-for 600ms)

# 1. Record incident 3 (55 000 interrupts/s collapsing to 1 002/s) on a live tree.
python3 "$scenarios/pwscenario.py" incident3_irq_drop:4k "$PW_WORK/tree" --tick 0.05 \
	--param baseline=4 --param incident=3 --param recovery=3 >"$PW_WORK/events" 2>"$PW_WORK/driver.err" &
driver=$!
PW_PIDS+=("$driver")
pw_wait_for 20 "the first tree" grep -qs '"phase"' "$PW_WORK/events" || pw_fail "driver: $(cat "$PW_WORK/driver.err")"
pw_start live --procfs "$PW_WORK/tree/proc" --sysfs "$PW_WORK/tree/sys" --interval 200ms --record "$rec" "${detect[@]}"
wait "$driver" || pw_fail "driver failed: $(cat "$PW_WORK/driver.err")"
pw_stop "$PW_PID"
grep -q 'alert InterruptRateDrop pending -> firing' "$PW_WORK/live.log" || pw_fail "the live daemon saw no incident: $(cat "$PW_WORK/live.log")"

# 2. Replay twice: identical, and the very transitions the live daemon logged, in order.
replay() { "$PERFWATCHD" --config /dev/null "${detect[@]}" --replay "$@"; }
replay "$rec" >"$PW_WORK/replay1" 2>"$PW_WORK/replay1.err" || pw_fail "replay failed: $(cat "$PW_WORK/replay1.err")"
replay "$rec" >"$PW_WORK/replay2" 2>/dev/null || pw_fail "second replay failed"
cmp "$PW_WORK/replay1" "$PW_WORK/replay2" || pw_fail "two replays differ"
grep -qE '^20[0-9-]{8}T[0-9:.]{12}Z alert InterruptRateDrop pending -> firing \(critical\): ' "$PW_WORK/replay1" ||
	pw_fail "replay did not fire InterruptRateDrop: $(cat "$PW_WORK/replay1")"
diff <(grep -o 'alert .*' "$PW_WORK/live.log") <(grep -o 'alert .*' "$PW_WORK/replay1") ||
	pw_fail "the replay's transitions differ from the live daemon's"
samples=$(grep -oE 'replayed [0-9]+ samples' "$PW_WORK/replay1.err" | grep -oE '[0-9]+')
[ "$samples" -ge 20 ] || pw_fail "only $samples samples recorded in 10 s at 200 ms"

# JSON lines: the same transitions with time and evidence, also identical twice.
replay "$rec" --json >"$PW_WORK/json1" 2>/dev/null || pw_fail "JSON replay failed"
replay "$rec" --json >"$PW_WORK/json2" 2>/dev/null
cmp "$PW_WORK/json1" "$PW_WORK/json2" || pw_fail "two JSON replays differ"
[ "$(wc -l <"$PW_WORK/json1")" = "$(wc -l <"$PW_WORK/replay1")" ] || pw_fail "JSON and text differ in transitions"
jq -e -s 'any(.[]; .alert == "InterruptRateDrop" and .from == "pending" and .to == "firing"
	and .severity == "critical" and (.time | test("Z$")) and .evidence.lowest_per_second < 2000
	and (.summary | length) > 0)' "$PW_WORK/json1" >/dev/null || pw_fail "JSON lines lack the firing: $(cat "$PW_WORK/json1")"

# 3. Damage. Cut short: replays up to the last whole record, exit 0. A flipped byte mid-file: the
# records before it, then exit 1 with its offset. Another format version or not a recording: exit 2.
size=$(stat -c %s "$rec")
head -c $((size - 7)) "$rec" >"$PW_WORK/cut.pwrec"
replay "$PW_WORK/cut.pwrec" >"$PW_WORK/cut.out" 2>"$PW_WORK/cut.err" || pw_fail "a cut file did not exit 0"
grep -q "ends in a record cut short at offset" "$PW_WORK/cut.err" || pw_fail "cut not reported: $(cat "$PW_WORK/cut.err")"
# flip_byte FILE OFFSET: invert the byte's bits (a byte set to a fixed value may already hold it).
flip_byte() {
	local byte
	byte=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\x$(printf %02x $((byte ^ 0xff)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
cp "$rec" "$PW_WORK/bad.pwrec"
flip_byte "$PW_WORK/bad.pwrec" $((size / 2))
cmp -s "$rec" "$PW_WORK/bad.pwrec" && pw_fail "the byte was not flipped"
rc=0
replay "$PW_WORK/bad.pwrec" >/dev/null 2>"$PW_WORK/bad.err" || rc=$?
[ "$rc" = 1 ] || pw_fail "a corrupt record exited $rc, want 1"
grep -qE "corrupt record at offset [0-9]+: stopped there" "$PW_WORK/bad.err" || pw_fail "said: $(cat "$PW_WORK/bad.err")"
{ head -c 8 "$rec"; printf '\x09\x00\x00\x00'; tail -c +13 "$rec"; } >"$PW_WORK/v9.pwrec"
rc=0
out=$(replay "$PW_WORK/v9.pwrec" 2>&1) || rc=$?
[ "$rc" = 2 ] && grep -q "recording format version 9; this build reads versions 2 and 3" <<<"$out" || pw_fail "v9: $rc $out"
rc=0
out=$(replay "$PW_FIXTURES/kernels/vm-2cpu-idle-1/proc/stat" 2>&1) || rc=$?
[ "$rc" = 2 ] && grep -q "not a perfwatch recording" <<<"$out" || pw_fail "not a recording: $rc $out"
rc=0
out=$(replay "$PW_WORK/missing.pwrec" 2>&1) || rc=$?
[ "$rc" = 2 ] && grep -q "cannot open: No such file or directory" <<<"$out" || pw_fail "missing: $rc $out"
# A config file that records (the daemon's) does not stop a replay from it, nor is it written.
printf 'record = %s\n' "$PW_WORK/from-config.pwrec" >"$PW_WORK/records.conf"
"$PERFWATCHD" --config "$PW_WORK/records.conf" "${detect[@]}" --replay "$rec" 2>/dev/null | cmp -s - "$PW_WORK/replay1" ||
	pw_fail "a replay with 'record' in its config file differs"
[ -e "$PW_WORK/from-config.pwrec" ] && pw_fail "a replay recorded"
out=$("$PERFWATCHD" --config /dev/null --json 2>&1) && pw_fail "--json without --replay was accepted"
grep -q "json: only with --replay" <<<"$out" || pw_fail "said: $out"

# 4. Appending: a second run on the same tree adds a run to the file; another layout is refused.
tree="$PW_WORK/idle"
pw_copy_tree vm-2cpu-idle-1 "$tree"
cp "$PW_FIXTURES/kernels/vm-2cpu-idle-1/proc/stat" "$PW_WORK/foreign.pwrec"
rc=0
"$PERFWATCHD" --config /dev/null --procfs "$tree/proc" --sysfs "$tree/sys" --listen "127.0.0.1:$(pw_free_port)" \
	--record "$PW_WORK/foreign.pwrec" >"$PW_WORK/foreign.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "not a perfwatch recording of this format version; not appending to it" "$PW_WORK/foreign.log" ||
	pw_fail "appending to a foreign file: $rc $(cat "$PW_WORK/foreign.log")"
cmp -s "$PW_WORK/foreign.pwrec" "$PW_FIXTURES/kernels/vm-2cpu-idle-1/proc/stat" || pw_fail "the foreign file was changed"
pw_start run1 --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms --record "$PW_WORK/two.pwrec"
pw_wait_samples 3
pw_stop "$PW_PID"
[ "$(stat -c %a "$PW_WORK/two.pwrec")" = 640 ] || pw_fail "a new recording is mode $(stat -c %a "$PW_WORK/two.pwrec")"
pw_start run2 --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms --record "$PW_WORK/two.pwrec"
pw_wait_samples 3
pw_stop "$PW_PID"
replay "$PW_WORK/two.pwrec" >/dev/null 2>"$PW_WORK/two.err" || pw_fail "two runs: $(cat "$PW_WORK/two.err")"
grep -q "in 2 run(s)" "$PW_WORK/two.err" || pw_fail "two runs: $(cat "$PW_WORK/two.err")"
# A run cut short mid-record (a crash): the next run cuts the torn record off and appends after it.
size=$(stat -c %s "$PW_WORK/two.pwrec")
truncate -s $((size - 5)) "$PW_WORK/two.pwrec"
pw_start run3 --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms --record "$PW_WORK/two.pwrec"
pw_wait_samples 3
pw_stop "$PW_PID"
grep -qE "cut off [0-9]+ bytes of a record the last run did not finish" "$PW_WORK/run3.log" || pw_fail "$(cat "$PW_WORK/run3.log")"
replay "$PW_WORK/two.pwrec" >/dev/null 2>"$PW_WORK/three.err" || pw_fail "three runs: $(cat "$PW_WORK/three.err")"
grep -q "in 3 run(s)" "$PW_WORK/three.err" && ! grep -q "cut short" "$PW_WORK/three.err" || pw_fail "$(cat "$PW_WORK/three.err")"
# --to-recording writes the same samples and runs to a new file (their output identical), and
# never over an existing one.
replay "$PW_WORK/two.pwrec" --to-recording "$PW_WORK/again.pwrec" >"$PW_WORK/again.src" 2>"$PW_WORK/again.err" ||
	pw_fail "--to-recording: $(cat "$PW_WORK/again.err")"
replay "$PW_WORK/again.pwrec" >"$PW_WORK/again.out" 2>"$PW_WORK/again.err" || pw_fail "$(cat "$PW_WORK/again.err")"
cmp -s "$PW_WORK/again.src" "$PW_WORK/again.out" && grep -q "in 3 run(s)" "$PW_WORK/again.err" ||
	pw_fail "the converted recording replays otherwise: $(diff "$PW_WORK/again.src" "$PW_WORK/again.out" | head -5; cat "$PW_WORK/again.err")"
rc=0
replay "$PW_WORK/two.pwrec" --to-recording "$PW_WORK/again.pwrec" >/dev/null 2>"$PW_WORK/again.err" || rc=$?
[ "$rc" = 2 ] && grep -q "not overwriting it" "$PW_WORK/again.err" || pw_fail "--to-recording over a file: $rc $(cat "$PW_WORK/again.err")"
# A recording of format version 2 (no schema block) of this layout, as made before version 3: an
# upgraded daemon appends to it (it stays version 2) rather than refusing to start.
python3 - "$PW_WORK/two.pwrec" "$PW_WORK/v2.pwrec" <<'PY'
import struct, sys, zlib
real = open(sys.argv[1], "rb").read()
schema = struct.unpack_from("<I", real, 64)[0]
h = bytearray(real[:72])
struct.pack_into("<I", h, 8, 2)
struct.pack_into("<I", h, 64, 0)
struct.pack_into("<I", h, 68, zlib.crc32(bytes(h[:68])))
open(sys.argv[2], "wb").write(bytes(h) + real[72 + schema :])
PY
pw_start v2 --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms --record "$PW_WORK/v2.pwrec"
pw_wait_samples 3
pw_stop "$PW_PID"
replay "$PW_WORK/v2.pwrec" >/dev/null 2>"$PW_WORK/v2.err" || pw_fail "appended version 2: $(cat "$PW_WORK/v2.err")"
grep -q "in 4 run(s)" "$PW_WORK/v2.err" && [ "$(od -An -tu4 -j8 -N4 "$PW_WORK/v2.pwrec" | tr -d ' ')" = 2 ] ||
	pw_fail "appended version 2: $(cat "$PW_WORK/v2.err" "$PW_WORK/v2.log")"
# A corrupt record is not appended after (the frames are walked at start), nor is the file touched.
cp "$PW_WORK/two.pwrec" "$PW_WORK/torn.pwrec"
# The first record's frame: after the 72-byte header and the schema block (its size at byte 64).
first=$((72 + $(od -An -tu4 -j64 -N4 "$PW_WORK/two.pwrec")))
flip_byte "$PW_WORK/torn.pwrec" $((first + 2))
cp "$PW_WORK/torn.pwrec" "$PW_WORK/torn.orig"
rc=0
"$PERFWATCHD" --config /dev/null --procfs "$tree/proc" --sysfs "$tree/sys" --listen "127.0.0.1:$(pw_free_port)" \
	--record "$PW_WORK/torn.pwrec" >"$PW_WORK/torn.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "corrupt record at offset $first; not appending to it" "$PW_WORK/torn.log" ||
	pw_fail "appending after a corrupt record: $rc $(cat "$PW_WORK/torn.log")"
cmp -s "$PW_WORK/torn.pwrec" "$PW_WORK/torn.orig" || pw_fail "the corrupt file was changed"
rc=0
"$PERFWATCHD" --config /dev/null --procfs "$tree/proc" --sysfs "$tree/sys" --listen "127.0.0.1:$(pw_free_port)" \
	--interrupts-per-cpu --record "$PW_WORK/two.pwrec" >"$PW_WORK/wide.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "recorded with other capacities" "$PW_WORK/wide.log" || pw_fail "other layout: $rc $(cat "$PW_WORK/wide.log")"

# 5. Not a regular file: a dangling symlink (root would create its target) and a device are refused
# at start (timeout: a daemon that took them would run on).
ln -s "$PW_WORK/link-target.pwrec" "$PW_WORK/link.pwrec"
for target in "$PW_WORK/link.pwrec" /dev/full; do
	rc=0
	timeout 10 "$PERFWATCHD" --config /dev/null --procfs "$tree/proc" --sysfs "$tree/sys" \
		--listen "127.0.0.1:$(pw_free_port)" --record "$target" >"$PW_WORK/special.log" 2>&1 || rc=$?
	[ "$rc" = 1 ] && grep -qE "record $target: (a symbolic link: not following it|not a regular file); not appending" \
		"$PW_WORK/special.log" || pw_fail "$target: exit $rc: $(cat "$PW_WORK/special.log")"
done
[ -e "$PW_WORK/link-target.pwrec" ] && pw_fail "the dangling symlink's target was created"

# Nowhere to write: logged (once: rate-limited), and sampling goes on. A full disk is a full
# private tmpfs (unshare -m; skipped where mounting is not allowed).
targets=("$PW_WORK/no/such/dir/x.pwrec")
mkdir -p "$PW_WORK/full"
if unshare -m bash -c 'mount -t tmpfs -o size=4k none "$1"' _ "$PW_WORK/full" 2>/dev/null; then
	cat >"$PW_WORK/on-full" <<-EOF
		#!/bin/bash
		exec unshare -m bash -c 'mount -t tmpfs -o size=4k none "$PW_WORK/full" && head -c 4096 /dev/zero >"$PW_WORK/full/fill"; exec "\$0" "\$@"' "$PERFWATCHD" "\$@"
	EOF
	chmod +x "$PW_WORK/on-full"
	targets+=("$PW_WORK/full/x.pwrec")
else
	echo "note: cannot mount a private tmpfs here; the full-disk case is not run" >&2
fi
for target in "${targets[@]}"; do
	runner=$PERFWATCHD
	[ "$target" = "$PW_WORK/full/x.pwrec" ] && runner="$PW_WORK/on-full"
	PERFWATCHD=$runner pw_start nowhere --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms --record "$target"
	pw_wait_samples 15
	pw_stop "$PW_PID"
	n=$(grep -c "record $target: cannot" "$PW_WORK/nowhere.log" || true)
	[ "$n" = 1 ] || pw_fail "$target: $n complaints, want 1: $(cat "$PW_WORK/nowhere.log")"
	grep -qE "record $target: 0 samples recorded, [1-9][0-9]+ not" "$PW_WORK/nowhere.log" ||
		pw_fail "no summary of what was lost: $(cat "$PW_WORK/nowhere.log")"
done
if [ "${#targets[@]}" = 2 ]; then
	grep -q "record $PW_WORK/full/x.pwrec: cannot write: No space left on device" "$PW_WORK/nowhere.log" ||
		pw_fail "$(cat "$PW_WORK/nowhere.log")"
fi

# 6. A file-size limit stops a write in the middle of a record: what reached the file is taken back,
# so the file replays whole (no record cut short), the daemon lives on (SIGXFSZ) and keeps sampling.
# 8 KiB: the header and its 4 KB schema block, then a few records.
printf '#!/bin/bash\nulimit -f 8\nexec "%s" "$@"\n' "$PERFWATCHD" >"$PW_WORK/limited"
chmod +x "$PW_WORK/limited"
PERFWATCHD="$PW_WORK/limited" pw_start limited --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms \
	--record "$PW_WORK/limited.pwrec"
pw_wait_samples 25
pw_stop "$PW_PID"
grep -q "record $PW_WORK/limited.pwrec: cannot write: File too large" "$PW_WORK/limited.log" ||
	pw_fail "the size limit was not reported: $(cat "$PW_WORK/limited.log")"
replay "$PW_WORK/limited.pwrec" >/dev/null 2>"$PW_WORK/limited.err" || pw_fail "limited: $(cat "$PW_WORK/limited.err")"
grep -q "cut short" "$PW_WORK/limited.err" && pw_fail "a partial write stayed in the file: $(cat "$PW_WORK/limited.err")"
grep -qE "replayed [1-9][0-9]* samples" "$PW_WORK/limited.err" || pw_fail "nothing recorded: $(cat "$PW_WORK/limited.err")"
echo PASS
