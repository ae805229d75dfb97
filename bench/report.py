#!/usr/bin/env python3
"""report.py — turn bench/run.sh's raw.tsv into the Markdown tables of docs/performance.md.

raw.tsv holds "metric<TAB>repetition<TAB>value" lines (repetition 0: measured once). Each figure is
shown as min / median / max over the repetitions (one number when measured once); ratios are
computed per repetition where both sides were measured in the same window, else from medians.

Usage: report.py RAW_TSV [MACHINE_TXT]
"""
import collections
import math
import statistics
import sys


def load(path):
    data = collections.defaultdict(dict)
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3 or parts[2] in ("", "nan"):
                continue
            try:
                data[parts[0]][int(parts[1])] = float(parts[2])
            except ValueError:
                continue
    return data


D = {}


def vals(name):
    return [v for _, v in sorted(D.get(name, {}).items())]


def med(name):
    v = vals(name)
    return statistics.median(v) if v else math.nan


def fmt(x, digits=None):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if digits is None and x == int(x) and abs(x) < 1e15:
        digits = 0
    if digits is None:
        a = abs(x)
        digits = 0 if a >= 100 else 1 if a >= 10 else 2 if a >= 1 else 3
    return f"{x:,.{digits}f}"


def mmm(name, digits=None):
    v = vals(name)
    if not v:
        return "—"
    if len(v) == 1:
        return fmt(v[0], digits)
    return f"{fmt(min(v), digits)} / **{fmt(statistics.median(v), digits)}** / {fmt(max(v), digits)}"


def ratio_per_rep(a, b):
    """a/b per repetition present in both: (min, median, max) or None."""
    da, db = D.get(a, {}), D.get(b, {})
    r = [da[k] / db[k] for k in sorted(set(da) & set(db)) if db[k]]
    if not r:
        return None
    return min(r), statistics.median(r), max(r)


def fmt_ratio(r, digits=2):
    if r is None:
        return "—"
    lo, mid, hi = r
    if lo == hi:
        return f"{mid:.{digits}f}x"
    return f"{lo:.{digits}f} / **{mid:.{digits}f}** / {hi:.{digits}f}x"


def med_ratio(a, b):
    x, y = med(a), med(b)
    return x / y if y and not math.isnan(x) and not math.isnan(y) else math.nan


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def section_a():
    print("### A. CPU per sample at a 1 s interval (µs; min / **median** / max over repetitions)\n")
    rows = [
        ["floor: pread of the same files, back to back (median iteration)", mmm("floor_b2b_cpu_us")],
        ["floor: open+read+close per file, back to back (how per-scrape collectors read)", mmm("floor_reopen_cpu_us")],
        ["**floor at 1 s**: process CPU per iteration, wake-up included", mmm("floor_1s_loop_cpu_us")],
        ["floor at 1 s: the reads alone (median iteration)", mmm("floor_1s_reads_cpu_us")],
        ["**perfwatchd, not scraped**: process CPU per sample (schedstat)", mmm("pw_idle_cpu_us_per_sample")],
        ["  sampler thread", mmm("pw_idle_sampler_us_per_sample")],
        ["  main thread (1 s tick, error report)", mmm("pw_idle_main_us_per_sample")],
        ["  detector thread (watcher), if the daemon has one", mmm("pw_idle_watcher_us_per_sample")],
        ["  HTTP thread (idle)", mmm("pw_idle_http_us_per_sample")],
        ["  same from /proc/PID/stat utime+stime (10 ms ticks: coarse)", mmm("pw_idle_ticks_us_per_sample")],
        ["  wall time per sample (perfwatch_sample_duration_seconds_total)", mmm("pw_idle_wall_us_per_sample")],
        ["**perfwatchd scraped by Prometheus at 1 s**: process CPU per sample", mmm("pw_prom_cpu_us_per_sample")],
        ["  sampler thread", mmm("pw_prom_sampler_us_per_sample")],
        ["  HTTP thread per Prometheus scrape", mmm("pw_prom_http_us_per_scrape")],
        ["node_exporter scraped by Prometheus at 1 s: CPU per second (= per scrape)", mmm("node_prom_cpu_us_per_s")],
        ["collectd (1 s reads) scraped by Prometheus at 1 s: CPU per second", mmm("collectd_prom_cpu_us_per_s")],
    ]
    print(table(["what", "µs"], rows))
    print()
    r1 = ratio_per_rep("pw_idle_cpu_us_per_sample", "floor_1s_loop_cpu_us")
    r2 = ratio_per_rep("pw_prom_cpu_us_per_sample", "floor_1s_loop_cpu_us")
    r3 = ratio_per_rep("pw_idle_sampler_us_per_sample", "floor_1s_loop_cpu_us")
    r4 = ratio_per_rep("node_prom_cpu_us_per_s", "pw_prom_cpu_us_per_sample")
    r5 = ratio_per_rep("collectd_prom_cpu_us_per_s", "pw_prom_cpu_us_per_sample")
    print(table(["ratio (per repetition, same window)", "min / **median** / max"], [
        ["perfwatchd not scraped / floor at 1 s", fmt_ratio(r1)],
        ["perfwatchd sampler thread / floor at 1 s", fmt_ratio(r3)],
        ["perfwatchd scraped at 1 s / floor at 1 s", fmt_ratio(r2)],
        ["node_exporter scraped at 1 s / perfwatchd scraped at 1 s", fmt_ratio(r4)],
        ["collectd scraped at 1 s / perfwatchd scraped at 1 s", fmt_ratio(r5)],
    ]))
    jobs = [(k[len("prom_scrape_ms_"):], v) for k, v in D.items() if k.startswith("prom_scrape_ms_")]
    if jobs:
        print("\nPrometheus' own view, average `scrape_duration_seconds` over the windows: " +
              ", ".join(f"{j} {fmt(list(v.values())[0], 2)} ms" for j, v in sorted(jobs)) +
              (f"; samples per scrape: " + ", ".join(
                  f"{k[len('prom_samples_scraped_'):]} {fmt(list(v.values())[0], 0)}"
                  for k, v in sorted(D.items()) if k.startswith("prom_samples_scraped_")) if any(
                  k.startswith("prom_samples_scraped_") for k in D) else "") + ".")
    print()


