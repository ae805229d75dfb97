"""INCIDENTS.md #2, "the ondemand governor starving a busy database" (CpuFrequencyLow).

16 CPUs, acpi-cpufreq, 2.0-1.2 GHz in 100 MHz steps, governor ondemand (up_threshold 95, sampling_rate
10 ms). Under the load test atop showed, as interval averages from cpufreq_stats:
  91 % busy at 1.94 GHz, 51 % at 1.52 GHz, 28 % at 1.43 GHz, all 16 CPUs 1.63 GHz.
The per-state residencies below are the ones of tests/fixtures/cpufreq/acpi-ondemand-16cpu (its
README derives them), so cpu3/cpu7/cpu12 are the 91/51/28 % CPUs and the mean is exactly 1.63 GHz;
the other CPUs' busy shares are "mixed", roughly ordered by their frequency as ondemand would leave
them. Busy = user + system + irq + softirq (no iowait), split like a database server's.
Variants:
  ondemand    — the incident: idle at ~1.22 GHz, then the load at the table's averages, then idle.
  performance — trap: the same load with the performance governor, every CPU at 2.00 GHz.
  idle        — trap: ondemand leaving idle CPUs at 1.2 GHz (and two lightly loaded ones at 1.3).
"""
from _common import ACPI_STATES_KHZ, acpi_cpufreq, background, host, legacy_lines, line, merge, phase, split_busy

VARIANTS = ("ondemand", "performance", "idle")

# Residency per CPU over 2.0 ... 1.2 GHz in 10 ms units per 10 s (the fixture README's table).
RESIDENCY = {
    0: (223, 225, 224, 195, 80, 29, 7, 1, 16),
    1: (107, 21, 66, 138, 158, 159, 159, 84, 108),
    2: (141, 77, 120, 141, 142, 142, 142, 30, 65),
    3: (717, 97, 96, 63, 20, 4, 1, 0, 2),
    4: (134, 34, 92, 148, 148, 148, 150, 62, 84),
    5: (113, 24, 72, 145, 154, 154, 156, 81, 101),
    6: (138, 138, 139, 139, 140, 139, 106, 12, 49),
    7: (84, 12, 44, 108, 170, 172, 171, 102, 137),
    8: (174, 174, 174, 175, 175, 77, 18, 4, 29),
    9: (127, 31, 85, 148, 150, 149, 149, 72, 89),
    10: (144, 48, 106, 144, 145, 146, 145, 48, 74),
    11: (107, 21, 66, 138, 158, 159, 159, 84, 108),
    12: (43, 3, 14, 50, 118, 188, 204, 157, 223),
    13: (136, 111, 134, 136, 138, 137, 136, 16, 56),
    14: (120, 27, 78, 150, 150, 151, 151, 78, 95),
    15: (113, 24, 72, 145, 154, 154, 156, 81, 101),
}
# Busy percent per CPU under the load test: 3, 7 and 12 are the incident's; the rest "mixed".
BUSY = {0: 78, 1: 44, 2: 58, 3: 91, 4: 54, 5: 48, 6: 62, 7: 51, 8: 70, 9: 53, 10: 56, 11: 42,
        12: 28, 13: 60, 14: 50, 15: 47}
IDLE_BUSY = 3  # percent, every CPU, before and after the load test


def residency(cpu):
    return {str(khz): units / 1000.0 for khz, units in zip(ACPI_STATES_KHZ, RESIDENCY[cpu])}


def irq_lines():
    lines = legacy_lines()
    for q in range(4):  # the NIC's 4 queue vectors and the NVMe's 4 queues, spread by irqbalance
        lines.append(line(40 + q, "eth0-TxRx-%d" % q, chip="PCI-MSIX-0000:3b:00.0", hwirq=q + 1, cpu=q))
        lines.append(line(50 + q, "nvme0q%d" % (q + 1), chip="PCI-MSIX-0000:5e:00.0", hwirq=q + 1,
                          cpu=4 + q))
    return lines


