#!/usr/bin/env bash
# bench/store_size.sh — the history store's size on disk beside sysstat's sadc and atop's raw file,
# at 1 s, over the same DURATION seconds on this host. Not a test: ctest never runs it. See
# docs/performance.md ("History on disk: bytes per day, beside sadc and atop") for the figures.
#
# Recorders, all started together and stopped together (SIGTERM) after DURATION seconds:
#   this host:  perfwatchd --state-dir (its store: STATE/history/samples-*.pwh)
#               sadc -S XALL 1 FILE        (every activity sysstat has)
#               sadc -S DISK 1 FILE        (Debian's sa1 default, SADC_OPTIONS in /etc/sysstat/sysstat)
#               atop -w FILE 1             (ATOPACCT= : no process accounting is switched on)
#   16 CPUs:    tests/scenarios/pwscenario.py drives a live 16-CPU tree (incident 2's host: the
#               ondemand database server; idle, load, idle, each DURATION/3) with every rate and
#               share jittered per second (lognormal, seeded: σ 0.25 for CPU shares, 0.15 for
#               interrupt and softirq rates, 0.2 for vmstat and PSI, 0.1 for context switches; free
#               memory and page cache walk slowly; P-state residencies as they are). perfwatchd reads
#               it with --procfs/--sysfs; sadc and atop read it through bind mounts over /proc/stat,
#               interrupts, softirqs, vmstat, meminfo, loadavg, uptime, pressure/ and
#               /sys/devices/system/cpu in a private mount namespace (unshare -m; nothing outside it
#               sees them), so their per-CPU records are 16 CPUs' while network, disks and processes
#               stay this host's. Skipped (with a note) when unshare -m is not allowed.
#               A second perfwatchd reads the same scenario without jitter: the steady lower bound.
# Load on this host meanwhile (bounded, all in the temp dir): stress-ng --cpu 1 for 20% of the run,
# dd writes and reads of 256 MiB (direct I/O) for 15%, stress-ng --cpu 2 --vm 1 for 10%; idle
# otherwise (other users of the machine aside).
#
# Then it reads every file back: perfwatchd's blocks decoded (series in each block's dictionary x
# points = stored values; the figures count only samples-*.pwh after the clean stop, whose SIGTERM
# flushes the head into a last block), sadc's with sadf -j (numbers per sample = values), atop's by
# walking its raw records (system and process parts) and atop -P ALL (numbers per sample). From the
# real host's store it also estimates a real 16-CPU host: each full block re-deflated without the
# per-CPU columns, the difference is what 2 CPUs cost, scaled to 16.
#
# Environment: DURATION (s, default 600), BUILD (default ./build), LOAD (1: generate load, default),
# FIXTURE16 (1: the 16-CPU part, default), KEEP (1: keep the temp dir), OUT (a file for the report).
# Runs DURATION + 20 to 40 s (startup, the read-back); under 300 s there is no full block of 300
# points, and the dictionary of the one block weighs on the figures. Needs sysstat, atop,
# stress-ng, curl, python3 (apt-get install sysstat atop stress-ng; none of their services is used).
# Every process started here is stopped by the EXIT trap (by its process group), and the temp dir
# removed. Only 127.0.0.1 is used.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
DURATION=${DURATION:-600}
LOAD=${LOAD:-1}
FIXTURE16=${FIXTURE16:-1}
KEEP=${KEEP:-0}
OUT=${OUT:-}
PW=$BUILD/daemon/perfwatchd
SCEN=$ROOT/tests/scenarios
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pw-store-size.XXXXXX")
PIDS=()

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