def section_b():
    targets = [("pw_idle", "perfwatchd"), ("node", "node_exporter"), ("collectd", "collectd write_prometheus")]
    targets = [(k, n) for k, n in targets if vals(f"{k}_p50_us")]
    if not targets:
        return
    print("### B. /metrics latency, sequential scrapes over loopback (µs; min / **median** / max over repetitions)\n")
    rows = []
    for key, label in [("p50_us", "p50, new connection each"), ("p90_us", "p90"), ("p99_us", "p99"),
                       ("max_us", "max"), ("cpu_us_per_scrape", "server CPU per scrape (µs)"),
                       ("ticks_us_per_scrape", "  same from utime+stime (10 ms ticks)"),
                       ("promlike_p50_us", "p50, Prometheus-like (keep-alive, gzip, OpenMetrics Accept)"),
                       ("promlike_p99_us", "p99, Prometheus-like"),
                       ("promlike_connections", "connections opened for the Prometheus-like scrapes"),
                       ("wrk_rps", "wrk -t2 -c8: requests/s"), ("wrk_p50_ms", "wrk p50 (ms)"),
                       ("wrk_p99_ms", "wrk p99 (ms)"), ("wrk_cpu_us_per_req", "server CPU per request under wrk (µs)")]:
        rows.append([label] + [mmm(f"{t}_{key}") for t, _ in targets])
    print(table(["figure"] + [n for _, n in targets], rows))
    print()
    rr = []
    for t, n in targets[1:]:
        rr.append([f"{n} p50 / perfwatchd p50", fmt_ratio(ratio_per_rep(f"{t}_p50_us", "pw_idle_p50_us"))])
        rr.append([f"{n} p50 / perfwatchd p50, Prometheus-like", fmt_ratio(ratio_per_rep(f"{t}_promlike_p50_us", "pw_idle_promlike_p50_us"))])
        rr.append([f"perfwatchd / {n} requests/s (wrk)", fmt_ratio(ratio_per_rep("pw_idle_wrk_rps", f"{t}_wrk_rps"))])
        rr.append([f"{n} / perfwatchd CPU per scrape", fmt_ratio(ratio_per_rep(f"{t}_cpu_us_per_scrape", "pw_idle_cpu_us_per_scrape"))])
    print(table(["ratio (per repetition)", "min / **median** / max"], rr))
    print()


