#!/usr/bin/env bash
# Files in --state-dir that someone else put there (issue 10): a symlink at baselines.tmp does not
# make the daemon write through it (its target is untouched, the saved file is 0600 and loads); a
# FIFO as the baselines or notifications file does not block start (refused, logged, relearned); a
# symlink as the baselines file is not followed when read.
source "$(dirname "$0")/lib.sh"

tree="$PW_WORK/tree"
state="$PW_WORK/state"
mkdir -p "$state"
pw_copy_tree vm-2cpu-idle-1 "$tree"
base=(--procfs "$tree/proc" --sysfs "$tree/sys" --state-dir "$state" --interval 100ms)

# 1. baselines.tmp a symlink to a victim: the save goes to a file of its own.
printf 'victim\n' >"$PW_WORK/victim"
chmod 644 "$PW_WORK/victim"
ln -s "$PW_WORK/victim" "$state/baselines.tmp"
pw_start link "${base[@]}"
pw_wait_samples 3
pw_stop "$PW_PID"
[ "$(cat "$PW_WORK/victim")" = victim ] || pw_fail "the symlink's target was written: $(head -c 64 "$PW_WORK/victim" | od -c | head -2)"
[ -f "$state/baselines" ] && [ ! -L "$state/baselines" ] || pw_fail "no baselines saved: $(ls -l "$state"; cat "$PW_WORK/link.log")"
[ "$(stat -c %a "$state/baselines")" = 600 ] || pw_fail "baselines mode $(stat -c %a "$state/baselines"), want 600"
[ -e "$state/baselines.tmp" ] && pw_fail "a temporary file is left: $(ls -l "$state")"
pw_start reload "${base[@]}"
grep -q "baselines loaded" "$PW_WORK/reload.log" || pw_fail "the saved file does not load: $(cat "$PW_WORK/reload.log")"
pw_stop "$PW_PID"

# 2. A FIFO as the baselines file and as the notifications queue: start goes on (pw_start waits for
# /healthz), each is refused with a reason, and nothing blocks.
rm -f "$state/baselines"
mkfifo "$state/baselines" "$state/notifications"
pw_start fifo "${base[@]}" --webhook "http://127.0.0.1:$(pw_free_port)/hook"
grep -q "not a regular file" "$PW_WORK/fifo.log" || pw_fail "the FIFO was not reported: $(cat "$PW_WORK/fifo.log")"
pw_stop "$PW_PID"

# 3. A symlink as the baselines file is refused, not read through.
rm -f "$state/baselines" "$state/notifications"
cp "$PW_WORK/victim" "$PW_WORK/elsewhere"
ln -s "$PW_WORK/elsewhere" "$state/baselines"
pw_start readlink "${base[@]}"
grep -qE "baselines.*(Too many levels of symbolic links|not a regular file)" "$PW_WORK/readlink.log" ||
	pw_fail "a symlinked state file was read: $(cat "$PW_WORK/readlink.log")"
pw_stop "$PW_PID"
echo PASS
