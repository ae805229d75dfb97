#!/usr/bin/env python3
"""make_big_tree.py — a synthetic procfs/sysfs tree of a big host, for bench/run.sh.

Writes DIR/proc/{stat,interrupts,softirqs,vmstat,meminfo,loadavg,pressure/{cpu,memory,io,irq}}
and DIR/sys/devices/system/cpu/{online,possible,present,kernel_max} for N CPUs and M interrupt
lines, in the layouts Linux 6.x prints (column widths of show_interrupts() and show_softirqs(),
the /proc/stat line order), with deterministic pseudo-random counters of realistic magnitude so the
files have the sizes a real host's have. --cpufreq adds a cpuN/cpufreq directory per CPU
(scaling_cur_freq, scaling_governor, stats/time_in_state with 16 P-states, cpuinfo_{min,max}_freq,
scaling_driver, and what node_exporter's cpufreq collector also reads).

M counts every line of /proc/interrupts below the header: M - 19 numbered device lines (IO-APIC,
PCI-MSI-X) then the 19 x86 architecture lines (NMI, LOC, ... PIW), so a file of 1000 lines is
what "1000 IRQ lines" means here.

vmstat and meminfo do not grow with the host; they are copied from --like (default /proc) when
readable, else generated.

Usage: make_big_tree.py --cpus 256 --lines 1000 [--cpufreq] [--seed 1] DIR
"""
import argparse
import os
import random
import shutil

ARCH_LINES = [
    ("NMI", "Non-maskable interrupts"), ("LOC", "Local timer interrupts"),
    ("SPU", "Spurious interrupts"), ("PMI", "Performance monitoring interrupts"),
    ("IWI", "IRQ work interrupts"), ("RTR", "APIC ICR read retries"),
    ("RES", "Rescheduling interrupts"), ("CAL", "Function call interrupts"),
    ("TLB", "TLB shootdowns"), ("TRM", "Thermal event interrupts"),
    ("THR", "Threshold APIC interrupts"), ("DFR", "Deferred Error APIC interrupts"),
    ("MCE", "Machine check exceptions"), ("MCP", "Machine check polls"),
    ("ERR", None), ("MIS", None),
    ("PIN", "Posted-interrupt notification event"), ("NPI", "Nested posted-interrupt event"),
    ("PIW", "Posted-interrupt wakeup event"),
]
SOFTIRQS = ["HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"]


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def counter(rng, scale):
    """A counter value: mostly large, some zero, as on a long-running host."""
    r = rng.random()
    if r < 0.3:
        return 0
    if r < 0.5:
        return rng.randrange(1, 1000)
    return rng.randrange(1000, scale)


def interrupts(rng, ncpu, nlines):
    prec = len(str(max(nlines, 1000)))  # kernel: width of the largest IRQ number, at least 3
    out = [" " * (prec + 2) + "".join(f"CPU{c:<8d}" for c in range(ncpu)) + "\n"]
    numbered = max(nlines - len(ARCH_LINES), 0)
    per_cpu_totals = [0] * ncpu
    irq_counts = []
    for i in range(numbered):
        irq = i if i < 24 else 24 + i
        counts = [counter(rng, 10**8) if rng.random() < 0.2 else 0 for _ in range(ncpu)]
        for c, v in enumerate(counts):
            per_cpu_totals[c] += v
        irq_counts.append((irq, sum(counts)))
        if i < 24:
            chip = f"  IO-APIC  {i:>3}-edge      "
            dev = "timer" if i == 0 else f"ttyS{i}"
        else:
            chip = f"  PCI-MSIX-0000:{(i // 64) + 1:02x}:00.0 {i % 64:>3}-edge      "
            dev = f"nvme{i // 64}q{i % 64}" if i % 2 else f"mlx5_comp{i % 64}@pci:0000:{(i // 64) + 1:02x}:00.0"
        out.append(f"{irq:>{prec}}: " + "".join(f"{v:10d} " for v in counts) + chip + dev + "\n")
    for name, desc in ARCH_LINES[: min(len(ARCH_LINES), nlines)]:
        if desc is None:
            out.append(f"{name:>{prec}}: {rng.randrange(0, 10):10d}\n")
        else:
            counts = [counter(rng, 10**9) for _ in range(ncpu)]
            out.append(f"{name:>{prec}}: " + "".join(f"{v:10d} " for v in counts) + "  " + desc + "\n")
    return "".join(out), irq_counts


def stat(rng, ncpu, irq_counts, softirq_totals):
    out = []
    rows = []
    for _ in range(ncpu):
        user, system, idle = rng.randrange(10**6, 10**8), rng.randrange(10**5, 10**7), rng.randrange(10**8, 10**9)
        rows.append([user, rng.randrange(0, 10**4), system, idle, rng.randrange(0, 10**6), 0,
                     rng.randrange(0, 10**5), rng.randrange(0, 10**4), 0, 0])
    total = [sum(col) for col in zip(*rows)]
    out.append("cpu  " + " ".join(map(str, total)) + "\n")
    for c, r in enumerate(rows):
        out.append(f"cpu{c} " + " ".join(map(str, r)) + "\n")
    nr_irqs = (max(i for i, _ in irq_counts) + 1) if irq_counts else 16
    per_irq = [0] * nr_irqs
    for irq, n in irq_counts:
        per_irq[irq] = n
    out.append(f"intr {sum(per_irq)} " + " ".join(map(str, per_irq)) + "\n")
    out.append(f"ctxt {rng.randrange(10**9, 10**11)}\n")
    out.append("btime 1796065472\n")
    out.append(f"processes {rng.randrange(10**5, 10**7)}\n")
    out.append(f"procs_running {rng.randrange(1, ncpu + 1)}\nprocs_blocked 0\n")
    out.append(f"softirq {sum(softirq_totals)} " + " ".join(map(str, softirq_totals)) + "\n")
    return "".join(out)