cleanup() {
	local pid
	trap - EXIT INT TERM HUP
	# Each was started with setsid: its process group is its pid (stress-ng's workers, dd, sleep).
	for pid in "${PIDS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	if [ "$KEEP" = 1 ]; then log "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# spawn NAME CMD...: start CMD in a session (and process group) of its own, output in WORK/NAME.log.
spawn() {
	local name=$1
	shift
	setsid "$@" >"$WORK/$name.log" 2>&1 </dev/null &
	PIDS+=($!)
	eval "PID_${name//-/_}=$!"
}
pid_of() { eval "echo \$PID_${1//-/_}"; }

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_for SECONDS WHAT NAME CMD...: until CMD succeeds, while the process spawned as NAME runs.
wait_for() {
	local t=$1 what=$2 name=$3 pid
	pid=$(pid_of "$3")
	shift 3
	for _ in $(seq $((t * 10))); do
		"$@" && return 0
		kill -0 "$pid" 2>/dev/null || die "$what exited: $(tail -c 300 "$WORK/$name.log" 2>/dev/null)"
		sleep 0.1
	done
	die "$what did not come up (logs in $WORK; KEEP=1 keeps them)"
}
size_over() { [ -f "$1" ] && [ "$(stat -c %s "$1")" -gt "$2" ]; }
http_ok() { [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$1")" = 200 ]; }

# ---- what is needed ----
SADC=
for f in /usr/lib/sysstat/sadc /usr/lib64/sa/sadc /usr/lib/sa/sadc; do [ -x "$f" ] && SADC=$f && break; done
[ -n "$SADC" ] || die "no sadc (apt-get install sysstat)"
command -v sadf >/dev/null || die "no sadf (apt-get install sysstat)"
command -v atop >/dev/null || die "no atop (apt-get install atop)"
command -v curl >/dev/null || die "no curl"
[ "$LOAD" = 1 ] && ! command -v stress-ng >/dev/null && die "no stress-ng (apt-get install stress-ng), or LOAD=0"
[ -x "$PW" ] || die "no $PW (cmake --build build)"
[ "$DURATION" -ge 60 ] 2>/dev/null || die "DURATION must be at least 60 (s)"

OVERLAY=0
if [ "$FIXTURE16" = 1 ] && unshare --mount --propagation private true 2>/dev/null; then OVERLAY=1; fi

mkdir -p "$WORK"/{real,f16,steady}/state
log "work dir $WORK; $DURATION s; $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- the 16-CPU trees ----
LEN=$((DURATION + 180)) # the timeline outlasts the run: frozen counters would read as idle
if [ "$FIXTURE16" = 1 ]; then
	third=$((LEN / 3))
	params=(--param "baseline=$third" --param "incident=$third" --param "recovery=$((LEN - 2 * third))")
	python3 "$SCEN/pwscenario.py" incident2_ondemand:ondemand "${params[@]}" --dump >"$WORK/f16/spec.json"
	python3 - "$WORK/f16/spec.json" "$WORK/f16/jitter.json" <<'EOF'
# Every phase becomes 1 s phases, each with its rates and shares jittered (seeded: runs agree).
import copy, json, math, random, sys
spec = json.load(open(sys.argv[1]))
rng = random.Random(16)

def jit(v, s):
    return v * math.exp(rng.gauss(0.0, s) - s * s / 2)

def walk(o, s):
    if isinstance(o, bool):
        return o
    if isinstance(o, (int, float)):
        return jit(o, s)
    if isinstance(o, list):
        return [walk(x, s) for x in o]
    if isinstance(o, dict):
        return {k: walk(v, s) for k, v in o.items()}
    return o

phases, mem = [], {}
for ph in spec["phases"]:
    for k in range(int(round(ph["duration"]))):
        p = copy.deepcopy(ph)
        p["name"] = "%s.%d" % (ph["name"], k)
        p["duration"] = 1
        for key in ("alerts", "expect", "evidence", "events"):
            p.pop(key, None)
        for cpu, modes in p.get("cpu", {}).items():
            for m in list(modes):
                if m != "idle":
                    modes[m] = jit(modes[m], 0.25)
            busy = sum(v for m, v in modes.items() if m != "idle")
            if busy > 98:
                for m in modes:
                    modes[m] *= 98 / busy
        for key in ("irqs", "softirqs"):
            if key in p:
                p[key] = walk(p[key], 0.15)
        for key in ("vmstat", "psi"):
            if key in p:
                p[key] = walk(p[key], 0.2)
        if "ctxt" in p:
            p["ctxt"] = jit(p["ctxt"], 0.1)
        if "procs_running" in p:
            p["procs_running"] = max(0, round(jit(p["procs_running"] + 0.5, 0.5)))
        for key, v in p.get("meminfo", {}).items():  # a slow random walk
            if isinstance(v, (int, float)) and key in ("MemFree", "Cached"):
                mem[key] = mem.get(key, v) * math.exp(rng.gauss(0.0, 0.002))
                p["meminfo"][key] = round(mem[key])
        phases.append(p)
spec["phases"] = phases
spec["name"] = spec.get("name", "incident2") + "-jitter"
json.dump(spec, open(sys.argv[2], "w"))
EOF
	spawn drv16 python3 "$SCEN/pwscenario.py" "$WORK/f16/jitter.json" "$WORK/f16/tree" --tick 0.05
	spawn drvsteady python3 "$SCEN/pwscenario.py" incident2_ondemand:ondemand "$WORK/steady/tree" --tick 0.05 "${params[@]}"
	wait_for 60 "the 16-CPU tree" drv16 grep -qs '"phase"' "$WORK/drv16.log"
	wait_for 60 "the steady 16-CPU tree" drvsteady grep -qs '"phase"' "$WORK/drvsteady.log"
fi

# WORK/overlay16 CMD...: exec CMD in a private mount namespace that sees the 16-CPU tree's files
# (same pid all the way: unshare and sh exec).
if [ "$OVERLAY" = 1 ]; then
	t=$WORK/f16/tree binds=""
	for f in stat interrupts softirqs vmstat meminfo loadavg uptime pressure; do
		binds+="[ -e $t/proc/$f ] && mount --bind $t/proc/$f /proc/$f; "
	done
	binds+="mount --bind $t/sys/devices/system/cpu /sys/devices/system/cpu || exit 1; "
	printf '#!/bin/sh\nexec unshare --mount --propagation private sh -c '"'"'%sexec "$@"'"'"' sh "$@"\n' "$binds" >"$WORK/overlay16"
	chmod +x "$WORK/overlay16"
fi

# ---- the recorders ----
PORT=$(free_port)
spawn pw-real "$PW" --config /dev/null --listen "127.0.0.1:$PORT" --interval 1s --state-dir "$WORK/real/state"
spawn sadc-xall-real "$SADC" -S XALL 1 "$WORK/real/sa-xall"
spawn sadc-disk-real "$SADC" -S DISK 1 "$WORK/real/sa-disk"
spawn atop-real env ATOPACCT= atop -w "$WORK/real/atop.raw" 1
if [ "$FIXTURE16" = 1 ]; then
	PORT16=$(free_port)
	spawn pw-f16 "$PW" --config /dev/null --listen "127.0.0.1:$PORT16" --interval 1s \
		--procfs "$WORK/f16/tree/proc" --sysfs "$WORK/f16/tree/sys" --state-dir "$WORK/f16/state"
	PORTST=$(free_port)
	spawn pw-steady "$PW" --config /dev/null --listen "127.0.0.1:$PORTST" --interval 1s \
		--procfs "$WORK/steady/tree/proc" --sysfs "$WORK/steady/tree/sys" --state-dir "$WORK/steady/state"
	if [ "$OVERLAY" = 1 ]; then
		spawn sadc-xall-f16 "$WORK/overlay16" "$SADC" -S XALL 1 "$WORK/f16/sa-xall"
		spawn sadc-disk-f16 "$WORK/overlay16" "$SADC" -S DISK 1 "$WORK/f16/sa-disk"
		spawn atop-f16 "$WORK/overlay16" env ATOPACCT= atop -w "$WORK/f16/atop.raw" 1
	fi
fi
wait_for 30 "perfwatchd" pw-real http_ok "http://127.0.0.1:$PORT/healthz"
wait_for 30 "sadc -S XALL" sadc-xall-real size_over "$WORK/real/sa-xall" 0
wait_for 30 "sadc -S DISK" sadc-disk-real size_over "$WORK/real/sa-disk" 0
wait_for 30 "atop -w" atop-real size_over "$WORK/real/atop.raw" 480
if [ "$FIXTURE16" = 1 ]; then
	wait_for 30 "perfwatchd (16 CPUs)" pw-f16 http_ok "http://127.0.0.1:$PORT16/healthz"
	wait_for 30 "perfwatchd (16 CPUs, steady)" pw-steady http_ok "http://127.0.0.1:$PORTST/healthz"
	if [ "$OVERLAY" = 1 ]; then
		wait_for 30 "sadc (16 CPUs)" sadc-xall-f16 size_over "$WORK/f16/sa-xall" 0
		wait_for 30 "sadc -S DISK (16 CPUs)" sadc-disk-f16 size_over "$WORK/f16/sa-disk" 0
		wait_for 30 "atop (16 CPUs)" atop-f16 size_over "$WORK/f16/atop.raw" 480
	fi
fi
START=$(date +%s)
log "all recorders running; $DURATION s from $(date -u +%T) UTC"

# ---- load on this host, bounded ----
if [ "$LOAD" = 1 ]; then
	a=$((DURATION * 15 / 100)) b=$((DURATION * 20 / 100)) c=$((DURATION * 45 / 100)) d=$((DURATION * 15 / 100))
	e=$((DURATION * 70 / 100)) f=$((DURATION * 10 / 100))
	spawn load bash -c "
		sleep $a; echo \"\$(date +%T) cpu: stress-ng --cpu 1 for ${b}s\"
		timeout $((b + 10)) stress-ng --cpu 1 --timeout ${b}s --quiet
		sleep \$(( $c - $a - $b )); echo \"\$(date +%T) disk: dd 256 MiB write+read loop for ${d}s\"
		end=\$(( \$(date +%s) + $d ))
		while [ \$(date +%s) -lt \$end ]; do
			timeout 60 dd if=/dev/zero of='$WORK/dd.img' bs=1M count=256 oflag=direct status=none || true
			timeout 60 dd if='$WORK/dd.img' of=/dev/null bs=1M iflag=direct status=none || true
		done
		rm -f '$WORK/dd.img'
		sleep \$(( $e - $c - $d )); echo \"\$(date +%T) mixed: stress-ng --cpu 2 --vm 1 for ${f}s\"
		timeout $((f + 10)) stress-ng --cpu 2 --vm 1 --vm-bytes 256M --timeout ${f}s --quiet
		echo \"\$(date +%T) load done\""
fi

# Sizes every 10 s (the append-only files' growth), and the daemons' view of their series at the end.
while :; do
	now=$(($(date +%s) - START))
	[ "$now" -ge "$DURATION" ] && break
	for f in "$WORK"/real/{sa-xall,sa-disk,atop.raw} "$WORK"/f16/{sa-xall,sa-disk,atop.raw}; do
		if [ -f "$f" ]; then printf '%s\t%s\t%s\n' "$now" "${f#"$WORK"/}" "$(stat -c %s "$f")"; fi
	done >>"$WORK/sizes.tsv"
	for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null || [ "$p" = "${PID_load:-}" ] ||
		[ "$p" = "${PID_drv16:-}" ] || [ "$p" = "${PID_drvsteady:-}" ] || die "a recorder ($p) exited early (logs in $WORK)"; done
	for _ in $(seq $((DURATION - now < 10 ? DURATION - now : 10))); do sleep 1; done # traps wait for a foreground sleep
done
curl -s -m 10 "http://127.0.0.1:$PORT/history?since=-1m" >"$WORK/real/history.json" || true
curl -s -m 10 "http://127.0.0.1:$PORT/metrics" >"$WORK/real/metrics.txt" || true
if [ "$FIXTURE16" = 1 ]; then
	curl -s -m 10 "http://127.0.0.1:$PORT16/history?since=-1m" >"$WORK/f16/history.json" || true
	curl -s -m 10 "http://127.0.0.1:$PORTST/history?since=-1m" >"$WORK/steady/history.json" || true
fi
LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- stop everything together; perfwatchd flushes its head into a block on SIGTERM ----
recorders=(pw-real sadc-xall-real sadc-disk-real atop-real)
[ "$FIXTURE16" = 1 ] && recorders+=(pw-f16 pw-steady)
[ "$OVERLAY" = 1 ] && recorders+=(sadc-xall-f16 sadc-disk-f16 atop-f16)
for r in "${recorders[@]}"; do kill -TERM "$(pid_of "$r")" 2>/dev/null || true; done
for r in "${recorders[@]}"; do
	p=$(pid_of "$r")
	for _ in $(seq 300); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$p" 2>/dev/null && die "$r did not stop on SIGTERM within 30 s"
	wait "$p" 2>/dev/null || true
done
for r in pw-real pw-f16 pw-steady; do
	[ -f "$WORK/$r.log" ] && { grep -h 'points written' "$WORK/$r.log" | sed "s/^/$r: /" >&2 || log "$r: no 'points written' line"; }
done
log "stopped at $(date -u +%T) UTC; read-back"

# ---- read-back and the table ----
cat >"$WORK/analyze.py" <<'EOF'
import glob, json, os, re, struct, subprocess, sys, zlib

WORK, DURATION, OVERLAY, FIX16, LOADAVG = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4] == "1", sys.argv[5]
DAY = 86400


