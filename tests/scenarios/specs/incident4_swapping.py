"""INCIDENTS.md #4, "a memory-bound development server" (MemorySwapping, IoWaitHigh).

The story's box had 24 MB; this is the same pattern on a 2-CPU host with 1 GB of RAM and 1 GB of swap.
sar -u healthy at peak: %usr 53, %sys 25, %wio 2, %idle 20. In the incident: %usr 29-35, %sys 37-44,
%wio 26-30, %idle 0-1 — here CPU 0 usr 32 sys 40 wio 27 idle 1 and CPU 1 usr 30 sys 41 wio 28 idle 1
(host: 31 / 40.5 / 27.5 / 1).
Memory: free memory pinned at the page-stealing threshold (MemFree steps down to a ~14 MB floor, a
low watermark for 1 GB) while the page cache is squeezed (Cached 190 -> 96 MB over the phase) and
MemAvailable collapses; swap-outs ramp 19 -> 37 pages/s and swap-ins 0.5 -> 1.2 pages/s (the story's
19-37 blocks/s and 0.5-1.2 swap-ins/s, read as pages); SwapFree falls with every page swapped out
(the driver derives it from pswpout); file refaults and major faults jump (re-reading evicted
program text and data: the story's 65 % read-cache hit rate); the disk is busy (its IRQ and BLOCK
softirq rates triple; pgpgin/pgpgout up); PSI memory some ~31 % full ~14 %, io some ~38 % full
~22 %; run queue 3 with 2 blocked (sar -q 2.0-2.7 with swapped-out runnable processes).
"""
from _common import background, host, legacy_lines, line, merge, phase

VARIANTS = ("2cpu",)


def cpu_phase(modes_by_cpu, disk_rate):
    busy = {c: (100 - m.get("idle", 0) - m.get("iowait", 0)) / 100.0 for c, m in modes_by_cpu.items()}
    irqs, soft = background(busy)
    irqs = merge(irqs, {"virtio1-req.0": disk_rate, "virtio2-input.0": 90, "virtio2-output.0": 60})
    soft = merge(soft, {"BLOCK": {"1": disk_rate}, "NET_RX": {"0": 90}, "NET_TX": {"1": 4}})
    return {"cpu": {str(c): m for c, m in modes_by_cpu.items()}, "irqs": irqs, "softirqs": soft}


# /proc/diskstats for the alerts' evidence: the root disk (and its partition, which repeats it) does
# the paging, the other disk stays at 10 %, a loop device is idle.
DISKS = [{"name": "loop0", "major": 7, "minor": 0}, {"name": "vda", "major": 254, "minor": 0},
         {"name": "vda1", "major": 254, "minor": 1}, {"name": "vdb", "major": 254, "minor": 16}]


def disks(root_util, reads, writes):
    return {"vda": {"util": root_util, "reads": reads, "writes": writes},
            "vda1": {"util": root_util, "reads": reads, "writes": writes},
            "vdb": {"util": 10, "reads": 8, "writes": 2}, "loop0": {"util": 0}}


