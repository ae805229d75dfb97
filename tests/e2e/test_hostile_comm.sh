#!/usr/bin/env bash
# A process name is any 15 bytes but NUL (prctl(PR_SET_NAME)): control bytes that drive a terminal
# or forge a log line, and bytes that are not UTF-8. A real process renames itself to such a name and
# burns system time (reads of /dev/zero) while a live tree plays incident 5 (SystemTimeHigh), with the
# process put into the tree's /proc as a symlink to its real /proc/PID: the probes rank it by system
# time and its name becomes evidence. Every output must carry the name escaped (\xNN for C0, DEL, C1
# and bytes that are not UTF-8; valid UTF-8 kept) and no raw control byte: /status JSON (200, valid),
# /status text, /alerts, the alert's description, the webhook payload, and the log (a second daemon
# with SystemTimeHigh disabled logs "no alert, but far from normal", which names the process).
source "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || pw_skip "python3 not installed"
command -v jq >/dev/null || pw_skip "jq not installed"
source "$PW_TESTS/e2e/notify_lib.sh"
tree="$PW_WORK/tree"
# ESC ] 0 ; BEL (an xterm title sequence), LF (a forged log line), 0x9b (CSI in 8-bit terminals, not
# UTF-8 alone), 0xff (never UTF-8), "é" (valid UTF-8: kept), DEL.
want='pw\x1b]0;\x07\x0a\x9b\xffé\x7fok'

# Incident 5 without its simulated processes: the real one is the only process in the tree.
cat >"$PW_WORK/hostile_spec.py" <<PY
import sys
sys.path.insert(0, "$PW_TESTS/scenarios/specs")
import incident5_lock_contention as base

VARIANTS = base.VARIANTS


def scenario(variant="8cpu", **params):
    spec = base.scenario(variant, **params)
    spec["name"] = "hostile_comm"
    spec["host"]["procs"] = []
    baseline, incident = spec["phases"][0], spec["phases"][1]
    for phase in spec["phases"]:
        phase.pop("procs", None)
        phase.pop("evidence", None)
    # Only system time changes (user time stays, interrupts and context switches too), so the first
    # "far from normal" notice is about system time and names the process.
    for key in ("irqs", "softirqs", "ctxt", "procs_running", "psi"):
        incident[key] = baseline[key]
    incident["cpu"] = {"*": dict(baseline["cpu"]["*"], system=39)}
    return spec
PY

# The receiver and the burner first: the tree's clock starts with the driver. The burner yields
# (nice 19) so the driver keeps its 50 ms tick on a loaded machine: a tree left unchanged for a
# whole interval reads as every rate at 0/s, and the quiet daemon's one notice a minute would be
# about that.
receiver_start
nice -n 19 python3 - 90 >"$PW_WORK/burner.out" 2>&1 <<'PY' &
import ctypes, sys, time
name = b"pw\x1b]0;\x07\n\x9b\xff\xc3\xa9\x7fok"
assert len(name) == 15  # TASK_COMM_LEN - 1
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(15, ctypes.c_char_p(name), 0, 0, 0) != 0:  # PR_SET_NAME
    sys.exit("prctl: errno %d" % ctypes.get_errno())
print("renamed", flush=True)
buf = bytearray(1 << 20)
deadline = time.monotonic() + float(sys.argv[1])
with open("/dev/zero", "rb", buffering=0) as f:
    while time.monotonic() < deadline:  # clearing 1 MiB a read: almost all system time
        f.readinto(buf)
PY
burner=$!
PW_PIDS+=("$burner")
pw_wait_for 10 "the renamed process" grep -qs renamed "$PW_WORK/burner.out" || pw_fail "burner: $(cat "$PW_WORK/burner.out")"
[ "$(head -c 15 "/proc/$burner/comm" | od -An -tx1 | tr -d ' \n')" = 70771b5d303b070a9bffc3a97f6f6b ] ||
	pw_fail "the kernel did not keep the name: $(od -c "/proc/$burner/comm")"
python3 "$PW_TESTS/scenarios/pwscenario.py" "$PW_WORK/hostile_spec.py" "$tree" --tick 0.05 \
	--param baseline=16 --param incident=600 --param recovery=1 >"$PW_WORK/events" 2>"$PW_WORK/driver.err" &
PW_PIDS+=($!)
pw_wait_for 20 "the first tree" grep -qs '"phase"' "$PW_WORK/events" || pw_fail "driver: $(cat "$PW_WORK/driver.err")"
ln -s "/proc/$burner" "$tree/proc/$burner"

flags=(--procfs "$tree/proc" --sysfs "$tree/sys" --interval 500ms --baseline-warmup 4s --alert-for 1s)
printf '[rule.SystemTimeHigh]\nenabled = false\n' >"$PW_WORK/quiet.conf"
pw_start quiet "${flags[@]}" --config "$PW_WORK/quiet.conf"
quiet_url=$PW_URL quiet_pid=$PW_PID
pw_start alerting "${flags[@]}" --webhook "$RX_URL/hook"
# Both must have learned their baselines (4 s) before the incident starts, 16 s after the driver.
left=$(jq -r 'select(.phase == "baseline") | .wall + 16 - now' "$PW_WORK/events")
jq -e "$left >= 5" <<<null >/dev/null || pw_fail "the daemons started late: the incident begins in $left s"