def varint(b, o):
    v = s = 0
    while True:
        c = b[o]
        o += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, o


def string(b, o):
    n, o = varint(b, o)
    return b[o:o + n].decode(), o + n


def pwh_blocks(path):
    """The BLOCK frames of a store file (lib/store_codec.h): frame bytes, points, dictionary, raw."""
    d = open(path, "rb").read()
    assert d[:8] == b"PWHIST\r\n", path
    out, off = [], 32
    while off + 16 <= len(d):
        plen, ftype = struct.unpack_from("<II", d, off)
        payload = d[off + 16:off + 16 + plen]
        assert ftype == 1, "%s: frame type %d in a data file" % (path, ftype)
        rawlen = struct.unpack_from("<I", payload)[0]
        raw = zlib.decompress(payload[4:])
        assert len(raw) == rawlen
        n, o = varint(raw, 0)
        series = []
        for _ in range(n):
            name, o = string(raw, o)
            label, o = string(raw, o)
            _unit, o = string(raw, o)
            o += 8
            series.append((name, label))
        dict_end = o
        npts, o = varint(raw, o)
        out.append({"bytes": 16 + plen, "points": npts, "series": series, "raw": raw, "dict_end": dict_end})
        off += 16 + plen
    assert off == len(d), "%s: %d trailing bytes" % (path, len(d) - off)
    return out


