#!/usr/bin/env bash
# Real incidents on this machine's kernel (tests/live/README.md; issue 8): each case
# starts a workload, holds it, stops it, and asserts what perfwatchd (the real /proc and /sys, 1 s
# interval, 30 s warmup, 3 s pending) fired within pending + 2 intervals of onset, what it must never
# fire, and the words of /status "diagnosis" during the incident. Daemon "drop" runs case i (a
# workload through the warmup that then ends for good); daemon "main" runs a-h and j in sequence after one
# idle warmup, which overlaps case i's wait. A case that cannot run here says why and the script
# then exits 77 (skipped), unless another case failed. All cases run even when one fails.
#   LIVE_CASES="a c" bash tests/live/test_live_incidents.sh      (as root; ctest sets PERFWATCHD)
# Knobs: LIVE_HOLD (incident length, 10 s), LIVE_DROP_WAIT (how long case i's alert may last after
# its workload ends, 90 s), LIVE_FIGURES (append each case's figures as JSON lines to this file),
# LIVE_RECORD_DIR (keep the recordings and each case's check_replay.py metadata there).
# shellcheck source=tests/live/live_lib.sh
source "$(dirname "$0")/live_lib.sh"

LIVE_CASES=${LIVE_CASES:-"i a b c d j e f g h"}
LIVE_HOLD=${LIVE_HOLD:-10}
LIVE_DROP_WAIT=${LIVE_DROP_WAIT:-90}
QUIET_MAX=20 GAP=3 STEADY=8
IO_CAP=2000 # writes/s: under what a disk that keeps up does, so writers wait on it (a slower disk stalls them anyway)
BUDGET=$(python3 -c "print($LIVE_ALERT_FOR + 2 * 1 + 0.5)") # pending + 2 intervals + polling slack

# The cases, as issue 8 states them. FORBID '*': anything not expected or allowed. WORDS: regular
# expressions (;-separated) that one diagnosis during the incident must all match.
declare -A DESC EXPECT ALLOW FORBID WORDS
DESC[a]="syscall storm: 3 processes pread() a 4 KiB page at a time, beside 1 user CPU hog"
EXPECT[a]=SystemTimeHigh FORBID[a]=InterruptTimeHigh WORDS[a]="system"
DESC[b]="UDP flood over loopback: 1 sender at 50 000 datagrams/s, 1 receiver"
FORBID[b]=InterruptTimeHigh WORDS[b]="NET_RX|softirq"
DESC[c]="5000 UDP packets/s in a private netns, then 3000 non-matching iptables INPUT rules"
EXPECT[c]=InterruptTimeHigh WORDS[c]="softirq|NET_RX|interrupt"
DESC[d]="4 KiB O_DIRECT writes to a volume capped at $IO_CAP writes/s (blk-throttle, as a cloud disk's IOPS limit)"
EXPECT[d]=IoWaitHigh FORBID[d]=InterruptTimeHigh WORDS[d]="iowait|I/O"
# Uncapped, a fast disk keeps up (iowait 3%, PSI io 8% on one VM; 25% on another): the completions
# take a third of the CPU serving them, and the other CPU, woken to balance load, has its tick-sampled
# time overcounted (125-131% of the interval). Only a slow disk's IoWaitHigh may fire.
DESC[j]="4 KiB O_DIRECT writes, uncapped, alone"
ALLOW[j]=IoWaitHigh,StealHigh FORBID[j]="*" WORDS[j]="BLOCK|I/O|iowait"
DESC[e]="2 x 4 KiB O_DIRECT writers to the capped volume beside a nice-19 CPU hog on every CPU (iowait hides, PSI io does not)"
EXPECT[e]=IoWaitHigh FORBID[e]=InterruptTimeHigh WORDS[e]="iowait|I/O|pressure"
DESC[f]="memory hog (600 MiB) in a 256 MiB memory cgroup with a 1 GiB swap file"
EXPECT[f]=MemorySwapping FORBID[f]=InterruptTimeHigh WORDS[f]="swap"
DESC[g]="pure user load on every CPU (silent)"
# StealHigh is the hypervisor's, not the workload's: a busy neighbour on the CI host may steal 20%
# at any moment (seen in c, d, e, f of one run), and it would be right to say so.
FORBID[g]="*" ALLOW[g]=StealHigh
DESC[h]="nice-19 CPU hog on every CPU (silent)"
FORBID[h]="*" ALLOW[h]=StealHigh
DESC[i]="O_DIRECT writes through the warmup and beyond, then stopped for good"
ALLOW[i]=InterruptRateDrop,StealHigh FORBID[i]="*"