def softirqs(rng, ncpu):
    out = [" " * 20 + "".join(f"CPU{c:<8d}" for c in range(ncpu)) + "\n"]
    totals = []
    for name in SOFTIRQS:
        counts = [counter(rng, 10**9) for _ in range(ncpu)]
        totals.append(sum(counts))
        out.append(f"{name:>12}:" + "".join(f" {v:10d}" for v in counts) + "\n")
    return "".join(out), totals


def pressure(rng, full=True):
    def line(kind):
        a = [rng.random() * 5 for _ in range(3)]
        return f"{kind} avg10={a[0]:.2f} avg60={a[1]:.2f} avg300={a[2]:.2f} total={rng.randrange(10**6, 10**10)}\n"
    return line("some") + (line("full") if full else "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")


def copy_or_make(like, name, fallback):
    try:
        with open(os.path.join(like, name)) as f:
            return f.read()
    except OSError:
        return fallback


def cpufreq(root, ncpu, rng):
    states = [800000 + i * 200000 for i in range(16)]
    for c in range(ncpu):
        d = f"sys/devices/system/cpu/cpu{c}/cpufreq/"
        cur = rng.choice(states)
        files = {
            "scaling_cur_freq": f"{cur}\n", "cpuinfo_cur_freq": f"{cur}\n",
            "scaling_governor": "schedutil\n", "scaling_driver": "acpi-cpufreq\n",
            "scaling_available_governors": "conservative ondemand userspace powersave performance schedutil\n",
            "cpuinfo_min_freq": f"{states[0]}\n", "cpuinfo_max_freq": f"{states[-1]}\n",
            "scaling_min_freq": f"{states[0]}\n", "scaling_max_freq": f"{states[-1]}\n",
            "scaling_setspeed": "<unsupported>\n",
            "cpuinfo_transition_latency": "10000\n", "related_cpus": f"{c}\n", "affected_cpus": f"{c}\n",
            "stats/time_in_state": "".join(f"{s} {rng.randrange(0, 10**8)}\n" for s in states),
            "stats/total_trans": f"{rng.randrange(10**5, 10**7)}\n",
        }
        for name, text in files.items():
            write(root, d + name, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cpus", type=int, required=True)
    ap.add_argument("--lines", type=int, required=True, help="lines of /proc/interrupts below the header")
    ap.add_argument("--cpufreq", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--like", default="/proc", help="where vmstat and meminfo are copied from")
    ap.add_argument("dir")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    if os.path.exists(a.dir):
        shutil.rmtree(a.dir)
    intr, irq_counts = interrupts(rng, a.cpus, a.lines)
    sirq, sirq_totals = softirqs(rng, a.cpus)
    write(a.dir, "proc/interrupts", intr)
    write(a.dir, "proc/softirqs", sirq)
    write(a.dir, "proc/stat", stat(rng, a.cpus, irq_counts, sirq_totals))
    write(a.dir, "proc/vmstat", copy_or_make(a.like, "vmstat", "nr_free_pages 1000\npgfault 1\npgmajfault 1\n"))
    write(a.dir, "proc/meminfo", copy_or_make(a.like, "meminfo", "MemTotal: 1000 kB\nMemFree: 100 kB\n"))
    write(a.dir, "proc/loadavg", f"{a.cpus * 0.1:.2f} {a.cpus * 0.1:.2f} {a.cpus * 0.1:.2f} 3/{a.cpus * 40} 12345\n")
    for res in ("cpu", "memory", "io", "irq"):
        write(a.dir, f"proc/pressure/{res}", pressure(rng, full=res != "cpu") if res != "irq"
              else "full avg10=0.00 avg60=0.00 avg300=0.00 total=12345\n")
    cpus = f"0-{a.cpus - 1}\n" if a.cpus > 1 else "0\n"
    for name in ("online", "possible", "present"):
        write(a.dir, f"sys/devices/system/cpu/{name}", cpus)
    write(a.dir, "sys/devices/system/cpu/kernel_max", "8191\n")
    write(a.dir, "sys/devices/system/cpu/offline", "\n")
    if a.cpufreq:
        cpufreq(a.dir, a.cpus, rng)
    size = sum(os.path.getsize(os.path.join(a.dir, "proc", f)) for f in ("stat", "interrupts", "softirqs"))
    print(f"{a.dir}: {a.cpus} CPUs, {a.lines} interrupt lines, stat+interrupts+softirqs {size} bytes")


if __name__ == "__main__":
    main()