def split_columns(blk):
    """The raw payload in parts: dictionary entries, times+flags, one column per series."""
    raw, series = blk["raw"], blk["series"]
    o = varint(raw, 0)[1]
    entries = []
    for _ in series:
        s = o
        for _k in range(3):
            o = string(raw, o)[1]
        o += 8
        entries.append(raw[s:o])
    s = o
    npts, o = varint(raw, o)
    for _ in range(2 * npts):
        o = varint(raw, o)[1]
    head = raw[s:o]
    cols = []
    for _ in series:
        s = o
        for _i in range(npts):
            o = varint(raw, o)[1]
        cols.append(raw[s:o])
    assert o == len(raw)
    return entries, head, cols


def enc_varint(v):
    b = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        b.append(c | (0x80 if v else 0))
        if not v:
            return bytes(b)


def deflated(entries, head, cols):
    raw = enc_varint(len(entries)) + b"".join(entries) + head + b"".join(cols)
    return 16 + 4 + len(zlib.compress(raw, 6))


def store(state):
    files = sorted(glob.glob(os.path.join(state, "history", "samples-*.pwh")))
    blocks = [b for f in files for b in pwh_blocks(f)]
    total = sum(os.path.getsize(f) for f in files)
    points = sum(b["points"] for b in blocks)
    values = sum(b["points"] * len(b["series"]) for b in blocks)
    cap = max((b["points"] for b in blocks), default=0)
    full = [b for b in blocks if b["points"] == cap]
    fb = sum(b["bytes"] for b in full)
    fp = sum(b["points"] for b in full)
    fv = sum(b["points"] * len(b["series"]) for b in full)
    unknown = dict_cost = 0
    for b in full:
        entries, head, cols = split_columns(b)
        dict_cost += deflated(entries, head, [])
        for c in cols:
            o = 0
            while o < len(c):
                t, o = varint(c, o)
                unknown += t == 0
    # steady state: full blocks, plus a 32-byte file header an hour
    per_sample = fb / fp + 32 / 3600 if fp else float("nan")
    return {"files": len(files), "blocks": len(blocks), "full": len(full), "cap": cap, "total": total,
            "points": points, "values": values, "series": sorted({len(b["series"]) for b in blocks}),
            "whole_per_sample": total / points, "whole_per_value": total / values,
            "per_sample": per_sample, "per_value": per_sample * fp / fv, "values_per_sample": fv / fp,
            "blocks_list": blocks, "full_list": full,
            "unknown": unknown / fv if fv else 0, "per_known_value": (fb / fp + 32 / 3600) * fp / (fv - unknown) if fv > unknown else 0,
            "dict_per_sample": dict_cost / fp if fp else 0,
            "last": blocks[-1] if blocks and blocks[-1]["points"] != cap else None}


