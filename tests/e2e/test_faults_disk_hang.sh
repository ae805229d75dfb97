#!/usr/bin/env bash
# A disk that hangs under perfwatchd's own files (fsfreeze on an ext4 loop device holding the state
# dir and the --record file: every write, fsync and rename there blocks until thawed). The threads
# that write there block (the detector: recording and baselines; the notifier: its queue), the
# sampler does not: samples go on at the interval, none missed, /healthz and /metrics answer; after
# the thaw the detector counts the samples the ring overwrote while it hung, and all goes on. Root
# only (loop device, mount, fsfreeze); the trap thaws and undoes it all.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || pw_skip "a loop device and fsfreeze need root"
for tool in losetup mkfs.ext4 fsfreeze; do
	command -v "$tool" >/dev/null || pw_skip "$tool is not installed"
done

img="$PW_WORK/disk.img"
mnt="$PW_WORK/disk"
loop=""
frozen=0
hang_cleanup() {
	local pid
	[ "$frozen" = 1 ] && fsfreeze -u "$mnt" 2>/dev/null
	for pid in "${PW_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${PW_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
	mountpoint -q "$mnt" && { umount "$mnt" || umount -l "$mnt"; }
	[ -n "$loop" ] && losetup -d "$loop"
	pw_cleanup
}
trap hang_cleanup EXIT
mkdir -p "$mnt"
truncate -s 32M "$img"
loop=$(losetup -f --show "$img" 2>/dev/null) || pw_skip "no loop device available"
mkfs.ext4 -q "$loop" || pw_fail "mkfs.ext4 failed"
mount "$loop" "$mnt" || pw_skip "cannot mount ext4 here"
mkdir -p "$mnt/state"

tree="$PW_WORK/tree"
pw_copy_tree vm-2cpu-idle-1 "$tree"
pw_start hang --procfs "$tree/proc" --sysfs "$tree/sys" --interval 50ms --state-dir "$mnt/state" \
	--state-interval 200ms --record "$mnt/run.pwrec"
pw_wait_for 10 "the first save" test -s "$mnt/state/baselines" || pw_fail "no baselines saved"
seen() { pw_get status | jq -r .detector.samples_seen; }

fsfreeze -f "$mnt"
frozen=1
t0=$SECONDS
s0=$(pw_metric perfwatch_samples_total)
seen0=$(seen)
# 3 s frozen: 60 samples due at 50 ms; the detector blocks in its next write within a sample.
sleep 3
s1=$(pw_metric perfwatch_samples_total)
[ $((s1 - s0)) -ge 50 ] || pw_fail "only $((s1 - s0)) samples in 3 s with the disk frozen: the sampler waited on it"
[ "$(pw_metric perfwatch_missed_deadlines_total)" = 0 ] || pw_fail "deadlines missed while the disk hung"
pw_healthy || pw_fail "/healthz not 200 while the disk hung"
seen1=$(seen)
[ $((seen1 - seen0)) -le 3 ] || pw_fail "the detector judged $((seen1 - seen0)) samples on a frozen disk (it should be blocked writing)"
[ "$(awk '$3 == "D" { n++ } END { print n + 0 }' /proc/"$PW_PID"/task/*/stat)" -ge 1 ] ||
	pw_fail "no thread blocked on the frozen disk: the test did not freeze what it meant to"

fsfreeze -u "$mnt"
frozen=0
_caught_up() { [ "$(seen)" -ge $(($(pw_metric perfwatch_samples_total) - 60)) ]; }
pw_wait_for 10 "the detector to catch up" _caught_up || pw_fail "the detector did not resume"
missed=$(pw_metric perfwatch_detector_samples_missed_total)
[ "$missed" -ge 40 ] || pw_fail "the detector missed $missed samples while blocked 3 s (the ring holds 8): not blocked?"
t1=$(pw_metric perfwatch_samples_total)
pw_wait_samples $((t1 + 10))
pw_stop "$PW_PID"
"$PERFWATCHD" --config /dev/null --replay "$mnt/run.pwrec" >/dev/null 2>"$PW_WORK/replay.err" ||
	pw_fail "the recording does not replay: $(cat "$PW_WORK/replay.err")"
echo "frozen 3 s: $((s1 - s0)) samples taken, detector missed $missed (ring overwrote them), then caught up"
echo PASS
