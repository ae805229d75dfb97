"""INCIDENTS.md #3, "network interrupts pausing" (InterruptRateDrop).

A 1-CPU server receiving a netperf TCP_STREAM at ~580 Mbit/s on a NIC that takes one interrupt per
packet (no NAPI): vmstat's `in` 53 000-58 000/s with sy 98-99 %, id 0. Then, for a few seconds, the
interrupts pause. vmstat's "sy" is system + irq + softirq; here 41 + 9 + 48 = 98 with user 2.
Totals are /proc/stat's intr (numbered lines + local timer + IPIs):
  streaming: eth0-rx-0 54 500 + eth0-tx-0 200 + ahci 20 + LOC 250 + RES 20 + CAL 10 = 55 000/s
  4k pause:  eth0-rx-0 720 + eth0-tx-0 2 + ahci 20 + LOC 250 + RES 6 + CAL 4 = 1 002/s, sy 0, id 100
  2k pause:  eth0-rx-0 18 000 + eth0-tx-0 70 + ahci 20 + LOC 250 + RES 54 + CAL 30 = 18 424/s,
             sy 33, id 67
Context switches fall with the interrupts. The pause ("incident") lasts 6 s by default (4-8 s in the
story's vmstat, a single 4 s interval); a 15-60 s scrape averages it away, 1 s sampling does not.
Variants: 4k (the collapse to ~1 000/s), 2k (the partial drop to 18 424/s).
"""
from _common import host, legacy_lines, line, phase

VARIANTS = ("4k", "2k")

STREAM = {
    "cpu": {"0": {"user": 2, "system": 41, "irq": 9, "softirq": 48, "idle": 0}},
    "irqs": {"eth0-rx-0": 54500, "eth0-tx-0": 200, "ahci[0000:00:1f.2]": 20,
             "LOC": 250, "RES": 20, "CAL": 10},
    "softirqs": {"NET_RX": 54500, "NET_TX": 200, "BLOCK": 20, "TIMER": 250, "SCHED": 40, "RCU": 60},
    "ctxt": 9000, "procs_running": 2, "procs_blocked": 0,
    "psi": {"cpu": {"some": 18.0}, "irq": {"full": 12.0}},
}
PAUSE = {
    "4k": {
        "cpu": {"0": {"idle": 100}},
        "irqs": {"eth0-rx-0": 720, "eth0-tx-0": 2, "ahci[0000:00:1f.2]": 20, "LOC": 250, "RES": 6, "CAL": 4},
        "softirqs": {"NET_RX": 720, "NET_TX": 2, "BLOCK": 20, "TIMER": 30, "SCHED": 8, "RCU": 12},
        "ctxt": 150, "procs_running": 1,
        "psi": {"cpu": {"some": 0.0}, "irq": {"full": 0.0}},
        "expect": {"intr": 1002, "cpu.0.idle": 100, "cpu.0.busy": 0},
    },
    "2k": {
        "cpu": {"0": {"system": 14, "irq": 3, "softirq": 16, "idle": 67}},
        "irqs": {"eth0-rx-0": 18000, "eth0-tx-0": 70, "ahci[0000:00:1f.2]": 20, "LOC": 250, "RES": 54,
                 "CAL": 30},
        "softirqs": {"NET_RX": 18000, "NET_TX": 70, "BLOCK": 20, "TIMER": 110, "SCHED": 20, "RCU": 30},
        "ctxt": 3100, "procs_running": 1,
        "psi": {"cpu": {"some": 4.0}, "irq": {"full": 3.0}},
        "expect": {"intr": 18424, "cpu.0.idle": 67, "cpu.0.busy": 33},
    },
}


def scenario(variant="4k", baseline=20, incident=6, recovery=20):
    lines = legacy_lines() + [
        line(24, "ahci[0000:00:1f.2]", chip="PCI-MSI", hwirq=512000),
        line(25, "eth0-rx-0", chip="PCI-MSI", hwirq=524288),
        line(26, "eth0-tx-0", chip="PCI-MSI", hwirq=524289),
    ]
    common = {"vmstat": {"pgfault": 400, "pgpgin": 20, "pgpgout": 120},
              "meminfo": {"MemFree": 1300000, "Cached": 420000, "Buffers": 60000, "Dirty": 300}}
    base = phase("baseline", baseline, expect={"intr": 55000, "cpu.0.busy": 100}, **dict(STREAM, **common))
    inc = phase("incident", incident, alerts=["InterruptRateDrop"], **PAUSE[variant])
    rec = phase("recovery", recovery, expect={"intr": 55000}, **STREAM)
    return {
        "name": "incident3_irq_drop",
        "host": host(1, lines, mem_total_kb=2052144, swap_total_kb=2097148),
        "phases": [base, inc, rec],
    }