def percpu_estimate(st, ncpu_to=16):
    """Re-deflate each full block without its per-CPU columns: the difference is what its CPUs cost."""
    tot_with = tot_without = tot_real = pts = 0
    per_cpu_series = host_series = ncpu = 0
    for b in st["full_list"]:
        entries, head, cols = split_columns(b)
        keep = [i for i, (name, _l) in enumerate(b["series"]) if not name.startswith("percpu_")]
        ncpu = len({l for (name, l) in b["series"] if name.startswith("percpu_")})
        per_cpu_series = (len(b["series"]) - len(keep)) // max(ncpu, 1)
        host_series = len(keep)
        w = deflated(entries, head, cols)
        wo = deflated([entries[i] for i in keep], head, [cols[i] for i in keep])
        tot_with += w
        tot_without += wo
        tot_real += b["bytes"]
        pts += b["points"]
    if not pts:
        return None
    cpu_cost = (tot_with - tot_without) / ncpu / pts  # bytes per sample per CPU
    host_cost = tot_without / pts + 32 / 3600
    est = host_cost + ncpu_to * cpu_cost
    vals = host_series + ncpu_to * per_cpu_series
    return {"check": (tot_with, tot_real), "ncpu": ncpu, "cpu_cost": cpu_cost, "host_cost": host_cost,
            "per_sample": est, "values_per_sample": vals, "per_value": est / vals,
            "cpu_per_value": cpu_cost / per_cpu_series, "host_per_value": host_cost / host_series}


