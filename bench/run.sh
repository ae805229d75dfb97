#!/usr/bin/env bash
# bench/run.sh — perfwatchd's cost, side by side with the floor, node_exporter and collectd, on this
# machine, in one run. Not a test: ctest never runs it. See docs/performance.md for the method.
#
#   bench/run.sh              full run, 5 repetitions, about 8 minutes
#   QUICK=1 bench/run.sh      2 repetitions, shorter windows, about 3 minutes
#
# Parts (each repeated REPS times where it measures time; min/median/max reported):
#   A  CPU per sample at 1 s over an idle window: perfwatchd alone, perfwatchd scraped by a real
#      Prometheus at 1 s (which also scrapes node_exporter and collectd), and the floor (bench/floor
#      at 1 s) — all in the same window, so they see the same machine.
#   B  /metrics latency over sequential scrapes (new connection each; and Prometheus-like:
#      keep-alive, gzip, OpenMetrics Accept), CPU per scrape, and wrk throughput.
#   C  RSS (VmRSS, smaps_rollup) after the runs, and perfwatchd with a full 3600-slot history.
#   D  series count and bytes per scrape, plain and gzip.
#   F  synthetic big hosts (bench/make_big_tree.py): sample cost and scrape latency per size.
#
# Every process started here is stopped by the EXIT trap. Only 127.0.0.1 is used. Results: a
# Markdown report on stdout and in $OUT/report.md, raw figures in $OUT/raw.tsv.
#
# Environment: BUILD (build dir, default ./build; built incrementally unless NO_BUILD=1), OUT (results dir), QUICK,
# REPS, IDLE_S, SCRAPES, WRK_S, WRK_REPS, FULL_S, BIG_SIZES ("CPUSxLINES ..."), SKIP (parts to
# skip, e.g. "B F"), NO_COLLECTD=1, NO_PROMETHEUS=1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
	: "${REPS:=2}" "${IDLE_S:=10}" "${SCRAPES:=200}" "${WRK_S:=3}" "${WRK_REPS:=1}" "${BIG_S:=3}"
	: "${BIG_SCRAPES:=50}" "${NODE_BIG_SCRAPES:=3}" "${BIG_SIZES:=64x250 128x500 256x1000}" "${WARM_S:=3}"
else
	: "${REPS:=5}" "${IDLE_S:=30}" "${SCRAPES:=1000}" "${WRK_S:=10}" "${WRK_REPS:=3}" "${BIG_S:=6}"
	: "${BIG_SCRAPES:=200}" "${NODE_BIG_SCRAPES:=5}" "${WARM_S:=5}"
	: "${BIG_SIZES:=64x250 128x500 256x1000 256x250 64x1000}"
fi
: "${FULL_S:=40}" "${SKIP:=}" "${NO_COLLECTD:=0}" "${NO_PROMETHEUS:=0}"
OUT=${OUT:-/tmp/perfwatch-bench.$(date +%Y%m%d-%H%M%S)}
PWD_BIN=$BUILD/daemon/perfwatchd
FLOOR=$BUILD/bench/floor
SCRAPE=$BUILD/bench/scrape
WORK=$(mktemp -d /tmp/perfwatch-bench-work.XXXXXX)
RAW=$OUT/raw.tsv
declare -A PID_OF=() PORT_OF=()
REP=0

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
skipped() { [[ " $SKIP " == *" $1 "* ]]; }

