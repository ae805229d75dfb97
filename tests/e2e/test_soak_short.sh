#!/usr/bin/env bash
# 40 s of bench/soak.sh (4 000 samples at 10 ms, an incident every 10 s, scrapes, a webhook
# receiver): after the first 1 000 samples the threads do not move, the open fds by at most one
# (a delivery's connection at the moment of a reading) and RSS grows by less than 1 MiB; deadlines missed stay under 5% (a loaded 2-core machine; 0.3% when quiet), the
# detector misses under 1%; every alert that fired resolved, and each transition reached the
# receiver once. The whole day's figures are in docs/robustness.md.
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || pw_skip "jq not installed"
src=$(cd "$PW_TESTS/.." && pwd)
# A sanitizer's quarantine and shadow grow by design, and its slowdown is not the daemon's pace: the
# release build is the one whose flatness counts (and the suite's time is better spent elsewhere).
! grep -qaE '__asan_init|__tsan_init' "$PERFWATCHD" || pw_skip "a sanitizer build: the soak measures the release build"

SAMPLES=4000 OUT="$PW_WORK/soak" "$src/bench/soak.sh" >"$PW_WORK/soak.out" 2>&1 ||
	pw_fail "soak.sh failed: $(tail -20 "$PW_WORK/soak.out")"
cat "$PW_WORK/soak/report.md"
python3 - "$PW_WORK/soak" <<'PY' || pw_fail "see the report above"
import re, sys
out = sys.argv[1]
rows = [[float(x) for x in l.split("\t")] for l in open(out + "/resources.tsv").read().splitlines()[1:]]
after = [r for r in rows if r[1] >= 1000]
problems = []
if len(after) < 2:
    problems.append("fewer than 2 readings after 1000 samples")
else:
    # An fd may come and go at a reading (a delivery's connection, a state save's temporary).
    for col, name, slack in ((5, "fds", 1), (6, "threads", 0)):
        if max(r[col] for r in after) - min(r[col] for r in after) > slack:
            problems.append("%s moved: %s" % (name, [r[col] for r in after]))
    growth = after[-1][4] - after[0][4]
    if growth > 1024:
        problems.append("RSS grew %d KiB after 1000 samples" % growth)
report = open(out + "/report.md").read()
m = re.search(r"samples taken (\d+), deadlines missed (\d+) .*detector missed (\d+)", report)
taken, missed, dmissed = (int(x) for x in m.groups())
if missed > 0.05 * (taken + missed):
    problems.append("%d deadlines missed of %d" % (missed, taken + missed))
if dmissed > 0.01 * taken:
    problems.append("the detector missed %d samples" % dmissed)
m = re.search(r"alerts fired (\d+), resolved (\d+); webhooks delivered (\{[^}]*\})", report)
fired, resolved, kinds = int(m.group(1)), int(m.group(2)), eval(m.group(3))
if fired < 3 or resolved < fired - 1:
    problems.append("fired %d, resolved %d" % (fired, resolved))
# One may be in flight when the run stops (aborted, kept in the queue).
if abs(kinds.get("firing", 0) - fired) > 1 or abs(kinds.get("resolved", 0) - resolved) > 1:
    problems.append("webhooks %s for %d fired, %d resolved" % (kinds, fired, resolved))
if re.search(r"\t[1-9]\d*; ", report.split("scrapes")[1]):
    problems.append("non-200 answers to scrapes")
print("\n".join(problems) or "flat")
sys.exit(1 if problems else 0)
PY
echo PASS