def count_numbers(o):
    if isinstance(o, bool):
        return 0
    if isinstance(o, (int, float)):
        return 1
    if isinstance(o, dict):
        return sum(count_numbers(v) for v in o.values())
    if isinstance(o, list):
        return sum(count_numbers(v) for v in o)
    return 0


def sadc(path):
    if not os.path.exists(path):
        return None
    j = json.loads(subprocess.run(["sadf", "-j", path, "--", "-A"], capture_output=True, text=True, check=True).stdout)
    h = j["sysstat"]["hosts"][0]
    stats = h["statistics"]
    vals = [sum(count_numbers(v) for k, v in s.items() if k != "timestamp") for s in stats]
    records = len(stats) + 1  # sadf prints the intervals between records
    size = os.path.getsize(path)
    return {"size": size, "samples": records, "values_per_sample": sum(vals) / len(vals),
            "per_sample": size / records, "cpus": h.get("number-of-cpus")}


def atop(path):
    if not os.path.exists(path):
        return None
    d = open(path, "rb").read()
    magic, _av, _f1, _f2, headlen, reclen = struct.unpack_from("<IHHHHH", d, 0)
    assert magic == 0xFEEDBEEF
    off, n, sysb, procb = headlen, 0, 0, 0
    while off + reclen <= len(d):
        s, p = struct.unpack_from("<II", d, off + 16)
        off += reclen + s + p
        n += 1
        sysb += s
        procb += p
    assert off == len(d), "atop raw file: walk ended at %d of %d" % (off, len(d))
    out = subprocess.run(["atop", "-r", path, "-P", "ALL"], capture_output=True, text=True, env=dict(os.environ, ATOPACCT="")).stdout
    nums = sysnums = samples = cpus = 0
    num = re.compile(r"^-?\d+(\.\d+)?$")
    for line in out.splitlines():
        if line.startswith("SEP"):
            samples += 1
            continue
        if line.startswith("RESET") or not line:
            continue
        line = re.sub(r"\([^)]*\)", "", line)  # command names
        toks = line.split()
        k = sum(1 for t in toks[6:] if num.match(t))
        nums += k
        if not toks[0].startswith("PR"):  # PRG PRC PRM PRD PRN PRE: per process
            sysnums += k
        if toks[0] == "cpu" and samples == 1:
            cpus += 1
    return {"size": len(d), "samples": n, "per_sample": len(d) / n, "sys": sysb / n, "proc": procb / n,
            "rec": reclen, "values_per_sample": nums / max(samples, 1),
            "sys_values_per_sample": sysnums / max(samples, 1), "cpus": cpus}


