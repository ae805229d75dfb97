"""INCIDENTS.md #5, "SMP lock contention" (SystemTimeHigh).

An 8-CPU server; 6 copies of a program reading one shared file one byte per read(), free to run on any
CPU: each copy user 0.72 s, sys 79 s (system time ~99 % of its busy time); a kernel profile on all CPUs
shows idle 60.7 % and the rest spinning on the buffer-cache locks. Here every CPU does system 39 %,
user 0.4 %, irq+softirq 0.2 % (idle ~60.4 %): 8 x 39.6 % = 3.2 CPUs of work, the 6 copies half
spinning, half sleeping on the lock. Context switches jump (lock sleeps and wake-ups: 6 000 -> 48 000/s,
rescheduling IPIs with them), procs_running is 6 — the contending copies — and the load average
climbs towards 6. The baseline is a modest user-space load (user 20 %, system 4 %).
"""
from _common import background, host, legacy_lines, line, merge, phase

VARIANTS = ("8cpu",)
NCPU = 8


def load(modes, ctxt, running, res_ipis=None):
    busy = sum(v for k, v in modes.items() if k not in ("idle", "iowait")) / 100.0
    irqs, soft = background({c: busy for c in range(NCPU)})
    if res_ipis:
        irqs["RES"] = {str(c): res_ipis for c in range(NCPU)}
    irqs = merge(irqs, {"eth0-TxRx-%d" % q: 300 for q in range(2)}, {"nvme0q%d" % (q + 1): 80 for q in range(2)})
    soft = merge(soft, {"NET_RX": {"0": 300, "1": 300}, "BLOCK": {"2": 80, "3": 80}})
    return {"cpu": {"*": modes}, "irqs": irqs, "softirqs": soft, "ctxt": ctxt, "procs_running": running}


# The 6 copies (/proc/PID/stat for the alert's evidence): 3.12 CPUs of system time between them, as
# the CPUs' 8 x 39 % says, user 0.5 % each. One renamed itself "read) (er": comm is any bytes.
READERS = [(4242, "reader", 62), (4243, "read) (er", 58), (4244, "reader", 54), (4245, "reader", 50),
           (4246, "reader", 46), (4247, "reader", 42)]
PROCS = [{"pid": 3100, "comm": "make", "start": 500}, {"pid": 3101, "comm": "cc1", "start": 600}] + [
    {"pid": pid, "comm": comm, "start": 9000 + pid} for pid, comm, _ in READERS]


def procs(contended):
    out = {"make": {"user": 0 if contended else 100, "system": 0 if contended else 20},
           "cc1": {"user": 0 if contended else 60, "system": 0 if contended else 12}}
    for pid, _, sys_pct in READERS:
        out[str(pid)] = {"user": 0.5, "system": sys_pct} if contended else {"user": 0, "system": 0}
    return out


def scenario(variant="8cpu", baseline=20, incident=30, recovery=20):
    lines = legacy_lines() + [
        line(40, "eth0-TxRx-0", chip="PCI-MSIX-0000:3b:00.0", hwirq=1, cpu=0),
        line(41, "eth0-TxRx-1", chip="PCI-MSIX-0000:3b:00.0", hwirq=2, cpu=1),
        line(50, "nvme0q1", chip="PCI-MSIX-0000:5e:00.0", hwirq=1, cpu=2),
        line(51, "nvme0q2", chip="PCI-MSIX-0000:5e:00.0", hwirq=2, cpu=3),
    ]
    modest = {"user": 20, "system": 4, "softirq": 0.4}
    contended = {"user": 0.4, "system": 39, "irq": 0.05, "softirq": 0.15}
    common = {"forks": 8, "procs_blocked": 0,
              "vmstat": {"pgfault": 3000, "pgpgin": 200, "pgpgout": 800, "pgmajfault": 0.3},
              "meminfo": {"MemFree": 9800000, "Cached": 12000000, "Buffers": 240000, "Dirty": 6000},
              "psi": {"cpu": {"some": 1.5}, "io": {"some": 0.3, "full": 0.1}}}
    base = phase("baseline", baseline, **load(modest, 6000, 2), procs=procs(False), **common)
    inc = phase("incident", incident, alerts=["SystemTimeHigh"], **load(contended, 48000, 6, res_ipis=1500),
                psi={"cpu": {"some": 9.0}}, procs=procs(True),
                evidence={"SystemTimeHigh": [["processes.status", "==", "ok"],
                                             ["processes.top.0.pid", "==", 4242],
                                             ["processes.top.0.comm", "==", "reader"],
                                             ["processes.top.0.system_percent_of_cpu", ">=", 55],
                                             ["processes.top.0.system_percent_of_cpu", "<=", 69],
                                             ["processes.top.1.comm", "==", "read) (er"],
                                             ["description", "~", "Most system time: reader \\(pid 4242\\)"]]},
                expect={"cpu.0.system": 39, "cpu.7.system": 39, "cpu.all.user": 0.4, "cpu.all.idle": 60.4,
                        "procs_running": 6, "ctxt": 48000})
    rec = phase("recovery", recovery, **load(modest, 6000, 2), psi={"cpu": {"some": 1.5}}, procs=procs(False))
    return {"name": "incident5_lock_contention",
            "host": host(NCPU, lines, mem_total_kb=32827460, swap_total_kb=4194300, procs=PROCS),
            "phases": [base, inc, rec]}
