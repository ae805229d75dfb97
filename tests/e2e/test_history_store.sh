#!/usr/bin/env bash
# History on disk (--state-dir DIR: DIR/history): (1) the points from before a kill -9 are served
# after the restart, far more than the in-memory --history holds, with a null point where the daemon
# was down; kill -9 in a loop while it writes loses at most the last two seconds of each run (the
# disk writer's group commit), never anything older, and no point comes twice; (2) a torn tail and a garbage file are repaired at
# start, logged, and every point before them still served; (3) retention by time and (4) by size
# drop the oldest files first; (5) files are 0600 in a 0700 directory; (6) an alert's transitions
# from before a restart are served after it. On this host's /proc, and (6) a fixture tree.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/notify_lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"

state="$PW_WORK/state"
store="$state/history"
mkdir -p "$state"
run=(--interval 100ms --history 2s --state-dir "$state")

# Bad retention values are refused with the reason, flags and config keys alike.
out=$("$PERFWATCHD" --config /dev/null --retention-size 10KiB --check-config 2>&1) && pw_fail "10KiB accepted"
grep -qF "retention-size: must be at least 64KiB" <<<"$out" || pw_fail "said: $out"
printf 'retention-size = 1GB\n' >"$PW_WORK/bad.conf"
out=$("$PERFWATCHD" --config "$PW_WORK/bad.conf" --check-config 2>&1) && pw_fail "1GB accepted"
grep -qF "bad.conf:1: invalid size '1GB'" <<<"$out" || pw_fail "said: $out"
printf 'retention-time = 2d\nretention-size = 512MiB\n' >"$PW_WORK/good.conf"
"$PERFWATCHD" --config "$PW_WORK/good.conf" --check-config >/dev/null || pw_fail "2d and 512MiB refused"

# points SINCE: "time_ms value" lines of memory_available_bytes (known at every point but gaps).
points() {
	pw_get "history?since=$1&signals=memory_available_bytes" |
		jq -r '.time_ms as $t | .signals[0].values as $v | range($t | length) | "\($t[.]) \($v[.])"'
}
now_ms() { date +%s%3N; }

# 1. kill -9 at varied moments, five runs (each longer than the commit's 2 s, so each leaves
# points); the sixth serves them all.
kills=()
for wait in 3.2 2.7 4.5 2.4 3.6; do
	pw_start "run$wait" "${run[@]}"
	sleep "$wait"
	kill -9 "$PW_PID"
	wait "$PW_PID" 2>/dev/null || true
	kills+=("$(now_ms)")
done
pw_start final "${run[@]}"
pw_wait_for 5 "the head recovered" grep -q "recovered [0-9]* points the last run had not put in a block" "$PW_WORK/final.log" ||
	pw_fail "the head left by kill -9 was not recovered: $(cat "$PW_WORK/final.log")"
points -1m >"$PW_WORK/points"
python3 - "$PW_WORK/points" "${kills[@]}" <<'PY' || pw_fail "history across kill -9 is wrong (points in $PW_WORK/points)"
import sys
rows = [line.split() for line in open(sys.argv[1])]
kills = [int(k) for k in sys.argv[2:]]
times = [int(t) for t, _ in rows]
assert times == sorted(times) and len(set(times)) == len(times), "times repeat or go back"
# Runs are separated by null points; each run's points are 100 ms apart.
runs, cur = [], []
for t, v in rows:
    if v == "null":
        if cur:
            runs.append(cur)
        cur = []
        continue
    cur.append(int(t))
runs.append(cur)
runs = [r for r in runs if r]
assert len(runs) >= 6, f"{len(runs)} runs seen, want 6 (5 killed, 1 running): gaps missing"
for r, k in zip(runs, kills):
    holes = [b - a for a, b in zip(r, r[1:]) if b - a > 250]
    assert not holes, f"a run has holes {holes}: points lost in the middle"
    # Lost at most the last 2 s before the kill (the points waiting for the group commit), and the
    # time the kill took to be sent.
    assert k - r[-1] <= 2300, f"run ending {r[-1]} lost {k - r[-1]} ms before its kill at {k}"