def history_series(path):
    try:
        return len(json.load(open(path))["signals"])
    except Exception:
        return None


rows = []


def row(host, what, samples, vps, bps, note=""):
    bpv = bps / vps if vps else float("nan")
    rows.append((host, what, samples, vps, bps, bpv, bps * DAY / 2 ** 20, note))


real = store(os.path.join(WORK, "real", "state"))
est = percpu_estimate(real)
sx, sd, at = (sadc(os.path.join(WORK, "real", "sa-xall")), sadc(os.path.join(WORK, "real", "sa-disk")),
              atop(os.path.join(WORK, "real", "atop.raw")))
ncpu = os.cpu_count()
h = "%d CPUs (this VM)" % ncpu
row(h, "perfwatchd store", real["points"], real["values_per_sample"], real["per_sample"],
    "deflated blocks of %d points" % real["cap"])
row(h, "sadc -S XALL 1", sx["samples"], sx["values_per_sample"], sx["per_sample"], "uncompressed")
row(h, "sadc -S DISK 1 (Debian's sa1)", sd["samples"], sd["values_per_sample"], sd["per_sample"], "uncompressed")
row(h, "atop -w FILE 1", at["samples"], at["values_per_sample"], at["per_sample"],
    "each sample deflated: system %.0f B + processes %.0f B + %d B header" % (at["sys"], at["proc"], at["rec"]))
row(h, "atop, its system part alone", at["samples"], at["sys_values_per_sample"], at["sys"], "without processes and record headers")
f16 = steady = None
if FIX16:
    f16 = store(os.path.join(WORK, "f16", "state"))
    steady = store(os.path.join(WORK, "steady", "state"))
    h16 = "16 CPUs (live scenario tree, jittered)"
    row(h16, "perfwatchd store", f16["points"], f16["values_per_sample"], f16["per_sample"], "measured")
    if OVERLAY:
        sx16, sd16, at16 = (sadc(os.path.join(WORK, "f16", "sa-xall")), sadc(os.path.join(WORK, "f16", "sa-disk")),
                            atop(os.path.join(WORK, "f16", "atop.raw")))
        row(h16, "sadc -S XALL 1", sx16["samples"], sx16["values_per_sample"], sx16["per_sample"],
            "measured on the tree (%s CPUs in its header)" % sx16["cpus"])
        row(h16, "sadc -S DISK 1 (Debian's sa1)", sd16["samples"], sd16["values_per_sample"], sd16["per_sample"], "measured on the tree")
        row(h16, "atop -w FILE 1", at16["samples"], at16["values_per_sample"], at16["per_sample"],
            "measured (%d CPUs seen); system %.0f B + processes %.0f B: this host's processes" % (at16["cpus"], at16["sys"], at16["proc"]))
        row(h16, "atop, its system part alone", at16["samples"], at16["sys_values_per_sample"], at16["sys"], "without processes and record headers")
    row("16 CPUs (steady scenario)", "perfwatchd store", steady["points"], steady["values_per_sample"], steady["per_sample"],
        "no jitter: a lower bound")