cleanup() {
	local name pid
	for name in "${!PID_OF[@]}"; do
		pid=${PID_OF[$name]}
		kill "$pid" 2>/dev/null || true
	done
	for name in "${!PID_OF[@]}"; do
		pid=${PID_OF[$name]}
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# rec METRIC VALUE: one raw figure of the current repetition.
rec() { printf '%s\t%s\t%s\n' "$1" "$REP" "$2" >>"$RAW"; }

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# start NAME CMD...: run CMD in the background (log in $WORK/NAME.log), remember its PID.
start() {
	local name=$1
	shift
	"$@" >"$WORK/$name.log" 2>&1 &
	PID_OF[$name]=$!
}

stop() {
	local pid=${PID_OF[$1]:-}
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	unset "PID_OF[$1]"
}

# wait_http NAME URL: poll until URL answers 200 (20 s at most) while NAME is alive.
wait_http() {
	for _ in $(seq 200); do
		kill -0 "${PID_OF[$1]}" 2>/dev/null || { cat "$WORK/$1.log" >&2; die "$1 exited"; }
		[ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$2")" = 200 ] && return 0
		sleep 0.1
	done
	cat "$WORK/$1.log" >&2
	die "$1 did not answer $2"
}

# metric PORT NAME: a sample value from perfwatchd's /metrics (first series of that name).
# (awk reads to the end: an early exit would fail curl with EPIPE on a big body, and pipefail with it)
metric() { curl -s -m 5 "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n && !done { print $2; done = 1 }'; }
# snap PORT: "samples_total sample_duration_seconds_total scrapes_total" from one scrape.
snap() {
	curl -s -m 5 "http://127.0.0.1:$1/metrics" | awk '$1 == "perfwatch_samples_total" { s = $2 }
		$1 == "perfwatch_sample_duration_seconds_total" { d = $2 } $1 == "perfwatch_scrapes_total" { c = $2 }
		END { print s, d, c }'
}

# cpu_ns PID: CPU time of all live threads (schedstat, ns) — finer than /proc/PID/stat's ticks.
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
# ticks_ns PID: utime + stime of the whole process (dead threads included), in ns.
ticks_ns() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.0f\n", ($12 + $13) * 1e9 / hz }' "/proc/$1/stat"
}
# perfwatchd's threads are unnamed but for MHD's, so their roles are told apart once per process by
# what each one blocks in: main = the PID (rt_sigtimedwait), http = comm "MHD-*", sampler = futex
# (pthread_cond_timedwait, or a comm with "sampl"), watcher = poll (the detector; or a comm with
# "watcher"/"detect"), anything else = other. Cached per TID in TROLE by start_perfwatchd (thread_ns
# runs in $(...) subshells, whose additions to the cache are lost).
declare -A TROLE=()
thread_roles() {
	local pid=$1 t tid sc comm
	for _ in $(seq 40); do
		local ok=1
		for t in /proc/"$pid"/task/*; do
			tid=${t##*/}
			[ -n "${TROLE[$pid:$tid]:-}" ] && continue
			comm=$(cat "$t/comm" 2>/dev/null) sc=$(cut -d' ' -f1 "$t/syscall" 2>/dev/null)
			if [ "$tid" = "$pid" ]; then TROLE[$pid:$tid]=main
			elif [[ $comm == MHD* ]]; then TROLE[$pid:$tid]=http
			elif [[ $comm == *sampl* ]]; then TROLE[$pid:$tid]=sampler
			elif [[ $comm == *watcher* || $comm == *detect* ]]; then TROLE[$pid:$tid]=watcher
			elif [ "$sc" = 202 ]; then TROLE[$pid:$tid]=sampler
			elif [ "$sc" = 7 ] || [ "$sc" = 271 ]; then TROLE[$pid:$tid]=watcher
			elif [ "$sc" = running ]; then ok=0
			else TROLE[$pid:$tid]=other
			fi
		done
		[ "$ok" = 1 ] && return 0
		sleep 0.05
	done
}
# thread_ns PID ROLE: CPU ns of perfwatchd's threads with that role (main, sampler, watcher, http, other).
thread_ns() {
	local t sum=0
	thread_roles "$1"
	for t in /proc/"$1"/task/*; do
		[ "${TROLE[$1:${t##*/}]:-}" = "$2" ] || continue
		sum=$((sum + $(cut -d' ' -f1 "$t/schedstat" 2>/dev/null || echo 0)))
	done
	echo "$sum"
}
# proc_cpu_ns NAME: the CPU clock used for NAME. perfwatchd's and node_exporter's threads live as
# long as the process, so schedstat (ns) is exact; collectd's write_prometheus runs a thread per
# connection whose time leaves schedstat when it exits, so collectd is read in 10 ms ticks.
proc_cpu_ns() {
	case $1 in
	collectd*) ticks_ns "${PID_OF[$1]}" ;;
	*) cpu_ns "${PID_OF[$1]}" ;;
	esac
}
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
rollup_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/smaps_rollup"; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "nan"; else printf "%.3f\n", a / b }'; }
field() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }

start_perfwatchd() { # NAME ARGS...
	local name=$1
	shift
	PORT_OF[$name]=$(free_port)
	start "$name" "$PWD_BIN" --config /dev/null --listen "127.0.0.1:${PORT_OF[$name]}" "$@"
	wait_http "$name" "http://127.0.0.1:${PORT_OF[$name]}/healthz"
	thread_roles "${PID_OF[$name]}"
}

NODE_ARGS=(--collector.disable-defaults --collector.cpu --collector.cpufreq --collector.interrupts --collector.stat
	--collector.vmstat --collector.meminfo --collector.pressure --collector.loadavg)
node_flags() {
	# node_exporter 1.5 (Debian 12) has no softirqs collector; /proc/softirqs comes with the stat one.
	if prometheus-node-exporter --help 2>&1 | grep -q -- '--collector.softirqs'; then
		NODE_ARGS+=(--collector.softirqs)
	else
		NODE_ARGS+=(--collector.stat.softirq)
	fi
}

start_node() { # NAME [EXTRA ARGS]
	local name=$1
	shift
	PORT_OF[$name]=$(free_port)
	start "$name" prometheus-node-exporter "${NODE_ARGS[@]}" "$@" --web.listen-address="127.0.0.1:${PORT_OF[$name]}"
	# its landing page: on a big tree, /metrics alone can take seconds
	wait_http "$name" "http://127.0.0.1:${PORT_OF[$name]}/"
}

HAVE_COLLECTD=0
start_collectd() {
	PORT_OF[collectd]=$(free_port)
	mkdir -p "$WORK/collectd"
	cat >"$WORK/collectd.conf" <<-EOF
		Hostname "bench"
		FQDNLookup false
		BaseDir "$WORK/collectd"
		PIDFile "$WORK/collectd/collectd.pid"
		PluginDir "/usr/lib/collectd"
		TypesDB "/usr/share/collectd/types.db"
		Interval 1
		ReadThreads 1
		WriteThreads 1
		LoadPlugin cpu
		LoadPlugin cpufreq
		LoadPlugin irq
		LoadPlugin contextswitch
		LoadPlugin vmem
		LoadPlugin memory
		LoadPlugin swap
		LoadPlugin load
		LoadPlugin write_prometheus
		<Plugin cpu>
		  ReportByCpu true
		  ValuesPercentage false
		</Plugin>
		<Plugin write_prometheus>
		  Host "127.0.0.1"
		  Port "${PORT_OF[collectd]}"
		</Plugin>
	EOF
	start collectd collectd -f -C "$WORK/collectd.conf"
	wait_http collectd "http://127.0.0.1:${PORT_OF[collectd]}/metrics"
}

start_prometheus() {
	PORT_OF[prometheus]=$(free_port)
	mkdir -p "$WORK/tsdb"
	{
		printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n'
		local t
		for t in "$@"; do
			printf '  - job_name: %s\n    static_configs:\n      - targets: ["127.0.0.1:%s"]\n' "$t" "${PORT_OF[$t]}"
		done
	} >"$WORK/prometheus.yml"
	start prometheus prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
		--storage.tsdb.retention.time=1h --web.listen-address="127.0.0.1:${PORT_OF[prometheus]}" --log.level=warn
	wait_http prometheus "http://127.0.0.1:${PORT_OF[prometheus]}/-/ready"
}

# prom_query EXPR: "label value" lines of an instant vector, labelled by job.
prom_query() {
	curl -s -m 5 "http://127.0.0.1:${PORT_OF[prometheus]}/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json,sys
for r in json.load(sys.stdin)["data"]["result"]: print(r["metric"].get("job", "-"), r["value"][1])'
}

machine_info() {
	{
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "kernel: $(uname -srm)"
		echo "nproc: $(nproc)"
		echo "cpu: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
		echo "memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
		echo "loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "perfwatchd: $("$PWD_BIN" --version) ($(basename "$BUILD"), $(grep -m1 CMAKE_BUILD_TYPE: "$BUILD/CMakeCache.txt" | cut -d= -f2), tree $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown))"
		echo "node_exporter: $(prometheus-node-exporter --version 2>&1 | head -1)"
		echo "prometheus: $(prometheus --version 2>&1 | head -1)"
		[ "$HAVE_COLLECTD" = 1 ] && echo "collectd: $(collectd -h 2>&1 | awk '/^collectd / { print $2; exit }')$(dpkg-query -W -f=' ${Version}' collectd-core 2>/dev/null)"
		echo "wrk: $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
		echo "settings: QUICK=$QUICK REPS=$REPS IDLE_S=$IDLE_S SCRAPES=$SCRAPES WRK_S=$WRK_S WRK_REPS=$WRK_REPS FULL_S=$FULL_S BIG_SIZES='$BIG_SIZES'"
	} | tee "$OUT/machine.txt" >&2
}