before = sum(len(r) for r in runs[:5])
assert before > 40, f"only {before} points from before the restarts (the ring holds 20)"
print(f"{len(runs)} runs, {before} points before the last start, last-run losses "
      + ", ".join(str(k - r[-1]) for r, k in zip(runs, kills)) + " ms")
PY

# The same window per minute (from the minutes tier, the current minute from the samples): each
# minute's mean, min and max are those of the samples above in it.
# One fixed window for both answers, so the current minute holds the same samples in each.
until=$(($(now_ms) / 1000))
points "$((until - 120))&until=$until" >"$PW_WORK/points-fixed"
pw_get "history?since=$((until - 120))&until=$until&step=1m&signals=memory_available_bytes" >"$PW_WORK/minutes.json"
python3 - "$PW_WORK/points-fixed" "$PW_WORK/minutes.json" <<'PY' || pw_fail "per-minute history disagrees with the samples"
import json, sys
raw = [(int(t), float(v)) for t, v in (l.split() for l in open(sys.argv[1])) if v != "null"]
d = json.load(open(sys.argv[2]))
assert d["aggregated"] and d["step_seconds"] == 60, d["step_seconds"]
s = d["signals"][0]
seen = 0
for t, mean, lo, hi in zip(d["time_ms"], s["mean"], s["min"], s["max"]):
    vals = [v for tt, v in raw if t <= tt < t + 60000]
    if not vals or mean is None:
        continue
    seen += 1
    assert abs(mean - sum(vals) / len(vals)) <= 1024, (t, mean, sum(vals) / len(vals))
    assert lo == min(vals) and hi == max(vals), (t, lo, hi, min(vals), max(vals))
assert seen >= 1, "no minute to compare"
print(f"{seen} minutes agree with their samples")
PY

# A window over nearly all of int64 (the span overflows a signed subtraction) is answered per
# minute or coarser, not refused or overflowed (UBSan aborts on a signed overflow in the ASan run).
pw_get "history?since=-106751d&until=9223372035&signals=busy_cpus" >"$PW_WORK/huge.json"
jq -e '.aggregated and .step_seconds >= 60 and .points >= 1' "$PW_WORK/huge.json" >/dev/null ||
	pw_fail "the widest window: $(head -c 300 "$PW_WORK/huge.json")"

# 5. Modes and names.
[ "$(stat -c %a "$store")" = 700 ] || pw_fail "store directory mode $(stat -c %a "$store"), want 700"
for f in "$store"/*; do
	[ "$(stat -c %a "$f")" = 600 ] || pw_fail "$f mode $(stat -c %a "$f"), want 600"
done
pw_stop "$PW_PID"
ls "$store"/samples-*.pwh >/dev/null || pw_fail "no data file after a stop"
[ "$(stat -c %s "$store/samples.head")" -le 32 ] || pw_fail "a clean stop left points in the head"

# 2. A torn tail (half a frame) on the newest file, and garbage where a data file is expected.
newest=$(ls "$store"/samples-*.pwh | tail -1)
printf 'PWHIST-torn-frame\x01\x02\x03' >>"$newest"
head -c 3000 /dev/urandom >"$store/samples-0000000001000.pwh"
before=$(wc -l <"$PW_WORK/points")
pw_start repaired "${run[@]}"
pw_wait_for 5 "the tail cut" grep -q "cut [0-9]* bytes of a torn or damaged tail" "$PW_WORK/repaired.log" || pw_fail "torn tail not cut: $(cat "$PW_WORK/repaired.log")"
grep -q "removed samples-0000000001000.pwh" "$PW_WORK/repaired.log" || pw_fail "garbage file not removed"
[ -e "$store/samples-0000000001000.pwh" ] && pw_fail "the garbage file is still there"
after=$(points -1m | wc -l)
[ "$after" -ge "$before" ] || pw_fail "points lost by the repair: $before before, $after after"
pw_stop "$PW_PID"

# 3. Retention by time: files whose points are all older than 3 s go. Age counts from the newest
# point written, which is up to 2 s behind the clock (the group commit) and more behind a slow
# disk, so the bound is on the files' first points, named in their file names: 3 s plus a file's
# span (3 s / 16, two points at 100 ms), the file a block may be starting meanwhile and a late
# sample or two.
rm -rf "$store"
pw_start retention-time --interval 100ms --history 2s --state-dir "$state" --retention-time 3s
sleep 7
first_ms() { basename "$1" .pwh | sed 's/^samples-0*//'; }
files=("$store"/samples-*.pwh)
kept_ms=$(($(first_ms "${files[-1]}") - $(first_ms "${files[0]}")))
oldest=$(points -1m | awk '$2 != "null" && !f { print $1; f = 1 }')
echo "retention-time 3s: the files kept span ${kept_ms} ms; the oldest point served is $(($(now_ms) - oldest)) ms old"
[ "$kept_ms" -le 4000 ] || pw_fail "retention-time 3s: files spanning $kept_ms ms are kept: ${files[*]##*/}"
[ "$oldest" -ge "$(first_ms "${files[0]}")" ] || pw_fail "retention-time 3s: a point older than the oldest file is served"
[ "$(($(now_ms) - oldest))" -ge 2500 ] || pw_fail "retention-time 3s: only $(($(now_ms) - oldest)) ms kept"
pw_stop "$PW_PID"