# Firing, and the probes have had their second look (the first only starts the window).
evidence_ready() {
	local doc
	doc=$(pw_get alerts) || return 1
	jq -e --arg pid "$burner" '.alerts[] | select(.name == "SystemTimeHigh" and .state == "firing")
		| select(.evidence.processes.status == "ok") | select(.evidence.processes.top[0].pid == ($pid | tonumber))
		| select(.description | test("Most system time"))' <<<"$doc" >/dev/null
}
pw_wait_for 60 "SystemTimeHigh firing with the burner as evidence" evidence_ready ||
	pw_fail "no evidence: $(pw_get alerts)"
notice() { grep -q 'far from normal.*most system time' "$PW_WORK/quiet.log"; }
# A minute and more: if a stalled tree still made the first notice, the second is a minute later.
pw_wait_for 75 "the quiet daemon's notice naming the process" notice ||
	echo "no notice naming the process; the quiet daemon said: $(grep 'far from normal' "$PW_WORK/quiet.log")" >&2
webhook() { [ "$(rx_count log '.body.status == "firing"')" -ge 1 ]; }
pw_wait_for 30 "the firing webhook" webhook || pw_fail "no webhook: $(cat "$PW_WORK/rx.log.jsonl" 2>/dev/null)"

# Each output, fetched raw: status code, bytes. A JSON body must parse as UTF-8 JSON; every text
# (a JSON string, a text body, the log) must hold the escaped name and no control byte but newline.
codes=""
for what in "alerting status" "alerting alerts" "alerting status?format=text" "quiet status" \
	"quiet status?format=text"; do
	read -r daemon path <<<"$what"
	url=$PW_URL
	[ "$daemon" = quiet ] && url=$quiet_url
	code=$(curl -s -o "$PW_WORK/$daemon.${path//[^a-z]/_}" -w '%{http_code}' "$url/$path")
	[ "$code" = 200 ] || codes+="$daemon /$path answered $code; "
done
jq -c '.body' "$PW_WORK/rx.log.jsonl" >"$PW_WORK/webhook.json"
cp "$PW_WORK/alerting.log" "$PW_WORK/alerting.stderr"
cp "$PW_WORK/quiet.log" "$PW_WORK/quiet.stderr"
python3 - "$want" "$PW_WORK" "$codes" <<'PY' || pw_fail "see above"
import json, os, re, sys

want, work = sys.argv[1], sys.argv[2]
bad = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
failed = [sys.argv[3]] if sys.argv[3] else []


def texts(value):
    """Every string of a JSON document."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from texts(k)
            yield from texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from texts(v)


def check(name, text, must_hold=True):
    if bad.search(text):
        failed.append("%s: raw control byte %r" % (name, bad.search(text).group()))
    if must_hold and want not in text:
        failed.append("%s: no %s" % (name, want))


for name, is_json, must_hold in (("alerting.status", True, True), ("alerting.alerts", True, True),
                                 ("alerting.status_format_text", False, True), ("quiet.status", True, True),
                                 ("quiet.status_format_text", False, True), ("webhook.json", True, True),
                                 ("quiet.stderr", False, True), ("alerting.stderr", False, False)):
    raw = open(os.path.join(work, name), "rb").read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        failed.append("%s: not UTF-8: %s" % (name, e))
        continue
    if not is_json:
        check(name, text, must_hold)
        continue
    try:
        docs = [json.loads(line) for line in text.splitlines() if line] if name == "webhook.json" else [json.loads(text)]
    except ValueError as e:
        failed.append("%s: not JSON: %s: %r" % (name, e, text[:200]))
        continue
    check(name, "\n".join(s for d in docs for s in texts(d)), must_hold)

alert = [a for a in json.load(open(os.path.join(work, "alerting.alerts")))["alerts"] if a["name"] == "SystemTimeHigh"][0]
if "Most system time: %s (pid " % want not in alert["description"]:
    failed.append("description: %r" % alert["description"])
if alert["evidence"]["processes"]["top"][0]["comm"] != want:
    failed.append("evidence comm %r, want %r" % (alert["evidence"]["processes"]["top"][0]["comm"], want))
for name in ("quiet.stderr", "alerting.stderr"):
    for line in open(os.path.join(work, name), "rb").read().decode().splitlines():
        if not line.startswith("perfwatchd: "):
            failed.append("%s: a line not written by the logger: %r" % (name, line))
hook = [json.loads(l) for l in open(os.path.join(work, "webhook.json")) if l.strip()]
if not any(want in a["annotations"].get("description", "") for h in hook for a in h["alerts"]):
    failed.append("webhook: no description naming %s" % want)
for f in failed:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if failed else 0)
PY

pw_stop "$PW_PID"
pw_stop "$quiet_pid"
! grep -qiE 'sanitizer|runtime error' "$PW_WORK/alerting.log" "$PW_WORK/quiet.log" ||
	pw_fail "$(cat "$PW_WORK/alerting.log" "$PW_WORK/quiet.log")"
echo "PASS: the hostile name is escaped in /status (JSON and text), /alerts, the description, the webhook and the log"
