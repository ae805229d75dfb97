"""INCIDENTS.md #1, "interrupt time that no process accounts for" (InterruptTimeHigh), on Linux terms.

The call-centre server's kernel profile in the incident: kernel 28.5 % (of which deferred interrupt
work 22.9 % and interrupt 0.2 %), user 7.5 %, idle 64.0 %, at 1 063 interrupts/s — an ordinary rate.
On Linux the deferred work is softirq time (here TASKLET, raised by a power-management driver, plus
some TIMER), the interrupt time is the irq column, and what is left of the kernel's 28.5 % is system
time: 28.5 - 22.9 - 0.2 = 5.4 %. Nothing in the interrupt *count* changes: 1 063/s before, during and
after. Variants:
  1cpu — the incident host: 1 CPU, 1 GB.
  4cpu — the same load on 4 CPUs with the softirq time on CPU 0 only: the host-wide softirq share
         is only ~5.8 %, so only a per-CPU view sees it.
"""
from _common import background, host, legacy_lines, line, merge, phase

VARIANTS = ("1cpu", "4cpu")

BASE_MODES = {"user": 7.5, "system": 10.0, "irq": 0.1, "softirq": 0.2}          # irq+softirq 0.3 %
INCIDENT_MODES = {"user": 7.5, "system": 5.4, "irq": 0.2, "softirq": 22.9}      # idle 64.0 %
OTHER_CPU_MODES = {"user": 4.0, "system": 3.0, "softirq": 0.1}


def irq_lines(ncpu):
    lines = legacy_lines() + [
        line(16, "ehci_hcd:usb1", handler="fasteoi"),
        line(24, "ahci[0000:00:1f.2]", chip="PCI-MSI", hwirq=512000, cpu=min(1, ncpu - 1)),
        line(25, "eth0", chip="PCI-MSI", hwirq=524288, cpu=0),   # the VoIP traffic
    ]
    return lines


def scenario(variant="1cpu", baseline=20, incident=30, recovery=20):
    ncpu = 1 if variant == "1cpu" else 4
    # 1 063/s on the 1-CPU host: eth0 700 + ahci 40 + acpi 3 + usb 2 + LOC 250 + RES 40 + CAL 20
    # + TLB 5 + IWI 3. The 4-CPU host adds the other CPUs' (mostly idle, NO_HZ) local timers and IPIs.
    irqs = {"eth0": 700, "ahci[0000:00:1f.2]": 40, "acpi": 3, "ehci_hcd:usb1": 2,
            "LOC": {"0": 250}, "RES": {"0": 40}, "CAL": {"0": 20}, "TLB": {"0": 5}, "IWI": {"0": 3}}
    soft = {"NET_RX": {"0": 700}, "NET_TX": {"0": 5}, "BLOCK": {str(min(1, ncpu - 1)): 40},
            "TIMER": {"0": 100}, "SCHED": {"0": 60}, "RCU": {"0": 80}, "TASKLET": {"0": 1}}
    cpu_base = {"0": BASE_MODES}
    cpu_incident = {"0": INCIDENT_MODES}
    if ncpu > 1:
        bg_irqs, bg_soft = background({c: 0.07 for c in range(1, ncpu)})
        irqs = merge(irqs, bg_irqs)
        soft = merge(soft, bg_soft)
        cpu_base["*"] = cpu_incident["*"] = OTHER_CPU_MODES
    # The tasklet storm: ~250 runs/s of ~0.9 ms each on CPU 0, the timer softirq busier too.
    soft_incident = {"TASKLET": dict(soft["TASKLET"], **{"0": 250}),
                     "TIMER": dict(soft["TIMER"], **{"0": 180})}
    common = {"ctxt": 4736, "forks": 2, "procs_running": 1, "procs_blocked": 0,
              "vmstat": {"pgfault": 931, "pgmajfault": 0.2, "pgpgin": 40, "pgpgout": 160,
                         "pswpin": 0, "pswpout": 0, "workingset_refault_file": 0.5},
              "meminfo": {"MemFree": 412000, "Cached": 301000, "Buffers": 25400, "Dirty": 900}}
    procs_base = {"asterisk": {"user": 6.0, "system": 8.0}, "rsyslogd": {"user": 0.5, "system": 0.8}}
    base = phase("baseline", baseline, cpu=cpu_base, irqs=irqs, softirqs=soft, procs=procs_base,
                 psi={"cpu": {"some": 1.2}, "memory": {"some": 0.0}, "io": {"some": 0.4, "full": 0.2},
                      "irq": {"full": 0.1}},
                 expect={"intr": 1063} if ncpu == 1 else {}, **common)
    # The VoIP traffic a little up and the rescheduling IPIs down by as much: the count stays 1 063/s,
    # and eth0 is the line that rose most, so the evidence names it with its affinity.
    irqs_incident = {"eth0": 720, "RES": {"0": 20}}
    # The processes (/proc/PID/stat): ~0.1 CPU between them against ~0.23 in handlers on CPU 0.
    procs_incident = {"asterisk": {"user": 6.0, "system": 3.0}, "rsyslogd": {"user": 0.5, "system": 0.8}}
    inc = phase("incident", incident, alerts=["InterruptTimeHigh"], cpu=cpu_incident, irqs=irqs_incident,
                softirqs=soft_incident, psi={"cpu": {"some": 6.0}, "irq": {"full": 8.0}}, procs=procs_incident,
                evidence={"InterruptTimeHigh": [["lines.0.irq", "==", "25"],
                                                ["lines.0.smp_affinity_list", "==", "0"],
                                                ["processes.status", "==", "ok"],
                                                ["processes.top.0.comm", "==", "asterisk"],
                                                ["processes.system_cpus", "<=", 0.06],
                                                ["processes.host_interrupt_cpus", ">=", 0.15],
                                                ["description", "~", "Processes account for 0\\.[01]"]]},
                expect=dict({"cpu.0.softirq": 22.9, "cpu.0.irq": 0.2, "cpu.0.user": 7.5,
                             "cpu.0.system": 5.4, "cpu.0.idle": 64.0},
                            **({"intr": 1063} if ncpu == 1 else {})))
    rec = phase("recovery", recovery, cpu=cpu_base, softirqs=soft, irqs={"eth0": 700, "RES": {"0": 40}},
                procs=procs_base,
                psi={"cpu": {"some": 1.2}, "irq": {"full": 0.1}})
    return {
        "name": "incident1_irq_time",
        "host": host(ncpu, irq_lines(ncpu), mem_total_kb=1014048, swap_total_kb=2097148,
                     procs=[{"pid": 811, "comm": "asterisk"}, {"pid": 402, "comm": "rsyslogd"}]),
        "phases": [base, inc, rec],
    }
