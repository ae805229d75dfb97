"""Traps: healthy machines that only look like an incident, and tree changes a sampler must survive.
Every variant must fire nothing (each phase's "alerts" is empty).

  user_ramp        4 CPUs at full frequency (performance governor) ramping user time 10 -> 95 %:
                   busy, but in user space, at 100 % of max — not #1, #2 or #5.
  irq_spike        2 CPUs; one sample's worth (param spike, default 1 s = one sample at the
                   production 1 s interval) of 60 % softirq on CPU 0 with a NET_RX burst: not #1.
  cpu_hotplug      4 CPUs with cpufreq; CPU 1 goes offline a quarter into the incident phase and
                   comes back at three quarters with its counters reset (param reset: "idle" — the
                   NO_HZ idle/iowait restart of kernels before the 2024 tick-sched fix — or "all");
                   its line, its /proc/interrupts column and its cpufreq link vanish meanwhile; the
                   per-CPU interrupt total drops and no rate may turn into a jump.
  pressure_io_gone /proc/pressure/io removed a quarter in and restored at three quarters.
  new_irq          a new IRQ line (a hot-plugged NVMe queue, 3 000/s) appears mid-incident: the
                   total rises but nothing dropped.
  counter_reset    every counter of the tree restarts from zero mid-incident (a restored VM
                   snapshot, a fixture rewound): one reset per counter, never a huge rate.
  intel_turbo      4 CPUs under intel_pstate (no time_in_state; scaling_cur_freq is the average),
                   cpuinfo_max_freq 4.7 GHz (single-core turbo), base_frequency 2.9 GHz. Busy at 90 %
                   at the all-core turbo of 3.8 GHz: 81 % of max, but above base — not #2.
"""
from _common import acpi_cpufreq, background, host, legacy_lines, line, merge, phase

VARIANTS = ("user_ramp", "irq_spike", "cpu_hotplug", "pressure_io_gone", "new_irq", "counter_reset",
            "intel_turbo")

# intel_pstate in active mode, as tests/fixtures/cpufreq/intel-pstate-4cpu: its own powersave
# governor, HWP energy preference, no stats/.
INTEL_PSTATE = {"driver": "intel_pstate", "governor": "powersave", "stats": False,
                "states_khz": [4700000, 3800000, 2900000, 800000], "base_khz": 2900000,
                "epp": "balance_performance", "available_governors": "performance powersave",
                "transition_latency": 0, "tunables": {}}


def steady(ncpu, modes, nic_rate=400, disk_rate=120):
    busy = sum(v for k, v in modes.items() if k not in ("idle", "iowait")) / 100.0
    irqs, soft = background({c: busy for c in range(ncpu)})
    irqs = merge(irqs, {"eth0-rx-0": nic_rate, "virtio1-req.0": disk_rate})
    soft = merge(soft, {"NET_RX": {"0": nic_rate}, "BLOCK": {str(ncpu - 1): disk_rate}})
    return {"cpu": {"*": modes}, "irqs": irqs, "softirqs": soft, "ctxt": 2500, "forks": 4,
            "procs_running": max(1, round(busy * ncpu)), "procs_blocked": 0,
            "vmstat": {"pgfault": 1500, "pgpgin": 60, "pgpgout": 300, "pgmajfault": 0.2,
                       "workingset_refault_file": 0.5},
            "meminfo": {"MemFree": 2400000, "Cached": 3100000, "Buffers": 90000, "Dirty": 3000},
            "psi": {"cpu": {"some": 1.0}, "memory": {"some": 0.0}, "io": {"some": 0.5, "full": 0.2},
                    "irq": {"full": 0.1}}}


def lines_for(ncpu):
    return legacy_lines() + [
        line(24, "eth0-rx-0", chip="PCI-MSIX-0000:00:04.0", hwirq=1, cpu=0),
        line(25, "virtio1-req.0", chip="PCI-MSIX-0000:00:02.0", hwirq=1, cpu=ncpu - 1),
    ]


def scenario(variant="user_ramp", baseline=20, incident=30, recovery=20, spike=1.0, reset="idle"):
    light = {"user": 10, "system": 3, "softirq": 0.2}
    ncpu, cpufreq = 4, None
    inc_keys, events, expect = {}, [], {}
    if variant == "user_ramp":
        cpufreq = acpi_cpufreq("performance")
        inc_keys = steady(ncpu, {"user": 95, "system": 3, "softirq": 0.2})
        inc_keys.update(cpu={"*": {"user": [10, 95], "system": 3, "softirq": 0.2}}, procs_running=4,
                        psi={"cpu": {"some": 3.0}})
        expect = {"freq.all.avg_mhz": 2000, "cpu.all.system": 3}
    elif variant == "irq_spike":
        ncpu = 2
        events = [{"at": incident / 2.0, "type": "spike", "duration": spike,
                   "cpu": {"0": {"softirq": 60}}, "softirqs": {"NET_RX": {"0": 30000}},
                   "irqs": {"eth0-rx-0": 8000}}]
        # The sample(s) covering the spike see it; none shows more than the spike itself.
        expect = {"max:cpu.0.softirq": [20, 70]}  # quantised: 1 tick of 20 is 5 %
    elif variant == "cpu_hotplug":
        cpufreq = acpi_cpufreq("ondemand")
        events = [{"at": incident * 0.25, "type": "cpu_offline", "cpu": 1},
                  {"at": incident * 0.75, "type": "cpu_online", "cpu": 1, "reset": reset}]
    elif variant == "pressure_io_gone":
        events = [{"at": incident * 0.25, "type": "remove", "path": "proc/pressure/io"},
                  {"at": incident * 0.75, "type": "restore", "path": "proc/pressure/io"}]
    elif variant == "new_irq":
        events = [{"at": incident * 0.4, "type": "add_irq",
                   "line": line(60, "nvme1q1", chip="PCI-MSIX-0000:00:07.0", hwirq=1, cpu=2)}]
        inc_keys = {"irqs": {"nvme1q1": 3000}}  # counts only once the line exists
    elif variant == "counter_reset":
        events = [{"at": incident * 0.5, "type": "reset"}]
    elif variant == "intel_turbo":
        cpufreq = dict(INTEL_PSTATE)
        inc_keys = steady(ncpu, {"user": 85, "system": 5, "softirq": 0.2})
        inc_keys.update(freq={"*": 3800000}, procs_running=4)
        expect = {"cpu.all.user": 85}
    else:
        raise ValueError("no variant %r" % variant)
    base = phase("baseline", baseline, **steady(ncpu, light))
    inc = phase("incident", incident, events=events, **inc_keys)
    if expect:
        inc["expect"] = expect
    rec = phase("recovery", recovery, **steady(ncpu, light))
    return {"name": "traps", "host": host(ncpu, lines_for(ncpu), mem_total_kb=8135700, swap_total_kb=2097148,
                                          cpufreq=cpufreq),
            "phases": [base, inc, rec]}