if est:
    row("16 CPUs (estimate)", "perfwatchd store", 0, est["values_per_sample"], est["per_sample"],
        "this host's blocks: host columns + 16 x one CPU's columns")

print()
print("| host | recorder | samples | values / sample | bytes / sample | bytes / value | MiB / day | |")
print("|---|---|---|---|---|---|---|---|")
for host, what, n, vps, bps, bpv, mib, note in rows:
    print("| %s | %s | %s | %.0f | %s | **%.2f** | %.1f | %s |" % (host, what, n if n else "—", vps, "{:,.0f}".format(bps) if bps >= 100 else "%.1f" % bps, bpv, mib, note))
print()
print("load average at the end: %s; duration %d s" % (LOADAVG, DURATION))
for name, st in (("this host", real), ("16 CPUs jittered", f16), ("16 CPUs steady", steady)):
    if st:
        print("perfwatchd, %s: %d files, %d blocks (%d full of %d points), %d points, series per block %s, "
              "all files %d B = %.1f B/sample, %.3f B/value (last, partial block included); full blocks %.1f B/sample, %.3f B/value"
              % (name, st["files"], st["blocks"], st["full"], st["cap"], st["points"], st["series"], st["total"],
                 st["whole_per_sample"], st["whole_per_value"], st["per_sample"], st["per_value"]))
        print("  of which %.1f%% of the values unknown (token 0: no such file or CPU feature here), %.3f B per known value; "
              "dictionary, times and flags %.1f B/sample; %s"
              % (100 * st["unknown"], st["per_known_value"], st["dict_per_sample"],
                 "the last block (the stop): %d points in %d B" % (st["last"]["points"], st["last"]["bytes"]) if st["last"] else "no partial block"))
        print("  per block, B/value: %s" % ", ".join("%.3f (%d points)" % (b["bytes"] / b["points"] / len(b["series"]), b["points"]) for b in st["blocks_list"]))
for name, path in (("this host", "real"), ("16 CPUs jittered", "f16"), ("16 CPUs steady", "steady")):
    n = history_series(os.path.join(WORK, path, "history.json"))
    if n is not None:
        print("  /history?since=-1m, %s: %d series" % (name, n))
if est:
    print("estimate for 16 CPUs from this host's %d full blocks (re-deflated %d B, files hold %d B): host columns %.1f B/sample "
          "(%.3f B/value), one CPU's 7 columns %.1f B/sample (%.3f B/value) -> %.0f B/sample, %.3f B/value"
          % (len(real["full_list"]), est["check"][0], est["check"][1], est["host_cost"], est["host_per_value"],
             est["cpu_cost"], est["cpu_per_value"], est["per_sample"], est["per_value"]))
print("atop, this host: %.0f B/sample system, %.0f B/sample processes (%d-byte record headers)" % (at["sys"], at["proc"], at["rec"]))
EOF
python3 "$WORK/analyze.py" "$WORK" "$DURATION" "$OVERLAY" "$FIXTURE16" "$LOADAVG" | tee "$WORK/report.md"
[ "$FIXTURE16" = 1 ] && [ "$OVERLAY" = 0 ] && echo "(sadc and atop on 16 CPUs skipped: unshare -m not allowed here)"
[ -f "$WORK/load.log" ] && sed 's/^/load: /' "$WORK/load.log"
grep -h 'file="history"' "$WORK/real/metrics.txt" 2>/dev/null | grep -v '^#' | sed 's/^/perfwatchd self-metrics: /' || true
[ -n "$OUT" ] && cp "$WORK/report.md" "$OUT" && log "report in $OUT"
exit 0