# ---------------------------------------------------------------- A: CPU per sample at 1 s
part_a() {
	local targets=(pw_prom node)
	[ "$HAVE_COLLECTD" = 1 ] && targets+=(collectd)
	if [ "$NO_PROMETHEUS" != 1 ]; then
		log "A: starting Prometheus (scrapes ${targets[*]} every 1 s), warming up ${WARM_S}s"
		start_prometheus "${targets[@]}"
		sleep "$WARM_S"
	fi
	for REP in $(seq "$REPS"); do
		log "A: repetition $REP/$REPS, ${IDLE_S}s window"
		"$FLOOR" --count 2000 >"$WORK/floor_b2b.txt"
		rec floor_b2b_cpu_us "$(div "$(grep ^RESULT "$WORK/floor_b2b.txt" | field cpu_ns_median)" 1000)"
		rec floor_reopen_cpu_us "$(div "$("$FLOOR" --count 2000 --reopen | grep ^RESULT | field cpu_ns_median)" 1000)"
		local i0 p0 i1 p1 c0i c0p t0i tsi0 tsp0 thp0 tmi0 thi0 twi0 c0n c0c=0
		# One scrape per daemon before and after, outside the CPU window: S D C (samples,
		# sample duration total, scrapes total).
		i0=$(snap "${PORT_OF[pw_idle]}") p0=$(snap "${PORT_OF[pw_prom]}")
		"$FLOOR" --count "$IDLE_S" --interval 1s >"$WORK/floor_1s.txt" &
		PID_OF[floor]=$!
		c0i=$(cpu_ns "${PID_OF[pw_idle]}") t0i=$(ticks_ns "${PID_OF[pw_idle]}")
		tsi0=$(thread_ns "${PID_OF[pw_idle]}" sampler) tmi0=$(thread_ns "${PID_OF[pw_idle]}" main)
		thi0=$(thread_ns "${PID_OF[pw_idle]}" http) twi0=$(thread_ns "${PID_OF[pw_idle]}" watcher)
		c0p=$(cpu_ns "${PID_OF[pw_prom]}") tsp0=$(thread_ns "${PID_OF[pw_prom]}" sampler)
		thp0=$(thread_ns "${PID_OF[pw_prom]}" http)
		c0n=$(proc_cpu_ns node)
		[ "$HAVE_COLLECTD" = 1 ] && c0c=$(ticks_ns "${PID_OF[collectd]}")
		local w0 w1
		w0=$(date +%s.%N)
		sleep "$IDLE_S"
		w1=$(date +%s.%N)
		local ci cp ti tsi tmi thi twi tsp thp cn cc=0 el
		ci=$(($(cpu_ns "${PID_OF[pw_idle]}") - c0i)) ti=$(($(ticks_ns "${PID_OF[pw_idle]}") - t0i))
		tsi=$(($(thread_ns "${PID_OF[pw_idle]}" sampler) - tsi0)) tmi=$(($(thread_ns "${PID_OF[pw_idle]}" main) - tmi0))
		thi=$(($(thread_ns "${PID_OF[pw_idle]}" http) - thi0)) twi=$(($(thread_ns "${PID_OF[pw_idle]}" watcher) - twi0))
		cp=$(($(cpu_ns "${PID_OF[pw_prom]}") - c0p)) tsp=$(($(thread_ns "${PID_OF[pw_prom]}" sampler) - tsp0))
		thp=$(($(thread_ns "${PID_OF[pw_prom]}" http) - thp0))
		cn=$(($(proc_cpu_ns node) - c0n))
		[ "$HAVE_COLLECTD" = 1 ] && cc=$(($(ticks_ns "${PID_OF[collectd]}") - c0c))
		el=$(awk -v a="$w0" -v b="$w1" 'BEGIN { print b - a }')
		i1=$(snap "${PORT_OF[pw_idle]}") p1=$(snap "${PORT_OF[pw_prom]}")
		wait "${PID_OF[floor]}"
		unset "PID_OF[floor]"
		local s0i d0i s1i d1i s0p d0p sc0 s1p d1p sc1
		read -r s0i d0i _ <<<"$i0"
		read -r s1i d1i _ <<<"$i1"
		read -r s0p d0p sc0 <<<"$p0"
		read -r s1p d1p sc1 <<<"$p1"
		local ni=$((s1i - s0i)) np=$((s1p - s0p))
		rec floor_1s_loop_cpu_us "$(div "$(grep ^RESULT "$WORK/floor_1s.txt" | field loop_cpu_ns)" 1000)"
		rec floor_1s_reads_cpu_us "$(div "$(grep ^RESULT "$WORK/floor_1s.txt" | field cpu_ns_median)" 1000)"
		rec pw_idle_samples "$ni"
		rec pw_idle_cpu_us_per_sample "$(div "$ci" $((ni * 1000)))"
		rec pw_idle_ticks_us_per_sample "$(div "$ti" $((ni * 1000)))"
		rec pw_idle_sampler_us_per_sample "$(div "$tsi" $((ni * 1000)))"
		rec pw_idle_main_us_per_sample "$(div "$tmi" $((ni * 1000)))"
		rec pw_idle_http_us_per_sample "$(div "$thi" $((ni * 1000)))"
		rec pw_idle_watcher_us_per_sample "$(div "$twi" $((ni * 1000)))"
		rec pw_idle_wall_us_per_sample "$(awk -v a="$d0i" -v b="$d1i" -v n="$ni" 'BEGIN { printf "%.3f", (b - a) * 1e6 / n }')"
		rec pw_prom_samples "$np"
		rec pw_prom_scrapes "$((sc1 - sc0 - 1))"
		rec pw_prom_cpu_us_per_sample "$(div "$cp" $((np * 1000)))"
		rec pw_prom_sampler_us_per_sample "$(div "$tsp" $((np * 1000)))"
		rec pw_prom_http_us_per_scrape "$(div "$thp" $(((sc1 - sc0 - 1) * 1000)))"
		rec pw_prom_wall_us_per_sample "$(awk -v a="$d0p" -v b="$d1p" -v n="$np" 'BEGIN { printf "%.3f", (b - a) * 1e6 / n }')"
		rec node_prom_cpu_us_per_s "$(awk -v c="$cn" -v e="$el" 'BEGIN { printf "%.3f", c / 1000 / e }')"
		[ "$HAVE_COLLECTD" = 1 ] && rec collectd_prom_cpu_us_per_s "$(awk -v c="$cc" -v e="$el" 'BEGIN { printf "%.3f", c / 1000 / e }')"
	done
	if [ "$NO_PROMETHEUS" != 1 ]; then
		local job v
		REP=0
		while read -r job v; do rec "prom_scrape_ms_$job" "$(awk -v v="$v" 'BEGIN { printf "%.3f", v * 1000 }')"; done \
			< <(prom_query "avg by (job) (avg_over_time(scrape_duration_seconds[$((REPS * IDLE_S))s]))")
		while read -r job v; do rec "prom_samples_scraped_$job" "$v"; done \
			< <(prom_query "avg by (job) (scrape_samples_scraped)")
		rec prometheus_rss_kb "$(status_kb "${PID_OF[prometheus]}" VmRSS)"
		stop prometheus
	fi
}