def section_cd():
    print("### C. Memory (KiB, after the runs; one measurement)\n")
    rows = [
        ["perfwatchd (1 s, 1 h history), right after start: VmRSS", mmm("pw_idle_rss_start_kb", 0)],
        ["perfwatchd (1 s, 1 h history), after the runs: VmRSS", mmm("pw_idle_rss_kb", 0)],
        ["  of which anonymous (heap, stacks, rings, relocated data)", mmm("pw_idle_anon_kb", 0)],
        ["  of which file-backed (binary and shared libraries)", mmm("pw_idle_file_kb", 0)],
        ["  private (clean + dirty) / shared (clean + dirty)", f"{mmm('pw_idle_private_kb', 0)} / {mmm('pw_idle_shared_kb', 0)}"],
        ["  Pss", mmm("pw_idle_pss_kb", 0)],
        ["  rings (perfwatch_history_bytes), KiB", fmt(med("pw_history_bytes") / 1024, 0)],
        ["perfwatchd scraped by Prometheus: VmRSS", mmm("pw_prom_rss_kb", 0)],
        ["perfwatchd, full history (10 ms x 36 s = 3600 slots written): VmRSS at start", mmm("pw_full_rss_start_kb", 0)],
        ["  after the history ring was fully written: VmRSS", mmm("pw_full_rss_kb", 0)],
        ["  samples taken / history capacity", f"{fmt(med('pw_full_samples'), 0)} / {fmt(med('pw_full_history_capacity'), 0)}"],
        ["node_exporter: VmRSS (Pss)", f"{mmm('node_rss_kb', 0)} ({mmm('node_pss_kb', 0)})"],
        ["collectd: VmRSS (Pss)", f"{mmm('collectd_rss_kb', 0)} ({mmm('collectd_pss_kb', 0)})"],
        ["Prometheus (for scale): VmRSS", mmm("prometheus_rss_kb", 0)],
    ]
    print(table(["what", "KiB"], rows))
    print()
    targets = [("pw_idle", "perfwatchd"), ("node", "node_exporter"), ("collectd", "collectd")]
    targets = [(k, n) for k, n in targets if vals(f"{k}_series")]
    if targets:
        print("### D. What a scrape carries\n")
        rows = [[n, fmt(med(f"{k}_series"), 0), fmt(med(f"{k}_bytes_plain"), 0), fmt(med(f"{k}_bytes_gzip_sent"), 0),
                 fmt(med(f"{k}_bytes_gzip1_local"), 0)] for k, n in targets]
        print(table(["exporter", "series", "bytes, plain", "bytes sent when gzip is asked",
                     "bytes if gzip -1 (computed here)"], rows))
        print()


def big_sizes():
    sizes = [k[4:-len("_input_bytes")] for k in D if k.startswith("big_") and k.endswith("_input_bytes")]
    return sorted(sizes, key=lambda s: med(f"big_{s}_input_bytes"))


def section_f():
    sizes = big_sizes()
    if not sizes:
        return
    print("### F. Synthetic big hosts (fixture tree with cpufreq; one measurement per size)\n")
    print("Sampling (perfwatchd at 200 ms with 3600 history slots; the floor reads the same tree back to back):\n")
    rows = []
    for s in sizes:
        b = f"big_{s}_"
        inp, cpu, flo = med(b + "input_bytes"), med(b + "sampler_cpu_us"), med(b + "floor_cpu_us")
        rows.append([s.replace("x", " CPUs x ") + " lines", fmt(inp / 1024, 0), fmt(med(b + "files"), 0), fmt(flo),
                     fmt(cpu), fmt(med(b + "watcher_cpu_us")), fmt(med(b + "wall_us")), fmt(cpu / flo, 2) + "x",
                     fmt(cpu / (inp / 1048576), 0),
                     fmt(med(b + "rss_kb") / 1024, 1), fmt(med(b + "history_bytes") / 1048576, 1)])
    print(table(["size", "stat+interrupts+softirqs KiB", "files per sample", "floor µs", "sample CPU µs (sampler thread)",
                 "detector thread CPU µs per sample", "sample wall µs", "sample / floor", "sample CPU µs per MiB of input", "VmRSS MiB",
                 "rings MiB"], rows))
    print("\nScraping (sequential, new connection each; node_exporter reads the same tree per scrape):\n")
    rows = []
    for s in sizes:
        b = f"big_{s}_"
        rows.append([s.replace("x", " CPUs x ") + " lines", fmt(med(b + "series"), 0), fmt(med(b + "bytes") / 1024, 0),
                     fmt(med(b + "gzip_bytes") / 1024, 0), fmt(med(b + "p50_us")), fmt(med(b + "p99_us")),
                     fmt(med(b + "gzip_p50_us")), fmt(med(b + "http_cpu_us_per_scrape")),
                     f"{fmt(med(b + 'percpu_series'), 0)} / {fmt(med(b + 'percpu_bytes') / 1024, 0)} / {fmt(med(b + 'percpu_p50_us'))}",
                     f"{fmt(med(b + 'node_series'), 0)} / {fmt(med(b + 'node_bytes') / 1024, 0)} / {fmt(med(b + 'node_p50_us'))}",
                     fmt(med(b + "node_cpu_us_per_scrape"))])
    print(table(["size", "series", "body KiB", "gzip KiB", "p50 µs", "p99 µs", "p50 µs, gzip", "HTTP CPU µs per scrape",
                 "with --interrupts-per-cpu: series / KiB / p50 µs", "node_exporter: series / KiB / p50 µs",
                 "node_exporter CPU µs per scrape"], rows))
    print()


