#!/usr/bin/env bash
# /ui as a person uses it: headless Chromium opens the page of a perfwatchd watching a live tree
# driven through incident 3 (the NIC's interrupts pause). No console errors; the points the page
# plotted equal /history's; the InterruptRateDrop span sits where the alert fired; wheel zoom over
# the span narrows the view around it, and on an hour that came in 4 s steps fetches that window at
# 1 s. After a restart, the page opened on a day (the 1 d button) still shades the alert's span
# from the store on disk. A screenshot is kept under the build directory. Also: /ui and /history obey [auth]
# protection, and /history's bad queries are 400s that say what is wrong.
source "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || pw_skip "chromium is not installed (contrib/install-deps.sh test installs it)"
SHOT_DIR="${PW_SCRATCH:-/tmp}/.."
SHOT="$SHOT_DIR/ui_incident3.png"

chrome() { # chrome OUT_FLAG URL: one headless run with a fresh profile
	local profile
	profile=$(mktemp -d "$PW_WORK/chrome.XXXXXX")
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
		--enable-logging=stderr --v=0 --window-size=1300,1900 --virtual-time-budget=5000 "$@" \
		2>>"$PW_WORK/chrome.log"
}

# ---- [auth]: /history and /ui protected like any endpoint ----
hash='$2b$10$lTxXPp15IgmKfjSjRIAnAOIAqMh0sfSbbT9SLo..c0PcqbQPyf7XO' # "correct horse"
pw_copy_tree vm-2cpu-idle-1 "$PW_WORK/static"
printf '[auth]\nuser.ui = %s\nprotect = /history /ui\n' "$hash" >"$PW_WORK/auth.conf"
"$PERFWATCHD" --check-config --config "$PW_WORK/auth.conf" >/dev/null || pw_fail "[auth] protect = /history /ui refused"
pw_start auth --config "$PW_WORK/auth.conf" --procfs "$PW_WORK/static/proc" --sysfs "$PW_WORK/static/sys"
for path in history ui; do
	code=$(curl -s -o /dev/null -w '%{http_code}' "$PW_URL/$path")
	[ "$code" = 401 ] || pw_fail "/$path without a password: $code, want 401"
	code=$(curl -s -o /dev/null -w '%{http_code}' -u 'ui:correct horse' "$PW_URL/$path")
	[ "$code" = 200 ] || pw_fail "/$path with the password: $code, want 200"
done
code=$(curl -s -o /dev/null -w '%{http_code}' "$PW_URL/status")
[ "$code" = 200 ] || pw_fail "/status is not protected but answered $code"
# A bad query names its mistake.
body=$(curl -s -u 'ui:correct horse' -w ' %{http_code}' "$PW_URL/history?since=yesterday")
[[ "$body" == *"since: 'yesterday' is not a time"*" 400" ]] || pw_fail "bad since: $body"
body=$(curl -s -u 'ui:correct horse' -H 'Accept: text/csv' "$PW_URL/history?signals=interrupts_per_second")
[[ "$body" == "time,interrupts_per_second"* ]] || pw_fail "CSV by Accept: ${body:0:80}"
# A browser asking for / gets the page; curl gets the index.
# (Bodies into variables first: grep -q would stop reading early, and pipefail fail curl's EPIPE.)
page=$(curl -s -u 'ui:correct horse' -H 'Accept: text/html,*/*' "$PW_URL/")
grep -q '<canvas\|<main id="charts">' <<<"$page" || pw_fail "/ with Accept: text/html is not the page"
page=$(curl -s "$PW_URL/")
grep -q '^/history' <<<"$page" || pw_fail "the index does not list /history"
pw_stop "$PW_PID"

# ---- the incident, live ----
python3 "$PW_TESTS/scenarios/pwscenario.py" incident3_irq_drop "$PW_WORK/live" --param baseline=20 \
	--param incident=40 --hold >"$PW_WORK/scenario.log" 2>&1 &
SC_PID=$!
PW_PIDS+=("$SC_PID")
pw_wait_for 20 "the scenario tree" grep -q '"ready"' "$PW_WORK/scenario.log"
mkdir -p "$PW_WORK/state"
pw_start live --procfs "$PW_WORK/live/proc" --sysfs "$PW_WORK/live/sys" --alert-for 2s --baseline-warmup 10s \
	--state-dir "$PW_WORK/state"
kill -USR1 "$SC_PID"
firing() { grep -q '"state": "firing"' <<<"$(pw_get alerts)"; }
pw_wait_for 60 "InterruptRateDrop firing" firing
fired_at=$(pw_get alerts | python3 -c 'import json,sys,datetime as d; a=json.load(sys.stdin)["alerts"][0]; print(int(d.datetime.fromisoformat(a["fired_at"].replace("Z","+00:00")).timestamp()*1000))')
pw_wait_for 10 "3 s more" sleep 3

chrome --dump-dom "$PW_URL/ui#expose" >"$PW_WORK/dom.html"
chrome --dump-dom "$PW_URL/ui#zoom=$fired_at" >"$PW_WORK/zoom.html"
# A big host's hour comes in coarse steps: zoomed in, the page fetches the window at 1 s.
chrome --dump-dom "$PW_URL/ui#step=4s&zoom=$fired_at" >"$PW_WORK/zoom-coarse.html"
curl -s "$PW_URL/history" >"$PW_WORK/history.json"
chrome --screenshot="$SHOT" "$PW_URL/ui" >/dev/null
[ -s "$SHOT" ] || pw_fail "no screenshot"

