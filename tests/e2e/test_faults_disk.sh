#!/usr/bin/env bash
# perfwatchd's own files on a disk that fails: the state dir (baselines, the notification queue, the
# history store) and
# the --record file each on a small tmpfs of their own that (1) fills up, (2) is remounted read-only,
# (3) has its directory removed while the daemon runs, and (4, the record file) is read-only at the
# start; (5) a failed queue save is retried by itself. Each time the sampler goes on (perfwatch_samples_total rises, /healthz 200, no deadline
# missed), the failure is logged once (rate-limited, not once per sample) and shown
# (perfwatch_file_write_failing 1, perfwatch_file_write_errors_total rising), and writing resumes
# once the disk is back, without a restart. Root only (mount); the mounts are undone by the trap.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/notify_lib.sh"
[ "$(id -u)" = 0 ] || pw_skip "mounting a tmpfs needs root"
command -v jq >/dev/null || pw_skip "jq not installed"

state_mnt="$PW_WORK/state-fs"
rec_mnt="$PW_WORK/rec-fs"
mkdir -p "$state_mnt" "$rec_mnt"
# Processes first (they hold files on the mounts), then the mounts, then lib.sh's cleanup.
faults_cleanup() {
	local pid m
	for pid in "${PW_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${PW_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
	for m in "$state_mnt" "$rec_mnt"; do
		mountpoint -q "$m" && { umount "$m" || umount -l "$m"; }
	done
	pw_cleanup
}
trap faults_cleanup EXIT
mount -t tmpfs -o size=2m,mode=0755 perfwatch-test "$state_mnt" || pw_skip "cannot mount a tmpfs here"
mount -t tmpfs -o size=2m,mode=0755 perfwatch-test "$rec_mnt"

state="$state_mnt/state"
rec="$rec_mnt/rec/run.pwrec"
mkdir -p "$state" "$(dirname "$rec")"
# CpuFrequencyLow fires a few seconds in and stays (incident 600 s). An Alertmanager nobody
# answers gets a fresh push every second that replaces the waiting one: the queue file changes
# (and is saved) every second. Baselines are saved every 500 ms, the recording written every sample.
scenario_start 600 1
run=(--procfs "$PW_WORK/tree/proc" --sysfs "$PW_WORK/tree/sys" --interval 100ms --alert-for 300ms
	--state-dir "$state" --state-interval 500ms --record "$rec"
	--alertmanager "http://127.0.0.1:$(pw_free_port)" --alertmanager-resend 1s)

series() { printf 'perfwatch_file_write_%s{file="%s"}' "$1" "$2"; }
failing_is() { # VALUE FILE...
	local v=$1 f body
	shift
	body=$(pw_get metrics) || return 1
	for f; do grep -qxF "$(series failing "$f") $v" <<<"$body" || return 1; done
}
errors_of() { pw_metric "$(series errors_total "$1")"; }
samples() { pw_metric perfwatch_samples_total; }

# The sampler and HTTP carry on: 10 more samples within 3 s (100 ms interval), none missed, healthy.
still_sampling() {
	local from to
	from=$(samples)
	_more() { to=$(samples); [ "${to:-0}" -ge $((from + 10)) ]; }
	pw_wait_for 3 "10 more samples" _more || pw_fail "sampling stalled at $from during the fault"
	pw_healthy || pw_fail "/healthz not 200 during the fault"
	[ "$(pw_metric perfwatch_missed_deadlines_total)" = 0 ] || pw_fail "deadlines missed during the fault"
}

# fault NAME WHAT FILES...: wait until each file shows failing 1 with errors rising, the sampler
# going on; then the log names the failure once per file.
fault() {
	local name=$1 what=$2 f e2
	local -a e1=()
	shift 2
	pw_wait_for 10 "$* failing ($name)" failing_is 1 "$@" ||
		pw_fail "$name: not shown as failing: $(pw_get metrics | grep perfwatch_file_write)"
	for f; do e1+=("$(errors_of "$f")"); done
	still_sampling
	still_sampling
	local i=0
	for f; do
		e2=$(errors_of "$f")
		[ "$e2" -gt "${e1[$i]}" ] || pw_fail "$name: $f errors did not rise (${e1[$i]} -> $e2)"
		i=$((i + 1))
	done
	_logged "$name" "$what" "$@"
}

# _logged NAME WHAT FILE...: each file's complaint is in the log exactly once (3 s of failures at
# 10 samples and 2 saves a second would be dozens of lines without the rate limit), naming WHAT.
_logged() {
	local name=$1 what=$2 f pattern n
	shift 2
	for f; do
		case $f in
		recording) pattern="record $rec: .*$what" ;;
		baselines) pattern="state file: .*$what.*baselines not saved" ;;
		notifications) pattern="notifier: cannot save the queue: .*$what" ;;
		history) pattern="history store $state/history: samples tier: .*$what" ;; # minutes: only when a minute ends meanwhile
		esac
		n=$(grep -cE "$pattern" "$PW_WORK/$name.log" || true)
		[ "$n" = 1 ] || pw_fail "$name: $f: $n log lines matching '$pattern', want 1"
	done
}

# A save in progress holds a file open for a moment: then the kernel refuses (EBUSY); try again.
remount_ro() {
	local i
	for i in $(seq 50); do
		mount -o remount,ro "$1" 2>/dev/null && return 0
		sleep 0.02
	done
	pw_fail "cannot remount $1 read-only"
}

