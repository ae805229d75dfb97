#!/usr/bin/env bash
# Logging destination: structured journal records only when JOURNAL_STREAM names stderr's own
# device:inode (as systemd sets it), plain "perfwatchd: LEVEL: text" lines otherwise (an inherited
# JOURNAL_STREAM for another fd, or garbage). With no journal socket, the journal mode falls back to
# "<N>" priority prefixes on stderr. Where a private mount namespace is possible (root), a Python
# stand-in for journald on /run/systemd/journal/socket checks the fields of an alert transition:
# PRIORITY, MESSAGE, SYSLOG_IDENTIFIER, CODE_*, ALERTNAME/STATE/SEVERITY/SCOPE.
source "$(dirname "$0")/lib.sh"

tree="$PW_WORK/tree"
journal_socket=/run/systemd/journal/socket

# An IoWaitHigh that fires on the first interval with any iowait: absolute, no pending time.
alert_conf() {
	cat >"$1" <<'EOF'
[rule.IoWaitHigh]
threshold = 0
critical = 1
sigmas = 0
for = 0s
EOF
}

# --- inside the private mount namespace (re-invoked below) -------------------------------------
if [ "${1:-}" = --in-namespace ]; then
	mount -t tmpfs -o mode=0755 tmpfs /run
	mkdir -p /run/systemd/journal
	records="$PW_WORK/journal.jsonl"
	: >"$records"
	python3 "$PW_TESTS/e2e/sdproto.py" journal "$journal_socket" "$records" &
	PW_PIDS+=($!)
	pw_wait_for 10 "the journal socket" test -S "$journal_socket"
	pw_copy_tree vm-2cpu-load-1 "$tree"
	alert_conf "$PW_WORK/alert.conf"
	: >"$PW_WORK/journal.log"
	JOURNAL_STREAM=$(stat -c '%d:%i' "$PW_WORK/journal.log") pw_start journal --config "$PW_WORK/alert.conf" \
		--procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms --baseline-warmup 0s
	pw_wait_samples 2
	pw_rewrite "$PW_FIXTURES/kernels/vm-2cpu-load-2/proc" "$tree/proc" stat interrupts softirqs vmstat
	fired() { grep -q '"ALERTNAME": "IoWaitHigh"' "$records"; }
	pw_wait_for 20 "an IoWaitHigh record" fired || pw_fail "no alert record: $(cat "$records")"
	pw_stop "$PW_PID"
	python3 - "$records" <<'PY' || pw_fail "journal records: $(cat "$records")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
for r in recs:
    assert r["SYSLOG_IDENTIFIER"] == "perfwatchd", r
    assert r["PRIORITY"] in "01234567" and r["MESSAGE"], r
    assert r["CODE_FILE"].endswith(".c") and int(r["CODE_LINE"]) > 0 and r["CODE_FUNC"], r
start = [r for r in recs if r["MESSAGE"].startswith("listening on http://")]
assert start and start[0]["PRIORITY"] == "6" and start[0]["CODE_FUNC"] == "run", start
assert "ALERTNAME" not in start[0], start
alert = [r for r in recs if r.get("ALERTNAME") == "IoWaitHigh"][0]
want = {"ALERTSTATE": "firing", "ALERTSEVERITY": "warning", "ALERTSCOPE": "the host", "PRIORITY": "4",
        "CODE_FUNC": "log_event"}
for k, v in want.items():
    assert alert.get(k) == v, (k, alert)
assert alert["CODE_FILE"].endswith("detector_thread.c"), alert
assert alert["MESSAGE"].startswith("alert IoWaitHigh inactive -> firing (warning): "), alert
print(f"{len(recs)} journal records, alert record: {alert}")
PY
	[ -s "$PW_WORK/journal.log" ] && pw_fail "stderr written although the journal took every record: $(cat "$PW_WORK/journal.log")"
	exit 0
fi

# --- in the test's own namespace ----------------------------------------------------------------
pw_copy_tree vm-2cpu-idle-1 "$tree"
args=(--procfs "$tree/proc" --sysfs "$tree/sys" --interval 100ms)
plain='^perfwatchd: info: listening on http://'

# 1. JOURNAL_STREAM for another file (inherited from a parent whose stderr went to the journal),
# or malformed: stderr text.
JOURNAL_STREAM=$(stat -c '%d:%i' "$PW_FIXTURES") pw_start other "${args[@]}"
pw_stop "$PW_PID"
grep -qE "$plain" "$PW_WORK/other.log" || pw_fail "not plain text: $(cat "$PW_WORK/other.log")"
JOURNAL_STREAM=garbage pw_start garbage "${args[@]}"
pw_stop "$PW_PID"
grep -qE "$plain" "$PW_WORK/garbage.log" || pw_fail "not plain text: $(cat "$PW_WORK/garbage.log")"

# 2. JOURNAL_STREAM naming stderr, no journal socket: journal mode, falling back to "<N>" lines.
if [ ! -e "$journal_socket" ]; then
	: >"$PW_WORK/nojournal.log"
	JOURNAL_STREAM=$(stat -c '%d:%i' "$PW_WORK/nojournal.log") pw_start nojournal "${args[@]}"
	pw_stop "$PW_PID"
	grep -q '^<6>listening on http://' "$PW_WORK/nojournal.log" || pw_fail "no <6> fallback: $(cat "$PW_WORK/nojournal.log")"
	grep -q '^perfwatchd: ' "$PW_WORK/nojournal.log" && pw_fail "plain text although stderr is the journal stream"
fi

# 3. The structured records themselves, against a stand-in journald in a private mount namespace.
if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
	unshare -m --propagation private bash "$0" --in-namespace || pw_fail "journal record checks failed"
else
	echo "structured-record checks skipped: no private mount namespace (needs root)"
fi
echo "PASS: journal only when JOURNAL_STREAM names stderr; fields checked"
