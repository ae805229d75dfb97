#!/usr/bin/env bash
# docs/metrics.md and the exporters agree: every family the renderers declare (the PW_PROM_* rows of
# exporters/*.c, prom_family.h) has a row in docs/metrics.md, and every name a row documents is
# declared. A daemon on a fixture tree (per-CPU interrupts, a receiver) then proves the declarations
# are what it writes: every family it serves is among them.
source "$(dirname "$0")/lib.sh"
src=$(cd "$PW_TESTS/.." && pwd)

tree="$PW_WORK/tree"
pw_copy_tree host-16cpu-load-1 "$tree"
# Port 9 (discard): nobody answers, but the notifier's families are there once a receiver is.
pw_start doc --procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms --interrupts-per-cpu \
	--webhook http://127.0.0.1:9/
pw_wait_samples 2
pw_get metrics >"$PW_WORK/text.prom"
curl -s -H 'Accept: application/openmetrics-text' "$PW_URL/metrics" >"$PW_WORK/om.prom"
pw_stop "$PW_PID"

python3 - "$src" "$PW_WORK/text.prom" "$PW_WORK/om.prom" <<'PY' || pw_fail "docs/metrics.md and the exporters disagree"
import glob, os, re, sys

src, text, om = sys.argv[1:]
suffix = {"COUNTER": "_total", "COUNTER_UNIT": "_total", "INFO": "_info"}
declared = set()
for path in glob.glob(os.path.join(src, "exporters", "*.c")):
    for kind, name in re.findall(r'\bPW_PROM_([A-Z_]+)\(\s*"([a-z0-9_]+)"', open(path).read()):
        declared.add("perfwatch_" + name + suffix.get(kind, ""))

# The first cell of each table row names one family or several (`perfwatch_load1`, `perfwatch_load5`).
documented = set()
for line in open(os.path.join(src, "docs", "metrics.md")):
    if line.startswith("| `perfwatch_"):
        documented.update(re.findall(r"`(perfwatch_[a-z0-9_]+)`", line.split("|")[1]))

# Text format banners name the samples (cpu_seconds_total); OpenMetrics names the family.
served = set(re.findall(r"^# TYPE (perfwatch_[a-z0-9_]+) ", open(text).read(), re.M))
om_served = set(re.findall(r"^# TYPE (perfwatch_[a-z0-9_]+) ", open(om).read(), re.M))

problems = []
if len(declared) < 70:
    problems.append("only %d families found in exporters/*.c: did the PW_PROM_* macros change?" % len(declared))
for name in sorted(declared - documented):
    problems.append("%s is written but has no row in docs/metrics.md" % name)
for name in sorted(documented - declared):
    problems.append("%s is documented but no exporter writes it" % name)
for name in sorted(served - declared):
    problems.append("%s is served but not declared with a PW_PROM_* macro" % name)
for name in sorted(om_served - {re.sub(r"_(total|info)$", "", d) for d in declared}):
    problems.append("%s is served (OpenMetrics) but not declared" % name)
if len(served) < 50:
    problems.append("only %d families served: %s" % (len(served), sorted(served)))
for p in problems:
    print("FAIL:", p, file=sys.stderr)
print("%d families declared, %d documented, %d served" % (len(declared), len(documented), len(served)))
sys.exit(1 if problems else 0)
PY
echo "PASS: docs/metrics.md documents every family the exporters write, and only those"