def load_keys(busy, freq):
    cpu = {str(c): split_busy(b) for c, b in busy.items()}
    irqs, soft = background({c: b / 100.0 for c, b in busy.items()})
    total = sum(busy.values()) / 100.0  # CPUs' worth of work: I/O grows with it
    irqs = merge(irqs, {"eth0-TxRx-%d" % q: round(180 * total) for q in range(4)},
                 {"nvme0q%d" % (q + 1): round(140 * total) for q in range(4)})
    soft = merge(soft, {"NET_RX": {str(q): round(180 * total) for q in range(4)},
                        "BLOCK": {str(4 + q): round(140 * total) for q in range(4)}})
    return {"cpu": cpu, "irqs": irqs, "softirqs": soft, "freq": freq, "ctxt": round(2500 + 4000 * total),
            "procs_running": max(1, round(total)), "forks": 3}


def scenario(variant="ondemand", baseline=20, incident=30, recovery=20):
    governor = "performance" if variant == "performance" else "ondemand"
    idle_busy = {c: IDLE_BUSY for c in range(16)}
    if governor == "performance":
        idle_freq = {"*": "max"}
        load_freq = {"*": "max"}
    else:
        # Idle under ondemand: nearly all the time at 1.2 GHz, short bursts at 2.0 (avg ~1.22 GHz).
        idle_freq = {"*": {str(ACPI_STATES_KHZ[0]): 0.03, str(ACPI_STATES_KHZ[-1]): 0.97}}
        load_freq = {str(c): residency(c) for c in range(16)}
    common = {"vmstat": {"pgfault": 2500, "pgmajfault": 0.5, "pgpgin": 9000, "pgpgout": 4000,
                         "workingset_refault_file": 2},
              "meminfo": {"MemFree": 8200000, "Cached": 44000000, "Buffers": 310000, "Dirty": 52000},
              "psi": {"cpu": {"some": 0.5}, "io": {"some": 1.0, "full": 0.5}}}
    base = phase("baseline", baseline, **merge(load_keys(idle_busy, idle_freq), common))
    if variant == "idle":
        light = {**idle_busy, 0: 1, 2: 1, 4: 1, 5: 15, 9: 15}
        light_freq = {**idle_freq, "5": 1300000, "9": 1300000}
        inc = phase("incident", incident, **load_keys(light, light_freq))
        inc["expect"] = {"freq.0.avg_mhz": 1224, "freq.5.avg_mhz": 1300, "cpu.5.busy": 15}
    else:
        inc = phase("incident", incident, alerts=["CpuFrequencyLow"] if governor == "ondemand" else [],
                    **load_keys(BUSY, load_freq))
        inc["psi"] = {"cpu": {"some": 4.0}}
        if governor == "ondemand":
            inc["evidence"] = {"CpuFrequencyLow": [["tunables.status", "==", "ok"],
                                                   ["tunables.up_threshold_percent", "==", 95],
                                                   ["tunables.sampling_rate_us", "==", 10000],
                                                   ["reference", "==", "cpuinfo_max_freq"],
                                                   ["description", "~", "up_threshold is 95%"],
                                                   ["description", "~", "cpupower frequency-set -g performance"]]}
            inc["expect"] = {"cpu.3.busy": 91, "cpu.7.busy": 51, "cpu.12.busy": 28,
                             "freq.3.avg_mhz": 1940, "freq.7.avg_mhz": 1520, "freq.12.avg_mhz": 1430,
                             "freq.all.avg_mhz": 1630}
        else:
            inc["expect"] = {"cpu.3.busy": 91, "freq.3.avg_mhz": 2000, "freq.12.avg_mhz": 2000,
                             "freq.all.avg_mhz": 2000}
    rec = phase("recovery", recovery, **load_keys(idle_busy, idle_freq))
    rec["psi"] = {"cpu": {"some": 0.5}}
    return {
        "name": "incident2_ondemand",
        "host": host(16, irq_lines(), mem_total_kb=65829916, swap_total_kb=8388604,
                     cpufreq=acpi_cpufreq(governor)),
        "phases": [base, inc, rec],
    }