live_require_root
[ -z "$(live_missing curl jq python3)" ] || pw_skip "missing $(live_missing curl jq python3)"
live_build_load
CPUS=$(nproc)
SECS=$((LIVE_HOLD + 30)) # every workload also ends by itself, should the suite lose track of it
FAILED=() SKIPPED=() CASE_PIDS=()

# ---- workloads: case_X_setup (optional, before onset; sets REASON and fails to skip the case),
# case_X_start (the incident's onset; it sets ONSET when the onset is when it returns), case_X_stop
# (optional, after its processes are stopped).
# Three readers beside the hog, so that each CPU holds two tasks: with two readers the scheduler
# (6.18 here) left the hog a CPU of its own and the readers the other, the kernel then 45% of the
# CPUs against 55% user, and SystemTimeHigh rightly silent or late (5.5-7.6 s).
case_a_start() {
	head -c 4096 /dev/urandom >"$PW_WORK/storm.dat"
	live_bg "$LOAD" pread "$PW_WORK/storm.dat" "$SECS"
	live_bg "$LOAD" pread "$PW_WORK/storm.dat" "$SECS"
	live_bg "$LOAD" pread "$PW_WORK/storm.dat" "$SECS"
	live_bg "$LOAD" spin "$SECS"
}
case_b_start() {
	local port
	port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	live_bg "$LOAD" udprecv "$port" "$SECS"
	# 50 000 datagrams/s, hundreds of times the baseline: unbounded, this VM's loopback took 120-150
	# thousand a second at 48-52% softirq on one CPU, where InterruptTimeHigh fires by design
	# (traffic past half a CPU) and the case's silence was a coin toss.
	live_bg "$LOAD" udpsend "$port" 50000 "$SECS"
}
case_c_setup() {
	REASON="missing $(live_missing ip iptables-restore iptables taskset)"
	[ "$REASON" = "missing " ] || return 1
	live_netns || return 1
	# The sender on one CPU: the rules' cost is paid in its softirq, on the CPU it runs on, and
	# the alert is per CPU (migrations would split the cost between two CPUs on a busy VM).
	live_bg ip netns exec "$NS" taskset -c $(($(nproc) - 1)) "$LOAD" udprecv 9999 $((SECS + STEADY))
	live_bg ip netns exec "$NS" taskset -c 0 "$LOAD" udpsend 9999 5000 $((SECS + STEADY))
	# 3000 rules no packet matches (sources in 10/8): each packet walks them all. One restore is
	# one commit, so the cost rises at one moment, at the same packet rate.
	python3 -c 'print("*filter"); [print("-A INPUT -s 10.%d.%d.1/32 -p udp -j DROP" % (i // 250, i % 250)) for i in range(3000)]; print("COMMIT")' >"$PW_WORK/rules"
}
case_c_start() {
	ip netns exec "$NS" iptables-restore --noflush <"$PW_WORK/rules" || pw_fail "iptables-restore failed in $NS"
	ONSET=$(live_now) # the rules apply at the commit, when the restore returns
}
case_c_stop() {
	ip netns exec "$NS" iptables -F INPUT 2>/dev/null || true
	ip netns delete "$NS"
}
case_j_setup() {
	live_disk_dir || return 1
	REASON="O_DIRECT writes fail in $DISK"
	"$LOAD" dio "$DISK/probe" 0.2 >/dev/null 2>&1
}
case_j_start() { live_bg "$LOAD" dio "$DISK/dio" "$SECS"; }
case_j_stop() { rm -rf "$DISK"; }
case_d_setup() { case_j_setup && live_cgroup_io_cap "pwliveio$$" "$DISK" "$IO_CAP"; }
# capped_writer FILE: direct writes to FILE from inside the capped cgroup, joined before the first
# write (sh writes its own PID, then becomes the writer).
capped_writer() {
	# shellcheck disable=SC2016
	live_bg sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" dio "$3" "$4"' sh "$CG" "$LOAD" "$1" "$SECS"
}
case_d_start() { capped_writer "$DISK/dio"; }
case_d_stop() {
	live_cgroup_remove "$CG"
	case_j_stop
}
case_e_setup() { case_d_setup; }
case_e_start() {
	local c
	for c in $(seq "$CPUS"); do live_bg nice -n 19 "$LOAD" spin "$SECS"; done
	# Two writers sharing the cap, as d's: whichever the CPUs run, one of them waits on the volume.
	capped_writer "$DISK/dio"
	capped_writer "$DISK/dio2"
}
case_e_stop() { case_d_stop; }
case_f_setup() {
	REASON="missing $(live_missing mkswap swapon swapoff fallocate)"
	[ "$REASON" = "missing " ] || return 1
	live_disk_dir && live_swapfile "$DISK/swap" 1024 && live_cgroup_memory "pwlive$$" $((256 << 20)) ||
		return 1
	# The hog joins the cgroup before it allocates (sh writes its own PID, then becomes the hog),
	# touches 200 MiB, under the limit, and waits: the onset is the moment it asks for more.
	# shellcheck disable=SC2016
	live_bg sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" memwait 200 600 "$3"' sh "$CG" "$LOAD" \
		$((SECS + STEADY))
	HOG=$!
}
case_f_start() { kill -USR1 "$HOG"; }
case_f_stop() {
	live_cgroup_remove "$CG"
	swapoff "$DISK/swap"
	rm -rf "$DISK"
}
case_g_start() {
	local c
	for c in $(seq "$CPUS"); do live_bg "$LOAD" spin "$SECS"; done
}
case_h_start() {
	local c
	for c in $(seq "$CPUS"); do live_bg nice -n 19 "$LOAD" spin "$SECS"; done
}