# ---------------------------------------------------------------- B: latency and throughput
wrk_run() { # NAME PORT
	local c0 out reqs
	c0=$(proc_cpu_ns "$1")
	out=$(wrk -t2 -c8 -d"${WRK_S}s" --latency "http://127.0.0.1:$2/metrics")
	reqs=$(awk '/requests in/ { print $1; exit }' <<<"$out")
	rec "$1_wrk_rps" "$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")"
	rec "$1_wrk_cpu_us_per_req" "$(div $(($(proc_cpu_ns "$1") - c0)) $((reqs * 1000)))"
	rec "$1_wrk_p50_ms" "$(awk '$1 == "50%" { v = $2; if (v ~ /us$/) v /= 1000; else if (v ~ /ms$/) v += 0; else v *= 1000; print v }' <<<"$out")"
	rec "$1_wrk_p99_ms" "$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) v /= 1000; else if (v ~ /ms$/) v += 0; else v *= 1000; print v }' <<<"$out")"
	rec "$1_wrk_errors" "$(awk '/Non-2xx|Socket errors/ { n++ } END { print n + 0 }' <<<"$out")"
}

part_b() {
	local targets=(pw_idle node) t r c0 k0
	[ "$HAVE_COLLECTD" = 1 ] && targets+=(collectd)
	for REP in $(seq "$REPS"); do
		log "B: repetition $REP/$REPS: $SCRAPES sequential scrapes x ${targets[*]}"
		for t in "${targets[@]}"; do
			c0=$(proc_cpu_ns "$t") k0=$(ticks_ns "${PID_OF[$t]}")
			r=$("$SCRAPE" -q -n "$SCRAPES" "127.0.0.1:${PORT_OF[$t]}") || log "B: $t: some scrapes failed"
			rec "${t}_failed" "$(field failed <<<"$r")"
			rec "${t}_cpu_us_per_scrape" "$(div $(($(proc_cpu_ns "$t") - c0)) $((SCRAPES * 1000)))"
			rec "${t}_ticks_us_per_scrape" "$(div $(($(ticks_ns "${PID_OF[$t]}") - k0)) $((SCRAPES * 1000)))"
			rec "${t}_p50_us" "$(field p50_us <<<"$r")"
			rec "${t}_p90_us" "$(field p90_us <<<"$r")"
			rec "${t}_p99_us" "$(field p99_us <<<"$r")"
			rec "${t}_max_us" "$(field max_us <<<"$r")"
			r=$("$SCRAPE" -q -n "$SCRAPES" --prometheus "127.0.0.1:${PORT_OF[$t]}") || log "B: $t: some scrapes failed"
			rec "${t}_promlike_p50_us" "$(field p50_us <<<"$r")"
			rec "${t}_promlike_p99_us" "$(field p99_us <<<"$r")"
			rec "${t}_promlike_connections" "$(field connections <<<"$r")"
			rec "${t}_promlike_bytes" "$(field bytes <<<"$r")"
		done
	done
	for REP in $(seq "$WRK_REPS"); do
		for t in "${targets[@]}"; do
			log "B: wrk -t2 -c8 -d${WRK_S}s against $t ($REP/$WRK_REPS)"
			wrk_run "$t" "${PORT_OF[$t]}"
		done
	done
}

