#!/usr/bin/env python3
"""pwscenario.py — makes a perfwatch fixture tree *live*: the counters of a described host advance
with wall-clock time, phase by phase, in the kernel's own file formats.

    pwscenario.py SPEC TREE_DIR [--tick 0.05] [--speed 1.0] [--init-only] [--hold]
                  [--variant NAME] [--param NAME=VALUE ...] [--list] [--dump]

SPEC is a Python module or a JSON file (a path, or a name under tests/scenarios/specs/), optionally
followed by ":VARIANT". The driver writes TREE_DIR/proc/{stat,interrupts,softirqs,vmstat,meminfo,
loadavg,uptime,pressure/{cpu,memory,io,irq}} and TREE_DIR/sys/devices/system/cpu/{online,offline,
possible,present,kernel_max,isolated,cpuN/online,cpuN/cpufreq -> ../cpufreq/policyN,cpufreq/...},
then every --tick seconds integrates every counter as rate x elapsed time on the monotonic clock (so
counters agree with time whatever the scheduling jitter) and rewrites each changed file in place —
same inode, one pwrite at offset 0, then ftruncate — until the timeline ends. Rates and levels are
per real second; --speed N only divides the phase and event durations by N.

stdout carries one JSON line per phase change, {"phase": NAME, "t": SECONDS, "wall": EPOCH}, where t
is the exact onset on the monotonic clock counted from the start (counters switch rates exactly
there) and wall the same instant in epoch seconds; one line per event, {"event": TYPE, "t", "wall",
...}; and a last line {"event": "end", "t", "wall", "max_stale": SECONDS}, max_stale being the
longest the files ever lagged the timeline (one tick plus scheduling delay plus write time). Each
line is printed after the files that show it were written. With --hold the driver writes the t=0 tree, prints {"event": "ready", "pid": PID} and
starts the clock only on SIGUSR1 (so a reader can start on a tree that is not moving yet). Exit
status 0 at the end, 2 for a bad spec or usage.

The spec format, in short (README.md in this directory has the whole of it):

  {"name": str,
   "host": {"ncpu": int, "user_hz": 100, "page_kb": 4, "uptime": seconds at t=0,
            "irqs": [{"irq": 25, "chip": "PCI-MSI", "hwirq": 524288, "handler": "edge",
                      "device": "eth0", "cpu": 0 | "cpus": [0, 1] | {"0": weight}}],
            "meminfo": {"MemTotal": kB, "MemFree": kB, "SwapTotal": kB, ...},
            "cpufreq": None | {"driver": "acpi-cpufreq", "governor": "ondemand",
                               "states_khz": [2000000, ..., 1200000], "stats": True, ...},
            "pressure": {"cpu": True, "memory": True, "io": True, "irq": True | "empty" | False},
            "threads": int},
   "phases": [{"name": str, "duration": seconds,
               "cpu": {"*" | "N": {"user": pct, "system": pct, ... idle = the rest}},
               "irqs": {"eth0" | "25" | "LOC": rate | {"N": rate}},   # numbered: line total
               "softirqs": {"NET_RX": per-CPU rate | {"N": rate, "*": rate}},
               "ctxt": rate, "forks": rate, "procs_running": n, "procs_blocked": n,
               "vmstat": {"pswpout": rate, ...}, "meminfo": {"MemFree": kB, ...},
               "psi": {"memory": {"some": pct, "full": pct}, ...},
               "freq": {"*" | "N": {khz: fraction} | avg_khz | "max" | "min"},
               "governor": str, "loadavg": [l1, l5, l15],
               "events": [{"at": seconds into the phase, "type": ..., ...}]}]}

Any number in a phase may be a ramp [from, to] (linear over the phase). A phase inherits what it
does not say from the previous one (a ramp is inherited as its end value); "cpu" and "freq" are
replaced whole when given, the other maps key by key. Event types: cpu_offline {cpu},
cpu_online {cpu, reset: false | "idle" | "all"}, remove {path}, restore {path},
add_irq {line}, remove_irq {name}, reset {groups}, governor {governor, cpus},
spike {duration, ...phase keys overriding the phase while it lasts}.
"""
import argparse
import copy
import importlib.util
import json
import math
import os
import random
import signal
import sys
import time

sys.dont_write_bytecode = True  # specs are imported from the source tree

ACCOUNTED = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
MODES = ACCOUNTED + ("guest", "guest_nice")
SOFTIRQS = ("HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU")
PSI_RESOURCES = ("cpu", "memory", "io", "irq")
PSI_WINDOWS = (10.0, 60.0, 300.0)
LOAD_WINDOWS = (60.0, 300.0, 900.0)
PID_MAX = 4194304

# x86 arch_show_interrupts(), in the order and with the texts of the 6.x captures. ERR and MIS are
# global counters printed with one column.
ARCH_LINES = (
    ("NMI", "Non-maskable interrupts"),
    ("LOC", "Local timer interrupts"),
    ("SPU", "Spurious interrupts"),
    ("PMI", "Performance monitoring interrupts"),
    ("IWI", "IRQ work interrupts"),
    ("RTR", "APIC ICR read retries"),
    ("RES", "Rescheduling interrupts"),
    ("CAL", "Function call interrupts"),
    ("TLB", "TLB shootdowns"),
    ("TRM", "Thermal event interrupts"),
    ("HYP", "Hypervisor callback interrupts"),
    ("ERR", None),
    ("MIS", None),
    ("PIN", "Posted-interrupt notification event"),
    ("NPI", "Nested posted-interrupt event"),
    ("PIW", "Posted-interrupt wakeup event"),
)
ARCH_NAMES = tuple(name for name, _ in ARCH_LINES)
GLOBAL_ARCH = ("ERR", "MIS")

# /proc/vmstat keys of a 6.18 kernel (tests/fixtures/kernels/*/proc/vmstat), in the kernel's order.
VMSTAT_KEYS = """
nr_free_pages nr_free_pages_blocks nr_zone_inactive_anon nr_zone_active_anon nr_zone_inactive_file
nr_zone_active_file nr_zone_unevictable nr_zone_write_pending nr_mlock nr_zspages nr_free_cma numa_hit
numa_miss numa_foreign numa_interleave numa_local numa_other nr_inactive_anon nr_active_anon
nr_inactive_file nr_active_file nr_unevictable nr_slab_reclaimable nr_slab_unreclaimable
nr_isolated_anon nr_isolated_file workingset_nodes workingset_refault_anon workingset_refault_file
workingset_activate_anon workingset_activate_file workingset_restore_anon workingset_restore_file
workingset_nodereclaim nr_anon_pages nr_mapped nr_file_pages nr_dirty nr_writeback nr_shmem
nr_shmem_hugepages nr_shmem_pmdmapped nr_file_hugepages nr_file_pmdmapped
nr_anon_transparent_hugepages nr_vmscan_write nr_vmscan_immediate_reclaim nr_dirtied nr_written
nr_throttled_written nr_kernel_misc_reclaimable nr_foll_pin_acquired nr_foll_pin_released
nr_kernel_stack nr_page_table_pages nr_sec_page_table_pages nr_iommu_pages nr_swapcached
pgpromote_success pgpromote_candidate pgpromote_candidate_nrl pgdemote_kswapd pgdemote_direct
pgdemote_khugepaged pgdemote_proactive nr_hugetlb nr_balloon_pages nr_kernel_file_pages
nr_dirty_threshold nr_dirty_background_threshold nr_memmap_pages nr_memmap_boot_pages pgpgin pgpgout
pswpin pswpout pgalloc_dma pgalloc_dma32 pgalloc_normal pgalloc_movable pgalloc_device allocstall_dma
allocstall_dma32 allocstall_normal allocstall_movable allocstall_device pgskip_dma pgskip_dma32
pgskip_normal pgskip_movable pgskip_device pgfree pgactivate pgdeactivate pglazyfree pgfault
pgmajfault pglazyfreed pgrefill pgreuse pgsteal_kswapd pgsteal_direct pgsteal_khugepaged
pgsteal_proactive pgscan_kswapd pgscan_direct pgscan_khugepaged pgscan_proactive
pgscan_direct_throttle pgscan_anon pgscan_file pgsteal_anon pgsteal_file zone_reclaim_success
zone_reclaim_failed pginodesteal slabs_scanned kswapd_inodesteal kswapd_low_wmark_hit_quickly
kswapd_high_wmark_hit_quickly pageoutrun pgrotated drop_pagecache drop_slab oom_kill numa_pte_updates
numa_huge_pte_updates numa_hint_faults numa_hint_faults_local numa_pages_migrated pgmigrate_success
pgmigrate_fail thp_migration_success thp_migration_fail thp_migration_split compact_migrate_scanned
compact_free_scanned compact_isolated compact_stall compact_fail compact_success compact_daemon_wake
compact_daemon_migrate_scanned compact_daemon_free_scanned htlb_buddy_alloc_success
htlb_buddy_alloc_fail unevictable_pgs_culled unevictable_pgs_scanned unevictable_pgs_rescued
unevictable_pgs_mlocked unevictable_pgs_munlocked unevictable_pgs_cleared unevictable_pgs_stranded
thp_fault_alloc thp_fault_fallback thp_fault_fallback_charge thp_collapse_alloc
thp_collapse_alloc_failed thp_file_alloc thp_file_fallback thp_file_fallback_charge thp_file_mapped
thp_split_page thp_split_page_failed thp_deferred_split_page thp_underused_split_page thp_split_pmd
thp_scan_exceed_none_pte thp_scan_exceed_swap_pte thp_scan_exceed_share_pte thp_split_pud
thp_zero_page_alloc thp_zero_page_alloc_failed thp_swpout thp_swpout_fallback balloon_inflate
balloon_deflate balloon_migrate swap_ra swap_ra_hit swpin_zero swpout_zero ksm_swpin_copy cow_ksm
zswpin zswpout zswpwb direct_map_level2_splits direct_map_level3_splits direct_map_level2_collapses
direct_map_level3_collapses nr_unstable
""".split()