# judge CASE DAEMON START PRE_START ONSET STOP END: the verdict and figures of one case.
judge() {
	local c=$1 d=$2 args=()
	[ -n "$4" ] && args+=(--pre "$4:$5")
	[ -n "${LIVE_FIGURES:-}" ] && args+=(--figures "$LIVE_FIGURES")
	[ -n "${LIVE_RECORD_DIR:-}" ] && args+=(--meta "$PW_WORK/live-$c.json" --recording "live-$d.pwrec"
		--replay-arg=--baseline-warmup="${LIVE_WARMUP}s" --replay-arg=--alert-for="${LIVE_ALERT_FOR}s"
		--replay-arg=--config=live.conf)
	python3 "$LIVE_DIR/judge_live.py" "$PW_WORK/$d.poll" "$c" --baseline "${BASE[$d]}" --start "$3" \
		--onset "$5" --stop "$6" --end "$7" --expect "${EXPECT[$c]:-}" --allow "${ALLOW[$c]:-}" \
		--forbid "${FORBID[$c]:-}" --words "${WORDS[$c]:-}" --budget "$BUDGET" --pending "$LIVE_ALERT_FOR" "${args[@]}" \
		>"$PW_WORK/judge-$c.txt" 2>&1 || FAILED+=("$c")
	cat "$PW_WORK/judge-$c.txt"
}

