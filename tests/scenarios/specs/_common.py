"""_common.py — building blocks the scenario specs share: x86 hosts with IRQ lines laid out like the
captures in tests/fixtures/kernels, background interrupt and softirq rates that follow CPU load,
CPU mode maps, and an acpi-cpufreq host like tests/fixtures/cpufreq/acpi-ondemand-16cpu.

Numbers here are per second (rates) or kB (memory), as pwscenario.py expects."""

# P-states of the incident-2 host: 2.0 GHz down to 1.2 GHz in 100 MHz steps, fastest first (ACPI _PSS).
ACPI_STATES_KHZ = [2000000 - 100000 * i for i in range(9)]


def line(irq, device, chip="IO-APIC", hwirq=None, handler="edge", cpu=0, cpus=None):
    """One numbered /proc/interrupts line; cpu/cpus is where it lands (its effective affinity)."""
    out = {"irq": irq, "device": device, "chip": chip, "hwirq": irq if hwirq is None else hwirq,
           "handler": handler}
    out["cpus"] = cpus if cpus is not None else [cpu]
    return out


def legacy_lines():
    """The ISA/ACPI lines every x86 box prints, mostly silent."""
    return [
        line(0, "timer", hwirq=2),
        line(1, "i8042", hwirq=1),
        line(8, "rtc0", hwirq=8),
        line(9, "acpi", hwirq=9, handler="fasteoi"),
        line(12, "i8042", hwirq=12),
    ]


def host(ncpu, irqs, mem_total_kb, swap_total_kb=0, cpufreq=None, **extra):
    out = {
        "ncpu": ncpu,
        "user_hz": 100,
        "page_kb": 4,
        "uptime": 3 * 86400 + 4 * 3600,
        "irqs": irqs,
        "meminfo": {"MemTotal": mem_total_kb, "SwapTotal": swap_total_kb, "SwapFree": swap_total_kb},
        "cpufreq": cpufreq,
        "threads": 150 + 14 * ncpu,
    }
    out.update(extra)
    return out


def acpi_cpufreq(governor="ondemand", states=ACPI_STATES_KHZ):
    return {"driver": "acpi-cpufreq", "governor": governor, "states_khz": list(states), "stats": True,
            "transition_latency": 10000,
            "tunables": {"ignore_nice_load": 0, "io_is_busy": 0, "powersave_bias": 0,
                         "sampling_down_factor": 1, "sampling_rate": 10000, "up_threshold": 95}}


def background(busy, hz=250):
    """Arch IRQ and softirq rates per CPU for busy fractions {cpu: 0..1}: the local timer ticks at HZ
    while a CPU works and mostly stops in NO_HZ idle; IPIs and the scheduler's softirqs follow load.
    Returns (irqs, softirqs) maps of {"N": rate} to merge into a phase."""
    irqs = {"LOC": {}, "RES": {}, "CAL": {}, "TLB": {}}
    soft = {"TIMER": {}, "SCHED": {}, "RCU": {}}
    for cpu, b in busy.items():
        key = str(cpu)
        loc = round(20 + hz * b)
        irqs["LOC"][key] = loc
        irqs["RES"][key] = round(8 + 60 * b)
        irqs["CAL"][key] = round(4 + 20 * b)
        irqs["TLB"][key] = round(1 + 6 * b)
        soft["TIMER"][key] = round(0.4 * loc)
        soft["SCHED"][key] = round(10 + 80 * b)
        soft["RCU"][key] = round(15 + 60 * b)
    return irqs, soft


def split_busy(busy_pct, user=0.78, system=0.18, softirq=0.03, irq=0.01, iowait=0.0):
    """A CPU mode map for busy_pct percent busy, split the way a database server's busy time is."""
    return {"user": busy_pct * user, "system": busy_pct * system, "softirq": busy_pct * softirq,
            "irq": busy_pct * irq, "iowait": iowait}


def merge(*maps):
    out = {}
    for m in maps:
        for k, v in m.items():
            if isinstance(v, dict) and isinstance(out.get(k), dict):
                out[k] = dict(out[k], **v)
            else:
                out[k] = v
    return out


def phase(name, duration, alerts=(), **keys):
    """A phase dict; alerts names the detector rules that should fire in it (metadata for the
    detector's tests, ignored by the driver)."""
    out = {"name": name, "duration": duration, "alerts": list(alerts)}
    out.update(keys)
    return out