# 4. Retention by size: 64 KiB, at 10 ms a sample; the oldest files go first, the newest stay.
rm -rf "$store"
pw_start retention-size --interval 10ms --history 1s --state-dir "$state" --retention-time 60s --retention-size 64KiB \
	--log-level debug
two_files() { [ "$(ls "$store" | grep -c '^samples-')" -ge 2 ]; }
pw_wait_for 20 "two data files" two_files || pw_fail "retention-size: no second data file"
first=$(ls "$store"/samples-*.pwh | head -1)
pw_wait_for 50 "the oldest file dropped" test ! -e "$first" || pw_fail "retention-size: $first was never dropped"
grep -q "dropped $(basename "$first") (over retention-size)" "$PW_WORK/retention-size.log" ||
	pw_fail "retention-size: $first went, but not for its size: $(grep dropped "$PW_WORK/retention-size.log")"
total=$(cat "$store"/samples-*.pwh | wc -c)
oldest=$(points -1m | awk '$2 != "null" && !f { print $1; f = 1 }')
pw_stop "$PW_PID"
# Over the bound by at most the file being written (a sixteenth of it, at least 4 KiB).
[ "$total" -le $((64 * 1024 + 8 * 1024)) ] || pw_fail "retention-size 64KiB: $total bytes kept"
[ "$oldest" -ge "$(first_ms "$first")" ] || pw_fail "retention-size: a point older than the dropped file is served"
echo "retention-size: $total bytes kept after the first file went"
# 6. CpuFrequencyLow fires on a live tree; after a restart on this host (no alert), /history still
# has its transitions from the first run.
rm -rf "$store"
scenario_start 600 1
pw_start alert --procfs "$PW_WORK/tree/proc" --sysfs "$PW_WORK/tree/sys" --interval 100ms --alert-for 300ms \
	--history 2s --state-dir "$state"
pw_wait_for 20 "the alert firing" pw_has_metric '^perfwatch_alerts\{alertname="CpuFrequencyLow",alertstate="firing"' ||
	pw_fail "CpuFrequencyLow did not fire"
pw_stop "$PW_PID"
restart=$(now_ms)
pw_start after-alert "${run[@]}"
pw_get "history?since=-5m&signals=busy_cpus" >"$PW_WORK/after.json"
jq -e --argjson r "$restart" '[.transitions[] | select(.alert == "CpuFrequencyLow" and .to == "firing" and .time_ms < $r)] | length >= 1' \
	"$PW_WORK/after.json" >/dev/null || pw_fail "the alert's transitions from before the restart are gone: $(jq -c .transitions "$PW_WORK/after.json")"
pw_stop "$PW_PID"
[ "$(stat -c %a "$store/transitions")" = 600 ] || pw_fail "transitions file mode $(stat -c %a "$store/transitions")"
echo PASS