python3 - "$PW_WORK/dom.html" "$PW_WORK/history.json" "$fired_at" "$PW_WORK/chrome.log" "$PW_WORK/zoom.html" \
	"$PW_WORK/zoom-coarse.html" <<'PY'
import html, json, re, sys
dom, hist, fired, log = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), int(sys.argv[3]), open(sys.argv[4]).read()
def fail(msg):
    print("FAIL:", msg, file=sys.stderr); sys.exit(1)
def body_data(text):
    body = re.search(r"<body([^>]*)>", text).group(1)
    attr = {k: html.unescape(v) for k, v in re.findall(r'data-([a-z-]+)="([^"]*)"', body)}
    if attr.get("state") != "ready": fail("page not ready: %s" % attr)
    if "errors" in attr: fail("page errors: %s" % attr["errors"])
    return attr
attr, zoom, coarse = body_data(dom), body_data(open(sys.argv[5]).read()), body_data(open(sys.argv[6]).read())
errors = [l for l in log.splitlines() if "CONSOLE" in l and ("Uncaught" in l or "rror" in l)]
if errors: fail("console errors: %s" % errors[:3])
plotted = json.loads(html.unescape(re.search(r'<script type="application/json" id="pw-plotted">(.*?)</script>', dom, re.S).group(1)))
# Every point the page drew is /history's point at that time; the page covers /history's window.
t = hist["time_ms"]
for key in ("interrupts_per_second", "cpu_irq_ratio", "context_switches_per_second"):
    series = next(s for s in hist["signals"] if s["key"] == key)
    want = {tt: v for tt, v in zip(t, series["values"]) if v is not None}
    got = plotted.get(key) or fail("page plotted no %s" % key)
    common = [(tt, v) for tt, v in got if tt in want]
    if len(common) < len(got) - 3 or len(common) < 20:
        fail("%s: only %d of %d plotted points are /history's" % (key, len(common), len(got)))
    bad = [(tt, v, want[tt]) for tt, v in common if abs(v - want[tt]) > 1e-9]
    if bad: fail("%s: plotted values differ from /history: %s" % (key, bad[:3]))
spans = json.loads(attr["spans"])
drop = [s for s in spans if s["alert"] == "InterruptRateDrop" and s.get("fired")]
if not drop: fail("no InterruptRateDrop span: %s" % spans)
if abs(drop[0]["fired"] - fired) > 1000: fail("span fired at %d, the alert at %d" % (drop[0]["fired"], fired))
z0, z1 = int(zoom["zoom-from"]), int(zoom["zoom-to"])
if not (z1 - z0 <= int(attr["points"]) * 1000 // 2 and z0 <= fired <= z1): fail("zoom: view %d..%d around %d" % (z0, z1, fired))
if int(coarse.get("detail-points", 0)) < 5 or not 0 < int(coarse.get("view-step-ms", 0)) <= 1100:
    err = re.search(r'id="err"[^>]*>([^<]*)<', open(sys.argv[6]).read())
    fail("coarse hour zoomed in: %s 1 s points fetched, %s ms between the points in view (%s; %s)" %
         (coarse.get("detail-points"), coarse.get("view-step-ms"), err and err.group(1), coarse))
print("ok: %d points, first paint %s ms, span at %+d ms of the alert, zoom to %d s; coarse hour zoomed: %s points at %s ms" %
      (int(attr["points"]), attr.get("first-paint-ms"), drop[0]["fired"] - fired, (z1 - z0) // 1000,
       coarse["detail-points"], coarse["view-step-ms"]))
PY

# ---- a restart: the day view still shows the span, from the store's transitions ----
pw_stop "$PW_PID"
pw_start restarted --procfs "$PW_WORK/static/proc" --sysfs "$PW_WORK/static/sys" --state-dir "$PW_WORK/state"
chrome --dump-dom "$PW_URL/ui#load=86400" >"$PW_WORK/day.html"
python3 - "$PW_WORK/day.html" "$fired_at" <<'PY'
import html, json, re, sys
text, fired = open(sys.argv[1]).read(), int(sys.argv[2])
attr = {k: html.unescape(v) for k, v in re.findall(r'data-([a-z-]+)="([^"]*)"', re.search(r"<body([^>]*)>", text).group(1))}
err = re.search(r'id="err"[^>]*>([^<]*)<', text)
def fail(msg):
    print("FAIL: day view after a restart:", msg, attr, err and err.group(1), file=sys.stderr); sys.exit(1)
if attr.get("state") != "ready" or (err and err.group(1).strip()): fail("not ready, or an error")
if int(attr.get("loaded-span-ms", 0)) < 86400e3 - 60e3: fail("the page did not load a day")
drop = [s for s in json.loads(attr["spans"]) if s["alert"] == "InterruptRateDrop" and s.get("fired")]
if not drop or abs(drop[0]["fired"] - fired) > 1000: fail("no InterruptRateDrop span at %d" % fired)
print("ok: after a restart the day view shades InterruptRateDrop from %d" % drop[0]["fired"])
PY
echo "screenshot: $SHOT"