recovered() { # NAME FILE...
	local name=$1
	shift
	pw_wait_for 10 "$* writing again ($name)" failing_is 0 "$@" ||
		pw_fail "$name: did not recover: $(pw_get metrics | grep perfwatch_file_write)"
	still_sampling
}

# Wait for the alert: from then on the queue file changes every second.
start_daemon() {
	pw_start "$1" "${run[@]}"
	pw_wait_for 20 "the alert firing" pw_has_metric '^perfwatch_alerts\{alertname="CpuFrequencyLow",alertstate="firing"' ||
		pw_fail "CpuFrequencyLow did not fire"
	pw_wait_for 10 "the queue file" test -s "$state/notifications" || pw_fail "no queue file"
	failing_is 0 baselines notifications recording history || pw_fail "failing before any fault: $(pw_get metrics | grep perfwatch_file_write)"
}

# 1. Full: a filler takes every free block of both file systems.
start_daemon full
for m in "$state_mnt" "$rec_mnt"; do
	dd if=/dev/zero of="$m/filler" bs=4k status=none 2>/dev/null || true
done
fault full "No space left on device" baselines notifications recording history
rm -f "$state_mnt/filler" "$rec_mnt/filler"
recovered full baselines notifications recording history
grep -q "record $rec: writing again" "$PW_WORK/full.log" || pw_fail "full: recovery not logged"
pw_stop "$PW_PID"
"$PERFWATCHD" --config /dev/null --replay "$rec" >/dev/null 2>"$PW_WORK/full.replay" ||
	pw_fail "the recording does not replay after a full disk: $(cat "$PW_WORK/full.replay")"
grep -q "cut short" "$PW_WORK/full.replay" && pw_fail "a partial record stayed: $(cat "$PW_WORK/full.replay")"

# 2. Read-only while running. The state dir's files are written whole and closed, so its file
# system can be remounted; the recording is open for writing, and the kernel refuses (EBUSY) to
# remount a file system with such a file: a recording cannot become read-only under the daemon.
start_daemon ro
remount_ro "$state_mnt"
if mount -o remount,ro "$rec_mnt" 2>/dev/null; then
	pw_fail "remounted the recording's file system read-only under an open file (expected EBUSY)"
fi
fault ro "Read-only file system" baselines notifications history
mount -o remount,rw "$state_mnt"
recovered ro baselines notifications history
failing_is 0 recording || pw_fail "ro: the recording failed"
pw_stop "$PW_PID"

# 3. The directories removed while running: the recorder notices its file is gone within a second
# (rather than writing on into a file nobody can see), and starts a new one once the directory is
# back; the state dir's saves resume once it is back.
start_daemon gone
rm -rf "$state" "$(dirname "$rec")"
fault gone "No such file or directory" baselines notifications recording history
grep -q "record $rec: the file was removed or moved away" "$PW_WORK/gone.log" || pw_fail "gone: removal not logged"
mkdir -p "$state" "$(dirname "$rec")"
recovered gone baselines notifications recording history
pw_wait_for 5 "a new recording" test -s "$rec" || pw_fail "no new recording"
pw_wait_for 5 "baselines saved again" test -s "$state/baselines" || pw_fail "no baselines saved again"
pw_wait_for 5 "the queue saved again" test -s "$state/notifications" || pw_fail "no queue saved again"
pw_stop "$PW_PID"
"$PERFWATCHD" --config /dev/null --replay "$rec" >/dev/null 2>"$PW_WORK/gone.replay" ||
	pw_fail "the new recording does not replay: $(cat "$PW_WORK/gone.replay")"

# 4. The recording's file system read-only at the start: the daemon starts, says so once, and
# records from the first second after it is writable again.
rm -f "$rec"
mount -o remount,ro "$rec_mnt"
pw_start rostart "${run[@]}"
pw_wait_for 10 "recording failing (rostart)" failing_is 1 recording || pw_fail "rostart: not failing"
still_sampling
_logged rostart "Read-only file system" recording
mount -o remount,rw "$rec_mnt"
recovered rostart recording
grep -q "record $rec: open now, recording" "$PW_WORK/rostart.log" || pw_fail "rostart: reopen not logged"
pw_stop "$PW_PID"

# 5. A queue save that failed is retried by itself: the webhook delivered (the queue empty, nothing
# left to wake the notifier for a minute) while the disk was full, the file still lists it; once
# space is back the empty queue is saved within a couple of seconds.
receiver_start
dd if=/dev/zero of="$state_mnt/filler" bs=4k status=none 2>/dev/null || true
pw_start retry --procfs "$PW_WORK/tree/proc" --sysfs "$PW_WORK/tree/sys" --interval 100ms --alert-for 300ms \
	--state-dir "$state" --webhook "$RX_URL/hook"
metric_at_least "perfwatch_notifications_sent_total$RX_LABELS" 1 20
pw_wait_for 10 "the queue save failing" failing_is 1 notifications || pw_fail "retry: the save did not fail"
rm -f "$state_mnt/filler"
pw_wait_for 3 "the queue saved again" failing_is 0 notifications ||
	pw_fail "retry: the failed queue save was not retried within 3 s"
jq -e '.notifications == []' "$state/notifications" >/dev/null || pw_fail "retry: $(cat "$state/notifications")"
pw_stop "$PW_PID"
echo PASS