# run_case CASE DAEMON: setup, onset, hold, stop, until no alert is active (at most QUIET_MAX s),
# a short idle gap, then judge.
run_case() {
	local c=$1 d=$2 start pre="" onset stop
	echo "case $c: ${DESC[$c]}"
	start=$(live_now)
	if declare -F "case_${c}_setup" >/dev/null; then
		if ! "case_${c}_setup"; then
			echo "SKIP case $c: $REASON"
			SKIPPED+=("$c")
			live_stop_case
			return 0
		fi
		# A steady phase when the setup started a load (case c's paced packets before the rules).
		[ ${#CASE_PIDS[@]} -eq 0 ] || { pre=$(live_now); live_sleep "$STEADY"; }
	fi
	ONSET=""
	onset=$(live_now)
	"case_${c}_start"
	onset=${ONSET:-$onset}
	live_sleep "$LIVE_HOLD"
	stop=$(live_now)
	live_stop_case
	if declare -F "case_${c}_stop" >/dev/null; then "case_${c}_stop"; fi
	live_wait_quiet "$d" "$QUIET_MAX"
	live_sleep "$GAP"
	judge "$c" "$d" "$start" "$pre" "$onset" "$stop" "$(live_now)"
}

# Case i needs its own daemon: the direct I/O must be part of what the warmup learns.
declare -A BASE
suite_start=$SECONDS
if [[ " $LIVE_CASES " == *" i "* ]]; then
	echo "case i: ${DESC[i]}"
	if ! case_j_setup; then
		echo "SKIP case i: $REASON"
		SKIPPED+=(i)
	else
		live_daemon_start drop
		i_start=$(live_now)
		live_bg "$LOAD" dio "$DISK/dio" $((LIVE_WARMUP + 60))
		live_wait_warm drop
		live_sleep 10
		BASE[drop]="$(python3 -c "print($(live_now) - 10)"):$(live_now)"
		i_stop=$(live_now)
		live_stop_case
		case_j_stop
	fi
fi
# The main daemon's idle warmup runs while case i waits for its alert to end.
if [[ " $LIVE_CASES " =~ \ [a-hj]\  ]]; then
	live_daemon_start main
fi
if [ -n "${i_stop:-}" ]; then
	# Pending or firing, InterruptRateDrop comes within pending + 2 intervals; then it must end.
	live_sleep $((LIVE_ALERT_FOR + 5))
	live_wait_quiet drop "$LIVE_DROP_WAIT"
	live_sleep 1 # the poller's log catches up with what the wait saw (a 250 ms race)
	judge i drop "$i_start" "" "$i_stop" "$i_stop" "$(live_now)"
	live_daemon_stop drop
fi
if [ -n "${LIVE_URL[main]:-}" ]; then
	live_wait_warm main
	BASE[main]="$(python3 -c "print($(live_now) - 15)"):$(live_now)"
	for c in $LIVE_CASES; do
		[ "$c" = i ] || run_case "$c" main
	done
	live_daemon_stop main
fi
if [ -n "${LIVE_RECORD_DIR:-}" ]; then
	mkdir -p "$LIVE_RECORD_DIR"
	for f in "$PW_WORK"/*.pwrec; do cp "$f" "$LIVE_RECORD_DIR/live-$(basename "$f")"; done
	cp "$PW_WORK"/live-*.json "$LIVE_RECORD_DIR/"
fi
# A CI log keeps its head and tail: the failed cases' figures once more, last.
for c in "${FAILED[@]}"; do
	echo "failed case $c: ${DESC[$c]}"
	cat "$PW_WORK/judge-$c.txt"
done
echo "live suite: $((SECONDS - suite_start)) s; failed: ${FAILED[*]:-none}; skipped: ${SKIPPED[*]:-none}"
[ ${#FAILED[@]} -eq 0 ] || pw_fail "live cases failed: ${FAILED[*]}"
[ ${#SKIPPED[@]} -eq 0 ] || pw_skip "live cases skipped: ${SKIPPED[*]} (reasons above)"
echo PASS
