#!/usr/bin/env bash
# contrib/grafana/perfwatch.json: valid JSON, a well-formed Grafana dashboard (datasource variable
# DS_PROMETHEUS used by every panel and query, the instance variable, unique panel ids), and every
# PromQL expression in it parses and returns data from a real Prometheus scraping a perfwatchd on a
# live fixture tree (incident2_ondemand, so busy CPUs, frequencies and a firing alert exist), with
# $job, $instance, $sigmas and $__rate_interval substituted. Every perfwatch_* name it uses is in
# that perfwatchd's /metrics.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/servers.sh"

command -v jq >/dev/null || pw_skip "jq not installed"
dash="$PW_TESTS/../contrib/grafana/perfwatch.json"
jq -e . "$dash" >/dev/null || pw_fail "$dash is not valid JSON"

# --- structure ----------------------------------------------------------------------------------
jq -e '.templating.list | any(.name == "DS_PROMETHEUS" and .type == "datasource" and .query == "prometheus")' "$dash" >/dev/null ||
	pw_fail "no DS_PROMETHEUS datasource variable"
jq -e '.templating.list | any(.name == "instance" and .type == "query")' "$dash" >/dev/null || pw_fail "no instance variable"
# Every panel (rows' children included) and every target names the datasource through the variable.
bad=$(jq -c '[.. | objects | select(has("datasource") and (.datasource | type) == "object")
	| select(.datasource.type != "grafana" and .datasource.uid != "${DS_PROMETHEUS}") | .title // .refId]' "$dash")
[ "$bad" = "[]" ] || pw_fail "panels or targets with another datasource: $bad"
ids=$(jq '[.. | objects | select(has("gridPos")) | .id]' "$dash")
[ "$(jq 'length' <<<"$ids")" = "$(jq 'unique | length' <<<"$ids")" ] || pw_fail "duplicate panel ids: $ids"
jq -e '[.. | objects | select(has("gridPos")) | .gridPos | .x + .w <= 24] | all' "$dash" >/dev/null ||
	pw_fail "a panel is wider than the grid"
jq -e '[.. | objects | select(has("targets")) | .targets[] | .expr | strings] | length > 20' "$dash" >/dev/null ||
	pw_fail "fewer PromQL targets than expected"

# --- a perfwatchd on a live tree, and Prometheus scraping it ------------------------------------
python3 "$PW_TESTS/scenarios/pwscenario.py" incident2_ondemand:ondemand "$PW_WORK/tree" --tick 0.1 \
	--param baseline=3 --param incident=600 >"$PW_WORK/events" 2>"$PW_WORK/driver.err" &
PW_PIDS+=("$!")
pw_wait_for 30 "the first tree" grep -qs '"phase"' "$PW_WORK/events" || pw_fail "driver: $(cat "$PW_WORK/driver.err")"
pw_port=$(pw_free_port)
target="127.0.0.1:$pw_port"
start_perfwatchd perfwatchd "$pw_port" --procfs "$PW_WORK/tree/proc" --sysfs "$PW_WORK/tree/sys" \
	--interval 1s --baseline-warmup 3s --alert-for 2s

prom_port=$(pw_free_port)
cat >"$PW_WORK/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: perfwatch
    static_configs:
      - targets: ['$target']
YML
start_prometheus "$prom_port" "$PW_WORK/prometheus.yml"

# Wait until the alert fires (the alert panels need one), then /metrics has every family.
firing() { grep -q 'perfwatch_alerts{.*alertstate="firing"' <<<"$(curl -s "http://$target/metrics")"; }
pw_wait_for 60 "an alert firing" firing || pw_fail "no alert fired: $(curl -s "http://$target/alerts")"
curl -s "http://$target/metrics" >"$PW_WORK/metrics"

# --- every expression: parses, returns data; every name exists ---------------------------------
python3 - "$dash" "http://127.0.0.1:$prom_port" "$target" "$PW_WORK/metrics" <<'PY'
import json, re, sys, time, urllib.parse, urllib.request

dash, prom, target, metrics_file = sys.argv[1:]
doc = json.load(open(dash))
subst = {"$__rate_interval": "15s", "$instance": target, "$job": "perfwatch", "$sigmas": "4"}

def walk(node):
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk(v)

exprs = []
for panel in walk(doc.get("panels", [])):
    for t in panel.get("targets", []) if "gridPos" in panel else []:
        exprs.append((panel["title"], t["refId"], t["expr"]))
var_queries = [v["definition"] for v in doc["templating"]["list"] if v["type"] == "query"]

def fill(expr):
    for k in sorted(subst, key=len, reverse=True):
        expr = expr.replace(k, subst[k])
    if "$" in expr.replace("$1", ""):
        sys.exit("FAIL: unsubstituted variable in %r" % expr)
    return expr

def query(expr):
    url = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:  # 400: the expression does not parse
        return json.load(e)

# Names: every perfwatch_* identifier is a series name of /metrics; others are Prometheus' own.
served = {line.split("{")[0].split(" ")[0] for line in open(metrics_file) if line and not line.startswith("#")}
allowed = {"up", "scrape_duration_seconds"}
for _, _, expr in exprs:
    for name in re.findall(r"\b(perfwatch_[a-z0-9_]+)\b", expr):
        if name not in served:
            sys.exit("FAIL: %s is not in /metrics (in %r)" % (name, expr))
    for name in re.findall(r"\b([a-z_:][a-z0-9_:]*)\s*\{", expr):
        if not name.startswith("perfwatch_") and name not in allowed:
            sys.exit("FAIL: unknown metric %s in %r" % (name, expr))
for q in var_queries:
    m = re.fullmatch(r"label_values\((perfwatch_[a-z0-9_]+)(\{.*\})?, *([a-z_]+)\)", q)
    if not m or m.group(1) not in served:
        sys.exit("FAIL: variable query %r" % q)
    match = fill(m.group(1) + (m.group(2) or ""))
    url = prom + "/api/v1/label/%s/values?%s" % (m.group(3), urllib.parse.urlencode({"match[]": match}))
    deadline = time.time() + 30
    while True:
        with urllib.request.urlopen(url, timeout=10) as r:
            values = json.load(r)["data"]
        if values:
            break
        if time.time() > deadline:
            sys.exit("FAIL: variable query %r has no values" % q)
        time.sleep(0.5)
    if m.group(3) == "instance" and target not in values:
        sys.exit("FAIL: variable query %r: %s not in %s" % (q, target, values))

pending = {(title, ref): fill(expr) for title, ref, expr in exprs}
deadline = time.time() + 60
while pending:
    for key, expr in list(pending.items()):
        doc = query(expr)
        if doc.get("status") != "success":
            sys.exit("FAIL: %s/%s does not evaluate: %s\n  %s" % (key[0], key[1], doc.get("error"), expr))
        if doc["data"]["result"]:
            del pending[key]
    if pending and time.time() > deadline:
        sys.exit("FAIL: no data for %d expressions:\n%s" % (len(pending), "\n".join(
            "  %s/%s: %s" % (k[0], k[1], e) for k, e in pending.items())))
    time.sleep(0.5)
print("%d expressions and %d variable queries return data" % (len(exprs), len(var_queries)))
PY
echo PASS