# Counters the spec does not drive but that move with the ones it does (rates derived from the
# driven vmstat rates), so the file stays plausible as a whole.
VMSTAT_IMPLIED = {
    "pgalloc_normal": lambda r: r.get("pgfault", 0) + r.get("pgpgin", 0) / 4 + r.get("pswpin", 0),
    "pgfree": lambda r: r.get("pgfault", 0) + r.get("pgpgin", 0) / 4 + r.get("pswpin", 0),
    "numa_hit": lambda r: r.get("pgfault", 0) + r.get("pgpgin", 0) / 4,
    "numa_local": lambda r: r.get("pgfault", 0) + r.get("pgpgin", 0) / 4,
    "pgactivate": lambda r: r.get("workingset_refault_file", 0) / 2 + r.get("pgmajfault", 0),
    "workingset_activate_file": lambda r: r.get("workingset_refault_file", 0) / 2,
    "pgscan_kswapd": lambda r: 3 * r.get("pswpout", 0) + 2 * r.get("workingset_refault_file", 0),
    "pgsteal_kswapd": lambda r: r.get("pswpout", 0) + r.get("workingset_refault_file", 0),
    "pgscan_anon": lambda r: 2 * r.get("pswpout", 0),
    "pgsteal_anon": lambda r: r.get("pswpout", 0),
    "pgscan_file": lambda r: r.get("pswpout", 0) + 2 * r.get("workingset_refault_file", 0),
    "pgsteal_file": lambda r: r.get("workingset_refault_file", 0),
    "nr_dirtied": lambda r: r.get("pgpgout", 0) / 4,
    "nr_written": lambda r: r.get("pgpgout", 0) / 4,
}

MEMINFO_KEYS = """
MemTotal MemFree MemAvailable Buffers Cached SwapCached Active Inactive Active(anon) Inactive(anon)
Active(file) Inactive(file) Unevictable Mlocked SwapTotal SwapFree Zswap Zswapped Dirty Writeback
AnonPages Mapped Shmem KReclaimable Slab SReclaimable SUnreclaim KernelStack PageTables
SecPageTables NFS_Unstable Bounce WritebackTmp CommitLimit Committed_AS VmallocTotal VmallocUsed
VmallocChunk Percpu AnonHugePages ShmemHugePages ShmemPmdMapped FileHugePages FilePmdMapped Balloon
HugePages_Total HugePages_Free HugePages_Rsvd HugePages_Surp Hugepagesize Hugetlb DirectMap4k
DirectMap2M DirectMap1G
""".split()

MERGE_KEYS = ("irqs", "softirqs", "vmstat", "meminfo", "psi", "procs", "disks")
REPLACE_KEYS = ("cpu", "freq", "ctxt", "forks", "procs_running", "procs_blocked", "loadavg", "governor")
PHASE_KEYS = set(MERGE_KEYS) | set(REPLACE_KEYS) | {"name", "duration", "events", "expect", "alerts", "evidence",
                                                     "note"}
RESET_GROUPS = ("cpu", "interrupts", "softirqs", "stat", "vmstat", "cpufreq", "pressure")
SPECS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "specs")


class SpecError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Values: numbers, ramps [from, to], per-CPU maps.

def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_ramp(v):
    return isinstance(v, (list, tuple)) and len(v) == 2 and all(is_number(x) for x in v)


def at(v, f):
    """v at fraction f of its phase: a ramp interpolated, anything else unchanged."""
    if is_ramp(v):
        return v[0] + (v[1] - v[0]) * f
    return v