# ---------------------------------------------------------------- C: memory
part_c() {
	local t
	REP=0
	for t in pw_idle pw_prom node collectd; do
		[ -n "${PID_OF[$t]:-}" ] || continue
		rec "${t}_rss_kb" "$(status_kb "${PID_OF[$t]}" VmRSS)"
		rec "${t}_pss_kb" "$(rollup_kb "${PID_OF[$t]}" Pss)"
	done
	local p=${PID_OF[pw_idle]}
	rec pw_idle_anon_kb "$(rollup_kb "$p" Anonymous)"
	rec pw_idle_file_kb "$(($(rollup_kb "$p" Rss) - $(rollup_kb "$p" Anonymous)))"
	rec pw_idle_private_kb "$(($(rollup_kb "$p" Private_Clean) + $(rollup_kb "$p" Private_Dirty)))"
	rec pw_idle_shared_kb "$(($(rollup_kb "$p" Shared_Clean) + $(rollup_kb "$p" Shared_Dirty)))"
	rec pw_history_bytes "$(metric "${PORT_OF[pw_idle]}" perfwatch_history_bytes)"
	python3 "$ROOT/bench/smaps.py" "$p" >"$OUT/smaps-perfwatchd.txt" || true
	cp "/proc/$p/smaps_rollup" "$OUT/smaps_rollup-perfwatchd.txt" 2>/dev/null || true
	for t in pw_idle pw_prom node collectd; do stop "$t"; done

	log "C: perfwatchd --interval 10ms --history 36s (3600 slots) for ${FULL_S}s"
	start_perfwatchd pw_full --interval 10ms --history 36s
	rec pw_full_rss_start_kb "$(status_kb "${PID_OF[pw_full]}" VmRSS)"
	sleep "$FULL_S"
	rec pw_full_rss_kb "$(status_kb "${PID_OF[pw_full]}" VmRSS)"
	rec pw_full_anon_kb "$(rollup_kb "${PID_OF[pw_full]}" Anonymous)"
	rec pw_full_samples "$(metric "${PORT_OF[pw_full]}" perfwatch_samples_total)"
	rec pw_full_history_capacity "$(metric "${PORT_OF[pw_full]}" perfwatch_history_capacity_samples)"
	stop pw_full
}