def scenario(variant="2cpu", baseline=20, incident=30, recovery=20):
    lines = legacy_lines() + [
        line(24, "ACPI:Ged", hwirq=5),
        line(36, "virtio1-req.0", chip="PCI-MSIX-0000:00:02.0", hwirq=1, cpu=1),   # the root disk
        line(38, "virtio2-input.0", chip="PCI-MSIX-0000:00:03.0", hwirq=1, cpu=0),
        line(39, "virtio2-output.0", chip="PCI-MSIX-0000:00:03.0", hwirq=2, cpu=1),
    ]
    healthy = {0: {"user": 53, "system": 25, "iowait": 2, "idle": 20},
               1: {"user": 53, "system": 25, "iowait": 2, "idle": 20}}
    swapping = {0: {"user": 32, "system": 40, "iowait": 27, "idle": 1},
                1: {"user": 30, "system": 41, "iowait": 28, "idle": 1}}
    base = phase("baseline", baseline, **cpu_phase(healthy, 160), disks=disks(12, 20, 40),
                 ctxt=3200, forks=12, procs_running=2, procs_blocked=0,
                 vmstat={"pswpin": 0, "pswpout": 0, "pgpgin": 180, "pgpgout": 420, "pgfault": 9500,
                         "pgmajfault": 1.5, "workingset_refault_file": 4, "workingset_refault_anon": 0,
                         "allocstall_normal": 0},
                 meminfo={"MemFree": 96000, "MemAvailable": 412000, "Cached": 318000, "Buffers": 21000,
                          "Dirty": 1800, "SwapCached": 4200},
                 psi={"cpu": {"some": 12.0}, "memory": {"some": 0.3, "full": 0.1},
                      "io": {"some": 2.5, "full": 1.0}},
                 expect={"cpu.all.user": 53, "cpu.all.system": 25, "cpu.all.iowait": 2, "cpu.all.idle": 20})
    disk_checks = [["disks.status", "==", "ok"], ["disks.top.0.name", "==", "vda"],
                   ["disks.top.0.utilization_percent", ">=", 75], ["disks.top.0.writes_per_second", ">=", 100],
                   ["disks.top.*.name", "excludes", "vda1"], ["disks.top.*.name", "excludes", "loop0"],
                   ["description", "~", "Busiest disk: vda"]]
    inc = phase("incident", incident, alerts=["MemorySwapping", "IoWaitHigh"], **cpu_phase(swapping, 520),
                disks=disks(86, 110, 160), evidence={"MemorySwapping": disk_checks, "IoWaitHigh": disk_checks},
                ctxt=5200, forks=6, procs_running=3, procs_blocked=2,
                vmstat={"pswpin": [0.5, 1.2], "pswpout": [19, 37], "pgpgin": 1100, "pgpgout": 980,
                        "pgfault": 6200, "pgmajfault": 140, "workingset_refault_file": 210,
                        "workingset_refault_anon": 1.0, "allocstall_normal": 6},
                meminfo={"MemFree": 14200, "MemAvailable": [98000, 41000], "Cached": [190000, 96000],
                         "Buffers": [12000, 6000], "Dirty": 9000, "SwapCached": 16000},
                psi={"cpu": {"some": 20.0}, "memory": {"some": 31.0, "full": 14.0},
                     "io": {"some": 38.0, "full": 22.0}},
                expect={"cpu.all.user": 31, "cpu.all.system": 40.5, "cpu.all.iowait": 27.5,
                        "cpu.all.idle": 1, "swap_out": 28, "swap_in": 0.85, "mem.free": 13.9})
    rec = phase("recovery", recovery, **cpu_phase(healthy, 200), disks=disks(20, 40, 50),
                ctxt=3200, forks=12, procs_running=2, procs_blocked=0,
                vmstat={"pswpin": 0.3, "pswpout": 0, "pgpgin": 300, "pgpgout": 500, "pgfault": 9500,
                        "pgmajfault": 4, "workingset_refault_file": 12, "workingset_refault_anon": 0.2,
                        "allocstall_normal": 0},
                meminfo={"MemFree": 61000, "MemAvailable": [140000, 260000], "Cached": [96000, 210000],
                         "Buffers": [6000, 15000], "Dirty": 2000, "SwapCached": 15000},
                psi={"cpu": {"some": 12.0}, "memory": {"some": 2.0, "full": 0.5},
                     "io": {"some": 5.0, "full": 2.0}})
    h = host(2, lines, mem_total_kb=987384, swap_total_kb=1048572, disks=DISKS)
    h["meminfo"]["SwapFree"] = 786000  # a quarter of the swap already in use before the incident
    return {"name": "incident4_swapping", "host": h, "phases": [base, inc, rec]}