def concrete(v, f):
    """v with every ramp inside it evaluated at f."""
    if is_ramp(v):
        return at(v, f)
    if isinstance(v, dict):
        return {k: concrete(x, f) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [concrete(x, f) for x in v]
    return v


def has_ramp(v):
    if is_ramp(v):
        return True
    if isinstance(v, dict):
        return any(has_ramp(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return any(has_ramp(x) for x in v)
    return False


def settle(v):
    """What a following phase inherits: every ramp replaced by its end value."""
    if is_ramp(v):
        return v[1]
    if isinstance(v, dict):
        return {k: settle(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [settle(x) for x in v]
    return v


def pick(mapping, cpu):
    """The entry for one CPU of a {"N": x, "*": x} map, or None."""
    if not isinstance(mapping, dict):
        return mapping
    for key in (str(cpu), cpu, "*"):
        if key in mapping:
            return mapping[key]
    return None


def cpulist(ids):
    """[0, 1, 2, 5] -> "0-2,5" as the kernel prints CPU masks."""
    ids = sorted(ids)
    out, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else "%d-%d" % (ids[i], ids[j]))
        i = j + 1
    return ",".join(out)


# ---------------------------------------------------------------------------------------------
# Spec loading and checking.

def parse_params(pairs):
    params = {}
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise SpecError("--param wants NAME=VALUE, got %r" % pair)
        try:
            params[name] = json.loads(value)
        except ValueError:
            params[name] = value
    return params


def find_spec(spec_arg):
    path, variant = spec_arg, None
    if not os.path.exists(path) and ":" in spec_arg:
        path, _, variant = spec_arg.rpartition(":")
    if not os.path.exists(path):
        for cand in (os.path.join(SPECS_DIR, path), os.path.join(SPECS_DIR, path + ".py"),
                     os.path.join(SPECS_DIR, path + ".json")):
            if os.path.exists(cand):
                path = cand
                break
        else:
            raise SpecError("no spec %r (looked in %s)" % (spec_arg, SPECS_DIR))
    return path, variant


def import_module(path):
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)  # so a spec can import its helpers (_common.py)
    name = "pwscenario_spec_" + os.path.splitext(os.path.basename(path))[0]
    mod_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    return module


def variants_of(path):
    if path.endswith(".json"):
        with open(path) as f:
            doc = json.load(f)
        return list(doc.get("variants", {"default": None}))
    return list(getattr(import_module(path), "VARIANTS", ("default",)))


def load_spec(spec_arg, variant=None, params=None):
    """The normalised spec for SPEC[:VARIANT] with params applied (see the module docstring)."""
    path, suffix_variant = find_spec(spec_arg)
    variant = variant or suffix_variant
    params = dict(params or {})
    if path.endswith(".json"):
        with open(path) as f:
            doc = json.load(f)
        if "variants" in doc:
            names = list(doc["variants"])
            variant = variant or doc.get("default", names[0])
            if variant not in doc["variants"]:
                raise SpecError("%s has no variant %r (has %s)" % (path, variant, ", ".join(names)))
            spec = doc["variants"][variant]
        else:
            spec = doc
        # JSON specs take NAME=SECONDS params as the duration of the phase called NAME.
        for name, value in params.items():
            hits = [p for p in spec.get("phases", []) if p.get("name") == name]
            if not hits or not is_number(value):
                raise SpecError("JSON spec %s: no phase %r to give duration %r" % (path, name, value))
            for p in hits:
                p["duration"] = value
    else:
        module = import_module(path)
        names = list(getattr(module, "VARIANTS", ()))
        if names:
            variant = variant or names[0]
            if variant not in names:
                raise SpecError("%s has no variant %r (has %s)" % (path, variant, ", ".join(names)))
            params["variant"] = variant
        try:
            spec = module.scenario(**params)
        except TypeError as e:
            raise SpecError("%s: %s" % (path, e))
    spec = copy.deepcopy(spec)
    spec.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    spec["variant"] = variant
    return normalize(spec)


def normalize(spec):
    """Fill host defaults and check the spec; raises SpecError naming what is wrong."""
    host = normalize_host(spec.setdefault("host", {}))
    phases = spec.get("phases")
    if not phases:
        raise SpecError("no phases")
    names = {str(line["irq"]) for line in host["irqs"]} | {line["device"] for line in host["irqs"]}
    for p in phases:
        for e in p.get("events", []):
            if e.get("type") == "add_irq":
                check_line(e.get("line", {}), host["ncpu"])
                names |= {str(e["line"]["irq"]), e["line"]["device"]}
    procs = {p["comm"] for p in host["procs"]} | {str(p["pid"]) for p in host["procs"]}
    disks = {d["name"] for d in host["disks"]}
    for i, p in enumerate(phases):
        check_phase(p, "phase %d (%s)" % (i, p.get("name")), host["ncpu"], names, procs, disks)
    return spec


def normalize_host(host):
    ncpu = host.setdefault("ncpu", 1)
    if not isinstance(ncpu, int) or ncpu < 1 or ncpu > 4096:
        raise SpecError("host.ncpu must be 1..4096")
    for key, value in (("user_hz", 100), ("page_kb", 4), ("uptime", 86400.0), ("online", list(range(ncpu))),
                       ("threads", 120 + 12 * ncpu), ("kernel_max", max(255, ncpu - 1)), ("seed", 1),
                       ("psi_ewma", False), ("irqs", []), ("pressure", {}), ("meminfo", {})):
        host.setdefault(key, value)
    for res in PSI_RESOURCES:
        host["pressure"].setdefault(res, True)
    # Processes (/proc/PID/stat) and disks (/proc/diskstats), written only when the host has them:
    # the evidence perfwatchd's probes look up while an alert is active.
    for i, proc in enumerate(host.setdefault("procs", [])):
        if not isinstance(proc.get("pid"), int) or proc["pid"] < 1 or not isinstance(proc.get("comm"), str):
            raise SpecError("host.procs[%d]: needs a pid > 0 and a comm" % i)
        proc.setdefault("start", 1000 + 10 * i)
    for i, disk in enumerate(host.setdefault("disks", [])):
        if not isinstance(disk.get("name"), str) or not disk["name"]:
            raise SpecError("host.disks[%d]: needs a name" % i)
        disk.setdefault("major", 8)
        disk.setdefault("minor", 16 * i)
    seen = set()
    for line in host["irqs"]:
        check_line(line, ncpu)
        if line["irq"] in seen:
            raise SpecError("host.irqs: irq %d twice" % line["irq"])
        seen.add(line["irq"])
    mem = host["meminfo"]
    mem.setdefault("MemTotal", 4 * 1024 * 1024)
    mem.setdefault("SwapTotal", 0)
    mem.setdefault("SwapFree", mem["SwapTotal"])
    freq = host.get("cpufreq")
    if freq:
        freq.setdefault("driver", "acpi-cpufreq")
        freq.setdefault("governor", "ondemand")
        freq.setdefault("stats", True)
        freq.setdefault("transition_latency", 10000)
        freq.setdefault("available_governors", "conservative ondemand userspace powersave performance schedutil")
        freq.setdefault("tunables", {"ignore_nice_load": 0, "io_is_busy": 0, "powersave_bias": 0,
                                     "sampling_down_factor": 1, "sampling_rate": 10000, "up_threshold": 95})
        states = freq.get("states_khz")
        if not states or not all(isinstance(s, int) and s > 0 for s in states):
            raise SpecError("host.cpufreq.states_khz: a list of kHz, fastest first")
        freq["states_khz"] = sorted(states, reverse=True)
    return host


def check_phase(p, where, ncpu, irq_names, proc_names=(), disk_names=()):
    if not p.get("name") or not is_number(p.get("duration")) or p["duration"] <= 0:
        raise SpecError("%s: needs a name and a duration > 0" % where)
    unknown = set(p) - PHASE_KEYS
    if unknown:
        raise SpecError("%s: unknown keys %s" % (where, ", ".join(sorted(unknown))))
    for key, known in (("irqs", irq_names | set(ARCH_NAMES)), ("softirqs", SOFTIRQS), ("vmstat", VMSTAT_KEYS),
                       ("meminfo", MEMINFO_KEYS), ("psi", PSI_RESOURCES), ("procs", proc_names),
                       ("disks", disk_names)):
        for name in p.get(key) or {}:
            if name not in known:
                raise SpecError("%s: %s has no %r" % (where, key, name))
    for res, kinds in (p.get("psi") or {}).items():
        if not isinstance(kinds, dict) or set(kinds) - {"some", "full"}:
            raise SpecError("%s: psi wants {resource: {some: pct, full: pct}}" % where)
    for key in ("cpu", "freq"):
        for cpu_key in p.get(key) or {}:
            if cpu_key != "*" and not (str(cpu_key).isdigit() and int(cpu_key) < ncpu):
                raise SpecError("%s: %s key %r is neither \"*\" nor a CPU id" % (where, key, cpu_key))
    for cpu_key, modes in (p.get("cpu") or {}).items():
        if set(modes) - set(MODES):
            raise SpecError("%s: cpu %s: unknown modes %s" % (where, cpu_key, set(modes) - set(MODES)))
    for e in p.get("events", []):
        check_event(e, where, p["duration"], ncpu)


EVENT_FIELDS = {"cpu_offline": ("cpu",), "cpu_online": ("cpu",), "remove": ("path",), "restore": ("path",),
                "add_irq": ("line",), "remove_irq": ("name",), "reset": (), "governor": ("governor",),
                "spike": ("duration",)}


def check_event(e, where, duration, ncpu):
    kind = e.get("type")
    if kind not in EVENT_FIELDS:
        raise SpecError("%s: event type %r (want one of %s)" % (where, kind, ", ".join(EVENT_FIELDS)))
    if not is_number(e.get("at", 0)) or not 0 <= e.get("at", 0) <= duration:
        raise SpecError("%s: %s at %r is outside the phase" % (where, kind, e.get("at")))
    for field in EVENT_FIELDS[kind]:
        if field not in e:
            raise SpecError("%s: %s needs %r" % (where, kind, field))
    if "cpu" in EVENT_FIELDS[kind] and not (isinstance(e["cpu"], int) and 0 <= e["cpu"] < ncpu):
        raise SpecError("%s: %s of cpu %r" % (where, kind, e["cpu"]))
    if kind == "spike" and (not is_number(e["duration"]) or e["duration"] <= 0):
        raise SpecError("%s: a spike needs a duration > 0" % where)
    if kind == "reset" and set(e.get("groups", ())) - set(RESET_GROUPS):
        raise SpecError("%s: reset groups are %s" % (where, ", ".join(RESET_GROUPS)))


def check_line(line, ncpu):
    if not isinstance(line.get("irq"), int) or line["irq"] < 0:
        raise SpecError("irq line without a number: %r" % (line,))
    line.setdefault("chip", "IO-APIC")
    line.setdefault("handler", "edge")
    line.setdefault("device", "")
    if "hwirq" not in line:
        line["hwirq"] = line["irq"]
    if "cpus" not in line:
        line["cpus"] = [line.get("cpu", 0)]
    cpus = line["cpus"]
    weights = {int(k): float(v) for k, v in cpus.items()} if isinstance(cpus, dict) else {int(c): 1.0 for c in cpus}
    if not weights or any(c < 0 or c >= ncpu for c in weights):
        raise SpecError("irq %d: cpus %r outside 0..%d" % (line["irq"], cpus, ncpu - 1))
    line["weights"] = weights


# ---------------------------------------------------------------------------------------------
# The timeline: phases with inheritance resolved, on the real (monotonic) clock.

class Timeline:
    """Phases and events placed on real seconds since the start (scenario seconds / speed)."""

    def __init__(self, spec, speed=1.0):
        if speed <= 0:
            raise SpecError("--speed must be > 0")
        self.phases = []      # (start, end, name, resolved phase dict)
        self.points = []      # (t, order, kind, payload): phase starts, events, spike ends, end
        self.overlays = []    # (start, end, overlay dict)
        t, prev = 0.0, {}
        for i, raw in enumerate(spec["phases"]):
            cur = {"name": raw["name"]}
            for key in MERGE_KEYS:
                merged = settle(prev.get(key, {}))
                merged.update(copy.deepcopy(raw.get(key, {})))
                cur[key] = merged
            for key in REPLACE_KEYS:
                cur[key] = copy.deepcopy(raw[key]) if key in raw else settle(prev.get(key))
            end = t + raw["duration"] / speed
            self.phases.append((t, end, raw["name"], cur))
            self.points.append((t, 0, "phase", {"name": raw["name"], "index": i}))
            for order, ev in enumerate(raw.get("events", [])):
                when = t + ev.get("at", 0) / speed
                ev = dict(ev)
                if ev["type"] == "spike":
                    until = when + ev["duration"] / speed
                    self.overlays.append((when, until, ev))
                    self.points.append((until, 2, "spike_end", ev))
                self.points.append((when, 1 + order / 1000.0, "event", ev))
            prev, t = cur, end
        self.end = t
        self.points.append((t, 3, "end", {}))
        self.points.sort(key=lambda p: (p[0], p[1]))

        self.ramped = [has_ramp(p[3]) for p in self.phases]
        self.overlay_ramped = [has_ramp(ov) for _, _, ov in self.overlays]

    def phase_index(self, t):
        for i, (start, end, _, _) in enumerate(self.phases):
            if t < end:
                return i
        return len(self.phases) - 1

    def phase_at(self, t):
        """(resolved phase, fraction into it) at real time t."""
        start, end, _, phase = self.phases[self.phase_index(t)]
        return phase, min(max(t - start, 0.0) / (end - start), 1.0)

    def overlays_at(self, t):
        return [(ov, (t - s) / (e - s)) for s, e, ov in self.overlays if s <= t < e]

    def overlay_ids_at(self, t):
        return tuple(i for i, (s, e, _) in enumerate(self.overlays) if s <= t < e)


# ---------------------------------------------------------------------------------------------
# The host model: counters as floats, integrated piecewise over the timeline.

class Line:
    def __init__(self, spec_line, ncpu):
        self.irq = spec_line["irq"]
        self.chip = spec_line["chip"]
        self.hwirq = spec_line["hwirq"]
        self.handler = spec_line["handler"]
        self.device = spec_line["device"]
        self.weights = dict(spec_line["weights"])
        self.counts = [0.0] * ncpu


class State:
    """Rates and levels in force at one instant (what the counters are integrated with)."""

    def __init__(self):
        self.cpu = {}        # online cpu -> {mode: percent}
        self.lines = {}      # irq number -> {cpu: rate}
        self.arch = {}       # arch name -> {cpu: rate}; ERR/MIS -> {None: rate}
        self.soft = {}       # softirq type -> {cpu: rate}
        self.ctxt = self.forks = 0.0
        self.vm = {}         # vmstat key -> rate
        self.freq = {}       # online cpu -> {khz: fraction}
        self.trans = {}      # online cpu -> transitions/s
        self.psi = {}        # resource -> {"some": pct, "full": pct}
        self.running = self.blocked = 0
        self.loadavg = None
        self.mem = {}        # explicit meminfo levels, kB
        self.governor = {}
        self.procs = {}      # pid -> {"user": pct of a CPU, "system": pct}
        self.disks = {}      # name -> {"util": pct, "reads": /s, "writes": /s}


class Model:
    def __init__(self, spec, timeline):
        self.spec = spec
        self.host = h = spec["host"]
        self.tl = timeline
        self.ncpu = n = h["ncpu"]
        self.hz = h["user_hz"]
        self.page_kb = h["page_kb"]
        self.online = set(h["online"])
        self.removed = set()
        self.rng = random.Random(h["seed"])
        self.lines = sorted((Line(line, n) for line in h["irqs"]), key=lambda l: l.irq)
        self.nr_irqs = h.get("nr_irqs") or 408 + 8 * n
        self.ticks = [dict.fromkeys(MODES, 0.0) for _ in range(n)]
        self.arch = {name: [0.0] * n for name in ARCH_NAMES if name not in GLOBAL_ARCH}
        self.arch_global = dict.fromkeys(GLOBAL_ARCH, 0.0)
        self.soft = {t: [0.0] * n for t in SOFTIRQS}
        self.ctxt = self.processes = 0.0
        self.vm = dict.fromkeys(VMSTAT_KEYS, 0.0)
        freq = h.get("cpufreq")
        self.states = freq["states_khz"] if freq else []
        self.governor = [freq["governor"] if freq else None] * n
        self.tis = [dict.fromkeys(self.states, 0.0) for _ in range(n)]
        self.trans = [0.0] * n
        self.cur_khz = [self.states[0] if self.states else 0] * n
        self.procs = {p["pid"]: {"utime": 0.0, "stime": 0.0} for p in h["procs"]}
        self.disks = {d["name"]: {"reads": 0.0, "writes": 0.0, "io_ticks": 0.0} for d in h["disks"]}
        self.psi_total = {r: {"some": 0.0, "full": 0.0} for r in PSI_RESOURCES}
        self.psi_avg = {r: {"some": [0.0] * 3, "full": [0.0] * 3} for r in PSI_RESOURCES}
        self.load = [0.0, 0.0, 0.0]
        self.swap_free = float(h["meminfo"]["SwapFree"])
        self.t = 0.0
        self.next_point = 0
        self.last_state = None
        self.version = 0          # bumped by every event: the state cache's key
        self.cache = (None, None)
        self.btime = int(time.time() - h["uptime"])
        self._seed_counters()

    # -- state at an instant ------------------------------------------------------------------

    def state(self, t):
        """The rates and levels in force at real time t (cached while nothing can change them)."""
        index = self.tl.phase_index(t)
        overlays = self.tl.overlay_ids_at(t)
        key = None
        if not self.tl.ramped[index] and not any(self.tl.overlay_ramped[i] for i in overlays):
            key = (index, overlays, self.version)
            if self.cache[0] == key:
                return self.cache[1]
        st = self._compute_state(t)
        if key is not None:
            self.cache = (key, st)
        return st

    def _phase_with_overlays(self, t):
        """The phase at t with its ramps evaluated and the spikes in force merged in; returns it
        and the spikes' per-CPU mode patches (merged mode by mode, not CPU by CPU)."""
        phase, f = self.tl.phase_at(t)
        ph = concrete(phase, f)
        patches = []
        for ov, g in self.tl.overlays_at(t):
            ov = concrete(ov, g)
            for key in MERGE_KEYS + ("freq",):
                if key in ov:
                    merged = dict(ph.get(key) or {})
                    merged.update(ov[key])
                    ph[key] = merged
            for key in ("ctxt", "forks", "procs_running", "procs_blocked", "loadavg", "governor"):
                if key in ov:
                    ph[key] = ov[key]
            patches.append(ov.get("cpu") or {})
        return ph, patches

    def _compute_state(self, t):
        ph, patches = self._phase_with_overlays(t)
        st = State()
        online = sorted(self.online)
        for cpu in online:
            modes = dict(pick(ph.get("cpu") or {}, cpu) or {})
            for patch in patches:
                patch = pick(patch, cpu)
                if patch:
                    if "idle" not in patch:
                        modes.pop("idle", None)  # idle becomes the remainder again
                    modes.update(patch)
            st.cpu[cpu] = fill_modes(modes)
        self._interrupt_rates(st, ph, online)
        st.ctxt = float(ph.get("ctxt") or 0)
        st.forks = float(ph.get("forks") or 0)
        st.vm = {k: float(v) for k, v in (ph.get("vmstat") or {}).items()}
        for key, fn in VMSTAT_IMPLIED.items():
            if key not in st.vm:
                st.vm[key] = fn(st.vm)
        for res in PSI_RESOURCES:
            lv = (ph.get("psi") or {}).get(res) or {}
            st.psi[res] = {"some": float(lv.get("some", 0)), "full": float(lv.get("full", 0))}
        st.running = int(round(ph.get("procs_running") if ph.get("procs_running") is not None else 1))
        st.blocked = int(round(ph.get("procs_blocked") or 0))
        st.loadavg = ph.get("loadavg")
        st.mem = {k: float(v) for k, v in (ph.get("meminfo") or {}).items()}
        procs = ph.get("procs") or {}
        for proc in self.host["procs"]:
            rates = procs.get(proc["comm"]) or procs.get(str(proc["pid"])) or {}
            st.procs[proc["pid"]] = {m: float(rates.get(m, 0)) for m in ("user", "system")}
        for name, rates in (ph.get("disks") or {}).items():
            st.disks[name] = {m: float(rates.get(m, 0)) for m in ("util", "reads", "writes")}
        gov = ph.get("governor")
        for cpu in range(self.ncpu):
            st.governor[cpu] = pick(gov, cpu) if gov else self.governor[cpu]
        if self.states:
            for cpu in online:
                st.freq[cpu] = self._residency(pick(ph.get("freq") or {}, cpu), st.cpu[cpu], st.governor[cpu])
                top = max(st.freq[cpu].values())
                st.trans[cpu] = 0.0 if top >= 0.999 else 100.0 * (1.0 - top)
        return st

    def _interrupt_rates(self, st, ph, online):
        irqs = ph.get("irqs") or {}
        for line in self.lines:
            value = irqs.get(line.device) if line.device in irqs else irqs.get(str(line.irq), 0)
            st.lines[line.irq] = self._spread(line, value, online)
        for name in ARCH_NAMES:
            value = irqs.get(name, 0)
            if name in GLOBAL_ARCH:
                st.arch[name] = {None: float(value) if is_number(value) else 0.0}
            else:
                st.arch[name] = per_cpu(value, online)
        soft = ph.get("softirqs") or {}
        for t_name in SOFTIRQS:
            st.soft[t_name] = per_cpu(soft.get(t_name, 0), online)

    def _spread(self, line, value, online):
        """A numbered line's rate per CPU: a total split by its affinity over the online CPUs
        (or moved to the first online CPU, as the kernel migrates IRQs off a CPU going down)."""
        if isinstance(value, dict):
            out = {}
            for cpu in online:
                r = pick(value, cpu)
                if r:
                    out[cpu] = float(r)
            return out
        weights = {c: w for c, w in line.weights.items() if c in self.online}
        if not weights:
            weights = {online[0]: 1.0} if online else {}
        total = sum(weights.values())
        return {c: float(value) * w / total for c, w in weights.items()} if total else {}

    def _residency(self, spec, modes, governor):
        states = self.states
        if spec is None:
            if governor == "performance":
                spec = "max"
            elif governor == "powersave":
                spec = "min"
            else:  # ondemand-like: busy time at the top, the rest at the bottom
                busy = (100.0 - modes["idle"] - modes["iowait"]) / 100.0
                return normalise_residency({states[0]: busy, states[-1]: 1.0 - busy})
        if spec == "max":
            return {states[0]: 1.0}
        if spec == "min":
            return {states[-1]: 1.0}
        if is_number(spec):
            avg = min(max(float(spec), states[-1]), states[0])
            for hi, lo in zip(states, states[1:]):
                if lo <= avg <= hi:
                    share = (avg - lo) / (hi - lo)
                    return normalise_residency({hi: share, lo: 1.0 - share})
            return {states[0]: 1.0}
        return normalise_residency({int(k): float(v) for k, v in spec.items()})

    # -- integration --------------------------------------------------------------------------

    def _seed_counters(self):
        """Counters at t=0: the first instant's rates over the host's uptime, so the tree is
        consistent (each CPU's ticks sum to uptime x USER_HZ, and so on)."""
        st = self.state(0.0)
        up = float(self.host["uptime"])
        self._accumulate(st, up, seeding=True)
        for res in PSI_RESOURCES:
            for kind in ("some", "full"):
                self.psi_avg[res][kind] = [st.psi[res][kind]] * 3
        active = st.running + st.blocked
        self.load = list(st.loadavg) if st.loadavg else [float(active)] * 3
        self.processes += 1000
        self.last_state = st

    def _accumulate(self, st, dt, seeding=False):
        hz = self.hz
        for cpu, modes in st.cpu.items():
            ticks = self.ticks[cpu]
            for m, pct in modes.items():
                ticks[m] += pct / 100.0 * hz * dt
        for line in self.lines:
            for cpu, r in st.lines.get(line.irq, {}).items():
                line.counts[cpu] += r * dt
        for name, rates in st.arch.items():
            for cpu, r in rates.items():
                if cpu is None:
                    self.arch_global[name] += r * dt
                else:
                    self.arch[name][cpu] += r * dt
        for t_name, rates in st.soft.items():
            for cpu, r in rates.items():
                self.soft[t_name][cpu] += r * dt
        self.ctxt += st.ctxt * dt
        self.processes += st.forks * dt
        for pid, rates in st.procs.items():
            self.procs[pid]["utime"] += rates["user"] / 100.0 * hz * dt
            self.procs[pid]["stime"] += rates["system"] / 100.0 * hz * dt
        for name, rates in st.disks.items():
            d = self.disks[name]
            d["io_ticks"] += min(rates["util"], 100.0) / 100.0 * 1000.0 * dt
            d["reads"] += rates["reads"] * dt
            d["writes"] += rates["writes"] * dt
        for k, r in st.vm.items():
            self.vm[k] += r * dt
        for cpu, res in st.freq.items():
            for khz, frac in res.items():
                self.tis[cpu][khz] += frac * hz * dt
            self.trans[cpu] += st.trans[cpu] * dt
        for res in PSI_RESOURCES:
            for kind in ("some", "full"):
                level = st.psi[res][kind]
                self.psi_total[res][kind] += level / 100.0 * dt * 1e6
                if not seeding:
                    avgs = self.psi_avg[res][kind]
                    for w, window in enumerate(PSI_WINDOWS):
                        if w == 0 and not self.host["psi_ewma"]:
                            avgs[0] = level
                        else:
                            avgs[w] += (level - avgs[w]) * (1.0 - math.exp(-dt / window))
        if not seeding:
            if st.loadavg:
                self.load = [float(x) for x in st.loadavg]
            else:
                active = st.running + st.blocked
                for w, window in enumerate(LOAD_WINDOWS):
                    self.load[w] += (active - self.load[w]) * (1.0 - math.exp(-dt / window))
            if "SwapFree" not in st.mem:
                # Swap-outs take slots; swap-ins leave theirs allocated (swap cache) until the
                # page is written again or freed, so only pswpout moves SwapFree.
                self.swap_free -= st.vm.get("pswpout", 0.0) * self.page_kb * dt
                self.swap_free = min(max(self.swap_free, 0.0), float(self.host["meminfo"]["SwapTotal"]))
            else:
                self.swap_free = st.mem["SwapFree"]

    def advance(self, t1, emit):
        """Integrate from self.t to t1 (real seconds), applying every timeline point on the way;
        emit(kind, t, payload) is called for each point passed."""
        t1 = min(t1, self.tl.end)
        while self.t < t1:
            nxt = t1
            if self.next_point < len(self.tl.points):
                nxt = min(nxt, self.tl.points[self.next_point][0])
            if nxt > self.t:
                self._accumulate(self.state((self.t + nxt) / 2.0), nxt - self.t)
                self.t = nxt
            self._process_points(self.t, emit)
        self._process_points(self.t, emit)
        # Levels (and what the files show) are those in force at t itself.
        self.last_state = self.state(self.t)

    def _process_points(self, t, emit):
        points = self.tl.points
        while self.next_point < len(points) and points[self.next_point][0] <= t:
            when, _, kind, payload = points[self.next_point]
            self.next_point += 1
            if kind == "event":
                self.apply_event(payload)
            emit(kind, when, payload)

    def apply_event(self, ev):
        kind = ev["type"]
        self.version += 1
        if kind == "cpu_offline":
            self.online.discard(ev["cpu"])
        elif kind == "cpu_online":
            cpu = ev["cpu"]
            self.online.add(cpu)
            reset = ev.get("reset", False)
            if reset == "all":
                self.ticks[cpu] = dict.fromkeys(MODES, 0.0)
            elif reset:  # "idle"/True: NO_HZ idle and iowait restart at 0 (tick_sched zeroed)
                self.ticks[cpu]["idle"] = self.ticks[cpu]["iowait"] = 0.0
        elif kind == "remove":
            self.removed.add(ev["path"])
        elif kind == "restore":
            self.removed.discard(ev["path"])
        elif kind == "add_irq":
            line = Line(ev["line"], self.ncpu)
            self.lines = sorted([l for l in self.lines if l.irq != line.irq] + [line], key=lambda l: l.irq)
        elif kind == "remove_irq":
            name = str(ev["name"])
            self.lines = [l for l in self.lines if l.device != name and str(l.irq) != name]
        elif kind == "governor":
            for cpu in ev.get("cpus", range(self.ncpu)):
                self.governor[cpu] = ev["governor"]
        elif kind == "reset":
            self.reset(ev.get("groups", RESET_GROUPS))

    def reset(self, groups):
        if "cpu" in groups:
            self.ticks = [dict.fromkeys(MODES, 0.0) for _ in range(self.ncpu)]
        if "interrupts" in groups:
            for line in self.lines:
                line.counts = [0.0] * self.ncpu
            for name in self.arch:
                self.arch[name] = [0.0] * self.ncpu
            self.arch_global = dict.fromkeys(GLOBAL_ARCH, 0.0)
        if "softirqs" in groups:
            self.soft = {t: [0.0] * self.ncpu for t in SOFTIRQS}
        if "stat" in groups:
            self.ctxt = self.processes = 0.0
        if "vmstat" in groups:
            self.vm = dict.fromkeys(VMSTAT_KEYS, 0.0)
        if "cpufreq" in groups:
            self.tis = [dict.fromkeys(self.states, 0.0) for _ in range(self.ncpu)]
            self.trans = [0.0] * self.ncpu
        if "pressure" in groups:
            self.psi_total = {r: {"some": 0.0, "full": 0.0} for r in PSI_RESOURCES}

    # -- levels -------------------------------------------------------------------------------

    def meminfo(self):
        """Every /proc/meminfo key in kB: the host's sizes, the phase's explicit levels, the rest
        derived so the file adds up."""
        st = self.last_state
        m = dict(self.host["meminfo"])
        m.update({k: v for k, v in st.mem.items()})
        m["SwapFree"] = self.swap_free
        total = float(m["MemTotal"])
        m.setdefault("MemFree", total * 0.5)
        m.setdefault("Buffers", total * 0.02)
        m.setdefault("Cached", total * 0.25)
        m.setdefault("SwapCached", min(float(m["SwapTotal"]) - self.swap_free, total * 0.01))
        m.setdefault("Shmem", min(total * 0.005, m["Cached"] * 0.5))
        m.setdefault("Dirty", 0.0)
        m.setdefault("Writeback", 0.0)
        m.setdefault("KernelStack", 1400.0 + 300.0 * self.ncpu)
        m.setdefault("PageTables", total * 0.003)
        m.setdefault("Slab", total * 0.04)
        m.setdefault("SReclaimable", m["Slab"] * 0.7)
        m.setdefault("SUnreclaim", m["Slab"] - m["SReclaimable"])
        m.setdefault("KReclaimable", m["SReclaimable"])
        m.setdefault("Mlocked", 0.0)
        m.setdefault("Unevictable", m["Mlocked"])
        reserved = total * 0.01
        m.setdefault("AnonPages", max(total - m["MemFree"] - m["Buffers"] - m["Cached"] - m["SwapCached"]
                                      - m["Slab"] - m["KernelStack"] - m["PageTables"] - reserved, 0.0))
        m.setdefault("Mapped", min(m["Cached"] * 0.1, total * 0.05))
        file_lru = max(m["Buffers"] + m["Cached"] - m["Shmem"] - m["Unevictable"], 0.0)
        anon_lru = m["AnonPages"] + m["Shmem"]
        m.setdefault("Active(file)", file_lru * 0.35)
        m.setdefault("Inactive(file)", file_lru - m["Active(file)"])
        m.setdefault("Active(anon)", anon_lru * 0.7)
        m.setdefault("Inactive(anon)", anon_lru - m["Active(anon)"])
        m.setdefault("Active", m["Active(anon)"] + m["Active(file)"])
        m.setdefault("Inactive", m["Inactive(anon)"] + m["Inactive(file)"])
        low_wmark = total * 0.006
        m.setdefault("MemAvailable", max(m["MemFree"] - low_wmark + m["Active(file)"] / 2
                                         + m["Inactive(file)"] / 2 + m["SReclaimable"] / 2, 0.0))
        m.setdefault("CommitLimit", m["SwapTotal"] + total / 2)
        m.setdefault("Committed_AS", m["AnonPages"] * 1.6 + m["Shmem"])
        m.setdefault("VmallocTotal", 34359738367)
        m.setdefault("VmallocUsed", 14000 + 500 * self.ncpu)
        m.setdefault("Percpu", 500 * self.ncpu)
        m.setdefault("Hugepagesize", 2048)
        m.setdefault("DirectMap4k", 28672)
        m.setdefault("DirectMap2M", max(total + total / 16 - 28672, 0) // 2048 * 2048)
        for key in MEMINFO_KEYS:
            m.setdefault(key, 0)
        return {k: int(round(v)) for k, v in m.items()}

    # -- what perfwatchd should report (used by the checker) -----------------------------------

    def expected_rates(self, st):
        """Interval figures for one instant's state, keyed like check_scenario.py reads /status."""
        out = {}
        shares = {}
        for cpu, modes in st.cpu.items():
            for m in ACCOUNTED:
                out["cpu.%d.%s" % (cpu, m)] = modes[m]
            out["cpu.%d.busy" % cpu] = 100.0 - modes["idle"] - modes["iowait"]
            shares[cpu] = modes
        if shares:
            for m in ACCOUNTED:
                out["cpu.all.%s" % m] = sum(s[m] for s in shares.values()) / len(shares)
            out["cpu.all.busy"] = 100.0 - out["cpu.all.idle"] - out["cpu.all.iowait"]
        intr = sum(sum(r.values()) for r in st.lines.values())
        intr += sum(sum(r.values()) for r in st.arch.values())
        out["intr"] = intr
        for line in self.lines:
            if line.device:
                out["irq.%s" % line.device] = sum(st.lines.get(line.irq, {}).values())
        for t_name, rates in st.soft.items():
            out["softirq.%s" % t_name] = sum(rates.values())
        out["softirq.total"] = sum(sum(r.values()) for r in st.soft.values())
        out["ctxt"] = st.ctxt
        out["forks"] = st.forks
        vm = st.vm
        out["swap_in"] = vm.get("pswpin", 0.0)
        out["swap_out"] = vm.get("pswpout", 0.0)
        out["paged_in_kib"] = vm.get("pgpgin", 0.0)
        out["paged_out_kib"] = vm.get("pgpgout", 0.0)
        out["major_faults"] = vm.get("pgmajfault", 0.0)
        out["refaults"] = vm.get("workingset_refault_anon", 0.0) + vm.get("workingset_refault_file", 0.0)
        avgs = []
        for cpu, res in st.freq.items():
            avg = sum(k * f for k, f in res.items())
            out["freq.%d.avg_mhz" % cpu] = avg / 1000.0
            avgs.append(avg / 1000.0)
        if avgs:
            out["freq.all.avg_mhz"] = sum(avgs) / len(avgs)
        return out

    def expected_levels(self):
        """Instant figures (levels) at the model's current time."""
        st = self.last_state
        mem = self.meminfo()
        out = {"procs_running": st.running, "procs_blocked": st.blocked, "load1": self.load[0]}
        for key, name in (("MemFree", "free"), ("MemAvailable", "available"), ("Cached", "cached"),
                          ("Buffers", "buffers"), ("Dirty", "dirty"), ("SwapFree", "swap_free"),
                          ("MemTotal", "total"), ("SwapTotal", "swap_total")):
            out["mem.%s" % name] = mem[key] / 1024.0
        for res in PSI_RESOURCES:
            if self.psi_file_present(res):
                for kind in ("some", "full"):
                    if kind == "some" and res == "irq":
                        continue
                    out["psi.%s.%s" % (res, kind)] = round(self.psi_avg[res][kind][0], 2)
        return out

    def psi_file_present(self, res):
        mode = self.host["pressure"].get(res)
        return bool(mode) and mode != "empty" and "proc/pressure/" + res not in self.removed

    # -- rendering ----------------------------------------------------------------------------

    def render(self):
        """{relative path: bytes} for every file of the tree (removed ones left out)."""
        files = {}
        files["proc/stat"] = self.render_stat()
        files["proc/interrupts"] = self.render_interrupts()
        files["proc/softirqs"] = self.render_softirqs()
        files["proc/vmstat"] = self.render_vmstat()
        files["proc/meminfo"] = self.render_meminfo()
        files["proc/loadavg"] = self.render_loadavg()
        files["proc/uptime"] = self.render_uptime()
        for res in PSI_RESOURCES:
            text = self.render_psi(res)
            if text is not None:
                files["proc/pressure/" + res] = text
        self.render_sys(files)
        self.render_evidence(files)
        return {k: v.encode() for k, v in files.items() if k not in self.removed}

    def render_evidence(self, files):
        """What perfwatchd's alert probes read: /proc/PID/stat (fs/proc/array.c, 52 fields),
        /proc/irq/N/smp_affinity_list, /proc/diskstats (17 fields, as since 5.5)."""
        for proc in self.host["procs"]:
            t = self.procs[proc["pid"]]
            files["proc/%d/stat" % proc["pid"]] = (
                "%d (%s) R 1 %d %d 0 -1 4194560 1200 0 0 0 %d %d 0 0 20 0 1 0 %d 12345678 900 "
                "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                % (proc["pid"], proc["comm"], proc["pid"], proc["pid"], int(t["utime"]), int(t["stime"]),
                   proc["start"]))
        for line in self.lines:
            files["proc/irq/%d/smp_affinity_list" % line.irq] = cpulist(sorted(line.weights)) + "\n"
        if self.host["disks"]:
            out = []
            for disk in self.host["disks"]:
                d = self.disks[disk["name"]]
                out.append("%4d %7d %s %d 0 %d 0 %d 0 %d 0 0 %d %d 0 0 0 0 0 0\n"
                           % (disk["major"], disk["minor"], disk["name"], int(d["reads"]), int(d["reads"]) * 8,
                              int(d["writes"]), int(d["writes"]) * 8, int(d["io_ticks"]), int(d["io_ticks"])))
            files["proc/diskstats"] = "".join(out)

    def render_stat(self):
        cells = [[int(self.ticks[c][m]) for m in MODES] for c in range(self.ncpu)]
        total = [int(sum(self.ticks[c][m] for c in range(self.ncpu))) for m in MODES]
        out = ["cpu  " + " ".join(str(v) for v in total)]
        for c in sorted(self.online):
            out.append("cpu%d " % c + " ".join(str(v) for v in cells[c]))
        per_irq = [0] * self.nr_irqs
        for line in self.lines:
            if line.irq < self.nr_irqs:
                per_irq[line.irq] = sum(int(x) for x in line.counts)
        # intr's total is the numbered lines plus the arch counters as printed, TLB left out
        # because CAL already includes it (x86 arch_irq_stat_cpu()).
        arch_sum = sum(int(x) for col in self.arch_columns(skip_tlb=True).values() for x in col)
        arch_sum += sum(int(v) for v in self.arch_global.values())
        out.append("intr %d " % (sum(per_irq) + arch_sum) + " ".join(str(v) for v in per_irq))
        out.append("ctxt %d" % int(self.ctxt))
        out.append("btime %d" % self.btime)
        out.append("processes %d" % int(self.processes))
        st = self.last_state
        out.append("procs_running %d" % st.running)
        out.append("procs_blocked %d" % st.blocked)
        soft = [sum(int(x) for x in self.soft[t]) for t in SOFTIRQS]
        out.append("softirq %d " % sum(soft) + " ".join(str(v) for v in soft))
        return "\n".join(out) + "\n"

    def arch_columns(self, skip_tlb=False):
        """Per-CPU arch counts as /proc/interrupts prints them: CAL includes the TLB IPIs."""
        cols = dict(self.arch)
        cols["CAL"] = [a + b for a, b in zip(self.arch["CAL"], self.arch["TLB"])]
        if skip_tlb:
            del cols["TLB"]
        return cols

    def render_interrupts(self):
        online = sorted(self.online)
        prec, j = 3, 1000
        while prec < 10 and j <= self.nr_irqs:
            prec, j = prec + 1, j * 10
        out = [" " * (prec + 8) + "".join("CPU%-8d" % c for c in online)]
        for line in self.lines:
            counts = "".join("%10d " % int(line.counts[c]) for c in online)
            hwirq = " %*s" % (prec, "") if line.hwirq is None else " %*d" % (prec, line.hwirq)
            text = "%*d: %s %8s%s-%-8s" % (prec, line.irq, counts, line.chip, hwirq, line.handler)
            if line.device:
                text += "  " + line.device
            out.append(text)
        cols = self.arch_columns()
        for name, desc in ARCH_LINES:
            if name in GLOBAL_ARCH:
                out.append("%*s: %10d" % (prec, name, int(self.arch_global[name])))
                continue
            col = cols[name]
            out.append("%*s: " % (prec, name) + "".join("%10d " % int(col[c]) for c in online) + "  " + desc)
        return "\n".join(out) + "\n"

    def render_softirqs(self):
        # Possible CPUs, not online ones: an offline CPU keeps its (frozen) column.
        cpus = range(self.ncpu)
        out = [" " * 20 + "".join("CPU%-8d" % c for c in cpus)]
        for t in SOFTIRQS:
            out.append("%12s:" % t + "".join(" %10d" % int(self.soft[t][c]) for c in cpus))
        return "\n".join(out) + "\n"

    def render_vmstat(self):
        mem = self.meminfo()
        pk = self.page_kb
        gauges = {
            "nr_free_pages": mem["MemFree"] // pk,
            "nr_free_pages_blocks": mem["MemFree"] * 9 // 10 // pk,
            "nr_inactive_anon": mem["Inactive(anon)"] // pk,
            "nr_active_anon": mem["Active(anon)"] // pk,
            "nr_inactive_file": mem["Inactive(file)"] // pk,
            "nr_active_file": mem["Active(file)"] // pk,
            "nr_unevictable": mem["Unevictable"] // pk,
            "nr_mlock": mem["Mlocked"] // pk,
            "nr_slab_reclaimable": mem["SReclaimable"] // pk,
            "nr_slab_unreclaimable": mem["SUnreclaim"] // pk,
            "nr_anon_pages": mem["AnonPages"] // pk,
            "nr_mapped": mem["Mapped"] // pk,
            "nr_file_pages": (mem["Cached"] + mem["Buffers"] + mem["SwapCached"]) // pk,
            "nr_dirty": mem["Dirty"] // pk,
            "nr_writeback": mem["Writeback"] // pk,
            "nr_shmem": mem["Shmem"] // pk,
            "nr_kernel_stack": mem["KernelStack"],
            "nr_page_table_pages": mem["PageTables"] // pk,
            "nr_swapcached": mem["SwapCached"] // pk,
            "nr_dirty_threshold": mem["MemAvailable"] // pk // 5,
            "nr_dirty_background_threshold": mem["MemAvailable"] // pk // 10,
            "nr_memmap_boot_pages": mem["MemTotal"] // pk // 64,
            "workingset_nodes": mem["Cached"] // pk // 100,
        }
        for key in ("inactive_anon", "active_anon", "inactive_file", "active_file", "unevictable"):
            gauges["nr_zone_" + key] = gauges["nr_" + key]
        gauges["nr_zone_write_pending"] = gauges["nr_dirty"] + gauges["nr_writeback"]
        out = []
        for key in VMSTAT_KEYS:
            value = gauges[key] if key in gauges else int(self.vm[key])
            out.append("%s %d" % (key, value))
        return "\n".join(out) + "\n"

    def render_meminfo(self):
        mem = self.meminfo()
        out = []
        for key in MEMINFO_KEYS:
            if key.startswith("HugePages_"):
                out.append("%-16s%8d" % (key + ":", mem[key]))
            else:
                out.append("%-16s%8d kB" % (key + ":", mem[key]))
        return "\n".join(out) + "\n"

    def render_loadavg(self):
        st = self.last_state
        last_pid = int(self.processes) % PID_MAX
        return "%.2f %.2f %.2f %d/%d %d\n" % (self.load[0], self.load[1], self.load[2], st.running,
                                             self.host["threads"], last_pid)

    def render_uptime(self):
        up = self.host["uptime"] + self.t
        idle = sum(self.ticks[c]["idle"] for c in range(self.ncpu)) / self.hz
        return "%.2f %.2f\n" % (up, idle)

    def render_psi(self, res):
        mode = self.host["pressure"].get(res)
        if not mode:
            return None
        if mode == "empty":  # as the 6.18 captures show irq pressure to an unprivileged reader
            return ""
        out = []
        for kind in ("some", "full"):
            if res == "irq" and kind == "some":  # the kernel prints only "full" for irq
                continue
            a = self.psi_avg[res][kind]
            out.append("%s avg10=%.2f avg60=%.2f avg300=%.2f total=%d"
                       % (kind, a[0], a[1], a[2], int(self.psi_total[res][kind])))
        return "\n".join(out) + "\n"

    def render_sys(self, files):
        base = "sys/devices/system/cpu/"
        everyone = list(range(self.ncpu))
        files[base + "online"] = cpulist(self.online) + "\n"
        files[base + "offline"] = cpulist(set(everyone) - self.online) + "\n"
        files[base + "possible"] = cpulist(everyone) + "\n"
        files[base + "present"] = cpulist(everyone) + "\n"
        files[base + "kernel_max"] = "%d\n" % self.host["kernel_max"]
        files[base + "isolated"] = "\n"
        for cpu in everyone[1:]:  # x86 cannot offline cpu0: it has no online file
            files[base + "cpu%d/online" % cpu] = "1\n" if cpu in self.online else "0\n"
        freq = self.host.get("cpufreq")
        if not freq:
            return
        states = self.states
        st = self.last_state
        for cpu in everyone:
            pol = base + "cpufreq/policy%d/" % cpu
            res = st.freq.get(cpu)
            if res and cpu in self.online:
                if freq["stats"]:
                    # One instant, drawn from the interval's residency: it disagrees with the
                    # average on purpose, as scaling_cur_freq does on a real machine.
                    x, acc = self.rng.random(), 0.0
                    for khz in states:
                        acc += res.get(khz, 0.0)
                        if x < acc:
                            self.cur_khz[cpu] = khz
                            break
                else:  # intel_pstate-like: scaling_cur_freq is an average over the last period
                    self.cur_khz[cpu] = int(sum(k * f for k, f in res.items()))
            files[pol + "affected_cpus"] = "%d\n" % cpu
            files[pol + "related_cpus"] = "%d\n" % cpu
            files[pol + "cpuinfo_max_freq"] = "%d\n" % states[0]
            files[pol + "cpuinfo_min_freq"] = "%d\n" % states[-1]
            files[pol + "cpuinfo_transition_latency"] = "%d\n" % freq["transition_latency"]
            files[pol + "scaling_available_frequencies"] = "".join("%d " % s for s in states) + "\n"
            files[pol + "scaling_available_governors"] = freq["available_governors"] + "\n"
            files[pol + "scaling_cur_freq"] = "%d\n" % self.cur_khz[cpu]
            files[pol + "scaling_driver"] = freq["driver"] + "\n"
            files[pol + "scaling_governor"] = "%s\n" % st.governor[cpu]
            files[pol + "scaling_max_freq"] = "%d\n" % states[0]
            files[pol + "scaling_min_freq"] = "%d\n" % states[-1]
            if freq.get("base_khz"):  # intel_pstate: the all-core guaranteed frequency
                files[pol + "base_frequency"] = "%d\n" % freq["base_khz"]
            if freq.get("epp"):
                files[pol + "energy_performance_preference"] = freq["epp"] + "\n"
            if freq["stats"]:
                files[pol + "stats/time_in_state"] = "".join(
                    "%d %d\n" % (s, int(self.tis[cpu][s])) for s in states)
                files[pol + "stats/total_trans"] = "%d\n" % int(self.trans[cpu])
        if any(g == "ondemand" for g in st.governor.values()):
            for key, value in freq["tunables"].items():
                files[base + "cpufreq/ondemand/" + key] = "%s\n" % value

    def symlinks(self):
        """{relative path: target} of the links that exist now: cpuN/cpufreq for online CPUs
        (an offline CPU loses its link, as on kernels that drop the policy with the CPU)."""
        if not self.host.get("cpufreq"):
            return {}
        return {"sys/devices/system/cpu/cpu%d/cpufreq" % c: "../cpufreq/policy%d" % c
                for c in sorted(self.online)}


def fill_modes(modes):
    """Percent per mode with idle as the remainder (or all normalised to 100 when idle is given)."""
    out = {m: float(modes.get(m, 0.0)) for m in MODES}
    for m in MODES:
        if out[m] < 0:
            raise SpecError("negative %s share %r" % (m, out[m]))
    others = sum(out[m] for m in ACCOUNTED if m != "idle")
    if "idle" not in modes:
        if others > 100.0:
            scale = 100.0 / others
            for m in ACCOUNTED:
                out[m] *= scale
            others = 100.0
        out["idle"] = 100.0 - others
    else:
        total = others + out["idle"]
        if total <= 0:
            raise SpecError("a CPU with no time at all")
        for m in ACCOUNTED:
            out[m] *= 100.0 / total
    return out


def per_cpu(value, online):
    """A per-CPU rate: a number applies to every online CPU; a map gives CPUs ("*" the rest)."""
    if is_number(value):
        return {c: float(value) for c in online} if value else {}
    if isinstance(value, dict):
        out = {}
        for c in online:
            r = pick(value, c)
            if r:
                out[c] = float(r)
        return out
    return {}


def normalise_residency(res):
    res = {k: max(v, 0.0) for k, v in res.items() if v > 0}
    total = sum(res.values())
    if total <= 0:
        raise SpecError("frequency residency with no time")
    return {k: v / total for k, v in res.items()}


# ---------------------------------------------------------------------------------------------
# Writing the tree: in place, one write per file, like the kernel's files change.

class TreeWriter:
    def __init__(self, root):
        self.root = root
        self.fds = {}
        self.last = {}

    def path(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, data):
        if self.last.get(rel) == data:
            return
        fd = self.fds.get(rel)
        if fd is None:
            os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
            fd = os.open(self.path(rel), os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
            self.fds[rel] = fd
        written = os.pwrite(fd, data, 0)
        if written != len(data):
            raise OSError("short write to %s" % rel)
        os.ftruncate(fd, len(data))
        self.last[rel] = data

    def remove(self, rel):
        """Unlink, after emptying the file: a reader that holds it open then reads nothing, the
        closest a regular file gets to the kernel's ENODEV on a vanished attribute."""
        fd = self.fds.pop(rel, None)
        self.last.pop(rel, None)
        if fd is not None:
            os.ftruncate(fd, 0)
            os.close(fd)
        try:
            os.unlink(self.path(rel))
        except FileNotFoundError:
            pass

    def sync(self, files, links, removed):
        for rel in removed:
            if rel in self.fds or os.path.lexists(self.path(rel)):
                self.remove(rel)
        for rel, target in links.items():
            p = self.path(rel)
            if os.path.islink(p) and os.readlink(p) == target:
                continue
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if os.path.lexists(p):
                os.unlink(p)
            os.symlink(target, p)
        for rel, data in files.items():
            self.write(rel, data)

    def unlink_links(self, links_now, links_before):
        for rel in set(links_before) - set(links_now):
            p = self.path(rel)
            if os.path.islink(p):
                os.unlink(p)

    def close(self):
        for fd in self.fds.values():
            os.close(fd)
        self.fds.clear()


# ---------------------------------------------------------------------------------------------

class Runner:
    def __init__(self, spec, tree, tick, speed, out=sys.stdout):
        self.tl = Timeline(spec, speed)
        self.model = Model(spec, self.tl)
        self.writer = TreeWriter(tree)
        self.tick = tick
        self.out = out
        self.links = {}
        self.pending = []
        self.mono0 = self.wall0 = None
        self.max_stale = 0.0  # the longest the files lagged the model (late wake-up + write time)

    def write_tree(self):
        m = self.model
        links = m.symlinks()
        self.writer.unlink_links(links, self.links)
        self.writer.sync(m.render(), links, m.removed)
        self.links = links

    def note(self, kind, t, payload):
        if kind == "phase":
            self.pending.append({"phase": payload["name"], "t": t})
        elif kind == "event":
            line = {"event": payload["type"], "t": t}
            line.update({k: v for k, v in payload.items() if k not in ("type", "at")})
            self.pending.append(line)
        elif kind == "spike_end":
            self.pending.append({"event": "spike_end", "t": t})
        elif kind == "end":
            self.pending.append({"event": "end", "t": t, "max_stale": None})

    def flush_lines(self):
        for line in self.pending:
            if "max_stale" in line:
                line["max_stale"] = round(self.max_stale, 4)
            line["t"] = round(line["t"], 4)
            line["wall"] = round(self.wall0 + line["t"], 4)
            self.out.write(json.dumps(line) + "\n")
        self.out.flush()
        self.pending = []

    def run(self, hold=False):
        self.model.advance(0.0, self.note)  # events at t = 0 apply to the first tree
        self.write_tree()
        if hold:
            # The t=0 tree stays as it is until SIGUSR1: a test starts its reader on it first.
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
            self.out.write(json.dumps({"event": "ready", "pid": os.getpid()}) + "\n")
            self.out.flush()
            signal.sigwait({signal.SIGUSR1})
        self.mono0 = time.monotonic()
        self.wall0 = time.time()
        self.flush_lines()
        late, written_at = 0.0, 0.0
        while True:
            now = time.monotonic() - self.mono0
            self.model.advance(now, self.note)
            self.write_tree()
            # Until this write the files showed the model at written_at: that is how stale a
            # reader could have found them (the checker's slack around every window).
            self.max_stale = max(self.max_stale, time.monotonic() - self.mono0 - written_at)
            written_at = min(now, self.tl.end)
            self.flush_lines()
            if self.model.t >= self.tl.end:
                break
            nxt = (math.floor(now / self.tick) + 1) * self.tick
            if self.model.next_point < len(self.tl.points):
                nxt = min(nxt, self.tl.points[self.model.next_point][0])
            delay = nxt - (time.monotonic() - self.mono0)
            late = max(late, -delay)
            if delay > 0:
                time.sleep(delay)
        self.writer.close()
        if late > 4 * self.tick:
            sys.stderr.write("pwscenario: warning: fell %.3f s behind the tick at worst\n" % late)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec", help="spec module/JSON (path or name under specs/), optionally :VARIANT")
    ap.add_argument("tree", nargs="?", help="the fixture tree to write (TREE/proc, TREE/sys)")
    ap.add_argument("--tick", type=float, default=0.05, help="seconds between rewrites (default 0.05)")
    ap.add_argument("--speed", type=float, default=1.0, help="play the timeline N times faster")
    ap.add_argument("--init-only", action="store_true", help="write the tree at t=0 and exit")
    ap.add_argument("--hold", action="store_true",
                    help='write the tree at t=0, print {"event": "ready"}, start the clock on SIGUSR1')
    ap.add_argument("--variant", help="the spec's variant (default: its first)")
    ap.add_argument("--param", action="append", metavar="NAME=VALUE", help="a spec parameter (JSON value)")
    ap.add_argument("--list", action="store_true", help="print the spec's variants and exit")
    ap.add_argument("--dump", action="store_true", help="print the normalised spec as JSON and exit")
    args = ap.parse_args(argv)
    try:
        if args.list:
            path, _ = find_spec(args.spec)
            print("\n".join(variants_of(path)))
            return 0
        spec = load_spec(args.spec, args.variant, parse_params(args.param))
        if args.dump:
            json.dump(spec, sys.stdout, indent=1, default=str)
            print()
            return 0
        if not args.tree:
            ap.error("TREE_DIR is required")
        if args.tick <= 0:
            raise SpecError("--tick must be > 0")
        runner = Runner(spec, args.tree, args.tick, args.speed)
    except SpecError as e:
        sys.stderr.write("pwscenario: %s\n" % e)
        return 2
    if args.init_only:
        runner.model.advance(0.0, lambda *a: None)
        runner.write_tree()
        runner.writer.close()
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        runner.run(hold=args.hold)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