# ---------------------------------------------------------------- D: series and bytes
part_d() {
	local t url
	REP=0
	for t in pw_idle node collectd; do
		[ -n "${PID_OF[$t]:-}" ] || continue
		url="http://127.0.0.1:${PORT_OF[$t]}/metrics"
		curl -s -m 5 "$url" >"$WORK/$t.metrics"
		rec "${t}_series" "$(grep -cv -e '^#' -e '^$' "$WORK/$t.metrics")"
		rec "${t}_bytes_plain" "$(wc -c <"$WORK/$t.metrics")"
		rec "${t}_bytes_gzip_sent" "$(curl -s -m 5 -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "$url")"
		rec "${t}_bytes_gzip1_local" "$(gzip -1 -c "$WORK/$t.metrics" | wc -c)"
		cp "$WORK/$t.metrics" "$OUT/metrics-$t.txt"
	done
}

# ---------------------------------------------------------------- F: big hosts
part_f() {
	local size cpus lines tree r c0 s0 d0 t0 t1 w0 w1 s1 d1 n
	REP=0
	for size in $BIG_SIZES; do
		cpus=${size%x*} lines=${size#*x} tree=$WORK/tree-$size
		log "F: $cpus CPUs x $lines interrupt lines"
		python3 "$ROOT/bench/make_big_tree.py" --cpus "$cpus" --lines "$lines" --cpufreq "$tree" >/dev/null
		rec "big_${size}_input_bytes" "$(cat "$tree"/proc/{stat,interrupts,softirqs} | wc -c)"
		r=$("$FLOOR" --procfs "$tree/proc" --sysfs "$tree/sys" --count 200 | grep ^RESULT)
		rec "big_${size}_floor_cpu_us" "$(div "$(field cpu_ns_median <<<"$r")" 1000)"
		rec "big_${size}_files" "$(field files <<<"$r")"
		# 200 ms x 720 s = 3600 slots, the memory of the default 1 h at 1 s.
		start_perfwatchd big --procfs "$tree/proc" --sysfs "$tree/sys" --interval 200ms --history 720s
		local port=${PORT_OF[big]} pid=${PID_OF[big]}
		s0=$(metric "$port" perfwatch_samples_total) d0=$(metric "$port" perfwatch_sample_duration_seconds_total)
		t0=$(thread_ns "$pid" sampler) w0=$(thread_ns "$pid" watcher)
		sleep "$BIG_S"
		t1=$(thread_ns "$pid" sampler) w1=$(thread_ns "$pid" watcher)
		s1=$(metric "$port" perfwatch_samples_total) d1=$(metric "$port" perfwatch_sample_duration_seconds_total)
		n=$((s1 - s0))
		rec "big_${size}_samples" "$n"
		rec "big_${size}_sampler_cpu_us" "$(div $((t1 - t0)) $((n * 1000)))"
		rec "big_${size}_watcher_cpu_us" "$(div $((w1 - w0)) $((n * 1000)))"
		rec "big_${size}_wall_us" "$(awk -v a="$d0" -v b="$d1" -v n="$n" 'BEGIN { printf "%.1f", (b - a) * 1e6 / n }')"
		rec "big_${size}_missed" "$(metric "$port" perfwatch_missed_deadlines_total)"
		c0=$(thread_ns "$pid" http)
		r=$("$SCRAPE" -q -n "$BIG_SCRAPES" "127.0.0.1:$port") || log "F: some scrapes failed"
		rec "big_${size}_http_cpu_us_per_scrape" "$(div $(($(thread_ns "$pid" http) - c0)) $((BIG_SCRAPES * 1000)))"
		rec "big_${size}_p50_us" "$(field p50_us <<<"$r")"
		rec "big_${size}_p99_us" "$(field p99_us <<<"$r")"
		rec "big_${size}_bytes" "$(field bytes <<<"$r")"
		r=$("$SCRAPE" -q -n "$BIG_SCRAPES" --gzip "127.0.0.1:$port") || log "F: some scrapes failed"
		rec "big_${size}_gzip_p50_us" "$(field p50_us <<<"$r")"
		rec "big_${size}_gzip_bytes" "$(field bytes <<<"$r")"
		rec "big_${size}_series" "$(curl -s "http://127.0.0.1:$port/metrics" | grep -cv -e '^#' -e '^$')"
		rec "big_${size}_rss_kb" "$(status_kb "$pid" VmRSS)"
		rec "big_${size}_history_bytes" "$(metric "$port" perfwatch_history_bytes)"
		stop big
		# Per-CPU interrupt series too, as node_exporter always exports them: like for like.
		start_perfwatchd big --procfs "$tree/proc" --sysfs "$tree/sys" --interval 200ms --history 720s --interrupts-per-cpu
		r=$("$SCRAPE" -q -n "$(((BIG_SCRAPES + 3) / 4))" "127.0.0.1:${PORT_OF[big]}") || log "F: some scrapes failed"
		rec "big_${size}_percpu_p50_us" "$(field p50_us <<<"$r")"
		rec "big_${size}_percpu_bytes" "$(field bytes <<<"$r")"
		rec "big_${size}_percpu_series" "$(curl -s "http://127.0.0.1:${PORT_OF[big]}/metrics" | grep -cv -e '^#' -e '^$')"
		stop big
		start_node bignode --path.procfs="$tree/proc" --path.sysfs="$tree/sys"
		c0=$(proc_cpu_ns bignode)
		r=$("$SCRAPE" -q -n "$NODE_BIG_SCRAPES" --warmup 1 --timeout-ms 60000 "127.0.0.1:${PORT_OF[bignode]}") || log "F: some scrapes failed"
		rec "big_${size}_node_cpu_us_per_scrape" "$(div $(($(proc_cpu_ns bignode) - c0)) $((NODE_BIG_SCRAPES * 1000)))"
		rec "big_${size}_node_p50_us" "$(field p50_us <<<"$r")"
		rec "big_${size}_node_bytes" "$(field bytes <<<"$r")"
		rec "big_${size}_node_series" "$(curl -s -m 60 "http://127.0.0.1:${PORT_OF[bignode]}/metrics" | grep -cv -e '^#' -e '^$')"
		stop bignode
		rm -rf "$tree"
	done
}

main() {
	mkdir -p "$OUT"
	: >"$RAW"
	if [ "${NO_BUILD:-0}" != 1 ]; then
		# Incremental: the run measures the tree as it is now.
		log "building into $BUILD"
		[ -f "$BUILD/CMakeCache.txt" ] || cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
		cmake --build "$BUILD" -j"$(nproc)" --target perfwatchd floor scrape >/dev/null
	fi
	[ -x "$PWD_BIN" ] && [ -x "$FLOOR" ] && [ -x "$SCRAPE" ] || die "missing binaries in $BUILD"
	local tool
	for tool in curl wrk prometheus-node-exporter python3 gzip; do
		command -v "$tool" >/dev/null || die "$tool missing: run contrib/install-deps.sh bench"
	done
	[ "$NO_PROMETHEUS" = 1 ] || command -v prometheus >/dev/null || die "prometheus missing"
	if [ "$NO_COLLECTD" != 1 ] && command -v collectd >/dev/null && [ -e /usr/lib/collectd/write_prometheus.so ]; then
		HAVE_COLLECTD=1
	fi
	node_flags
	machine_info
	local t0=$SECONDS
	log "starting perfwatchd x2 (1 s, 1 h history), node_exporter$([ "$HAVE_COLLECTD" = 1 ] && echo ", collectd")"
	start_perfwatchd pw_idle
	REP=0
	rec pw_idle_rss_start_kb "$(status_kb "${PID_OF[pw_idle]}" VmRSS)"
	start_perfwatchd pw_prom
	start_node node
	[ "$HAVE_COLLECTD" = 1 ] && start_collectd
	skipped A || part_a
	skipped B || part_b
	skipped D || part_d
	part_c
	skipped F || part_f
	REP=0
	rec total_seconds $((SECONDS - t0))
	python3 "$ROOT/bench/report.py" "$RAW" "$OUT/machine.txt" | tee "$OUT/report.md"
	log "results in $OUT"
}

# One line, so that bash has read it whole before running: editing this file during a run is safe.
main "$@"; exit