def section_targets():
    print("### Targets\n")
    rows = []
    r = med_ratio("pw_idle_cpu_us_per_sample", "floor_1s_loop_cpu_us")
    pr = ratio_per_rep("pw_idle_cpu_us_per_sample", "floor_1s_loop_cpu_us")
    if not math.isnan(r) and pr:
        # The verdict uses the median of the per-window ratios: floor and daemon shared each window.
        rows.append(["a 1 s sample costs at most 1.5x the floor",
                     f"{fmt(med('pw_idle_cpu_us_per_sample'))} µs vs floor {fmt(med('floor_1s_loop_cpu_us'))} µs: "
                     f"per window {pr[1]:.2f}x ({pr[0]:.2f}–{pr[2]:.2f}), ratio of medians {r:.2f}x",
                     ("met" if pr[1] <= 1.5 else "**not met**") + (" (borderline)" if abs(pr[1] - 1.5) < 0.05 else "")])
    pw, nd, cd = med("pw_idle_p50_us"), med("node_p50_us"), med("collectd_p50_us")
    if not math.isnan(pw) and not math.isnan(nd):
        rows.append(["/metrics p50 at least 10x lower than node_exporter's",
                     f"{fmt(pw)} µs vs {fmt(nd)} µs = {nd / pw:.1f}x lower", "met" if nd / pw >= 10 else "**not met**"])
    if not math.isnan(pw) and not math.isnan(cd):
        rows.append(["/metrics p50 lower than collectd's (issue: ~170 µs)",
                     f"{fmt(pw)} µs vs {fmt(cd)} µs measured here", "met" if pw < cd else "**not met**"])
    full = med("pw_full_rss_kb")
    if not math.isnan(full):
        rows.append(["RSS below 4 MiB with a full 1 h history at 1 s",
                     f"{fmt(full, 0)} KiB ({fmt(full / 1024, 2)} MiB)", "met" if full < 4096 else "**not met**"])
    sizes = big_sizes()
    per_mb = [med(f"big_{s}_sampler_cpu_us") / (med(f"big_{s}_input_bytes") / 1048576) for s in sizes]
    if len(per_mb) > 1:
        # At most linear: the cost per input byte must not rise with size (fixed costs make it fall).
        worst = max(per_mb[i] / per_mb[0] for i in range(1, len(per_mb)))
        rows.append(["big-host cost grows linearly",
                     f"sample CPU per MiB of input: {fmt(per_mb[0], 0)} µs at {sizes[0]}, {fmt(per_mb[-1], 0)} µs at "
                     f"{sizes[-1]} (input x{med(f'big_{sizes[-1]}_input_bytes') / med(f'big_{sizes[0]}_input_bytes'):.1f}, "
                     f"cost x{med(f'big_{sizes[-1]}_sampler_cpu_us') / med(f'big_{sizes[0]}_sampler_cpu_us'):.1f})",
                     "met (at most linear)" if worst <= 1.2 else "**not met** (superlinear)"])
    print(table(["target", "measured (medians)", "verdict"], rows))
    print()


def main():
    global D
    D = load(sys.argv[1])
    if len(sys.argv) > 2:
        print("```")
        print(open(sys.argv[2]).read().rstrip())
        if "total_seconds" in D:
            print(f"run time: {fmt(med('total_seconds'), 0)} s")
        print("```\n")
    section_targets()
    section_a()
    section_b()
    section_cd()
    section_f()


if __name__ == "__main__":
    main()
