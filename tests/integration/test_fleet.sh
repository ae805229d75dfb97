#!/usr/bin/env bash
# The fleet: three perfwatchd on three live fixture trees, one real Prometheus scraping them all with
# contrib/prometheus's rules and alerting to one real Alertmanager, whose only route is a webhook
# receiver that records what it gets; every perfwatchd also pushes its own alerts to that
# Alertmanager (--alertmanager, --instance NAME). An incident (incident2_ondemand: busy CPUs held at
# 76-97% of their maximum frequency) is played on ONE host; the test follows it through every stage
# of both pathways:
#
#   perfwatchd     perfwatch_alerts{alertname="CpuFrequencyLow",alertstate="firing"} for that host
#   Prometheus     the scraped series, and the forwarded alert in ALERTS, for that instance only
#   Alertmanager   /api/v2/alerts, and /api/v2/alerts/groups grouped by alertname + instance: the
#                  forwarded alert (instance = the target, external label via="prometheus") and the
#                  pushed one (labels alertname, instance = the host's --instance name, severity;
#                  generatorURL the host's /alerts), each the sick host's only
#   receiver       per pathway, a POST with status "firing" for its group, then one "resolved"
#
# and then the recovery: the alert disappears at every stage (the push with endsAt = the resolve
# time). The two other hosts (the same load at full speed under the performance governor, and a
# quiet swapping-prone box) never fire or push anything.
#
# Timing: perfwatchd at 1 s with a 6 s warmup and a 3 s pending time, re-pushing every 2 s;
# Prometheus scrapes and evaluates every second; Alertmanager groups for 1 s. About 55 s in all;
# every wait is a poll with a deadline well past what a loaded 2-CPU machine needs.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/servers.sh"

command -v jq >/dev/null || pw_skip "jq not installed"
here="$PW_TESTS/scenarios"
contrib="$(cd "$PW_TESTS/../contrib/prometheus" && pwd)"

baseline=10 incident=25
daemon_args=(--interval 1s --baseline-warmup 6s --alert-for 3s --alertmanager-resend 2s)
# NAME SPEC PARAMS: the recovery (and the calm hosts' phases) outlast the test, so no tree ever
# stands still (a frozen tree looks like every rate falling to zero).
hosts=(sick calm-performance calm-swap)
declare -A spec=(
	[sick]=incident2_ondemand:ondemand
	[calm-performance]=incident2_ondemand:performance
	[calm-swap]=incident4_swapping
)
declare -A params=(
	[sick]="--param baseline=$baseline --param incident=$incident --param recovery=600"
	[calm-performance]="--param baseline=$baseline --param incident=$incident --param recovery=600"
	[calm-swap]="--param baseline=600"
)
declare -A port instance
targets=""
for h in "${hosts[@]}"; do
	port[$h]=$(pw_free_port)
	instance[$h]="127.0.0.1:${port[$h]}"
	targets+="'${instance[$h]}', "
done
sick=${instance[sick]}

# --- the servers --------------------------------------------------------------------------------
recv_port=$(pw_free_port)
received="$PW_WORK/received.jsonl"
start_webhook_receiver "$recv_port" "$received"

am_port=$(pw_free_port)
am="http://127.0.0.1:$am_port"
cat >"$PW_WORK/alertmanager.yml" <<YML
route:
  receiver: recorder
  group_by: [alertname, instance]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: recorder
    webhook_configs:
      - url: http://127.0.0.1:$recv_port/alertmanager
        send_resolved: true
YML
start_alertmanager "$am_port" "$PW_WORK/alertmanager.yml"

prom_port=$(pw_free_port)
prom="http://127.0.0.1:$prom_port"
cat >"$PW_WORK/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
  external_labels:
    via: prometheus
rule_files:
  - $contrib/perfwatch.rules.yml
  - $contrib/perfwatch.alerts.yml
alerting:
  alertmanagers:
    - static_configs:
        - targets: ['127.0.0.1:$am_port']
scrape_configs:
  - job_name: perfwatch
    static_configs:
      - targets: [${targets%, }]
YML
start_prometheus "$prom_port" "$PW_WORK/prometheus.yml"

# --- the hosts ----------------------------------------------------------------------------------
for h in "${hosts[@]}"; do
	# shellcheck disable=SC2086
	python3 "$here/pwscenario.py" "${spec[$h]}" "$PW_WORK/$h" --tick 0.05 ${params[$h]} \
		>"$PW_WORK/$h.events" 2>"$PW_WORK/$h.driver.err" &
	PW_PIDS+=("$!")
done
for h in "${hosts[@]}"; do
	pw_wait_for 30 "$h's first tree" grep -qs '"phase"' "$PW_WORK/$h.events" ||
		pw_fail "$h: $(cat "$PW_WORK/$h.driver.err")"
	start_perfwatchd "$h" "${port[$h]}" --procfs "$PW_WORK/$h/proc" --sysfs "$PW_WORK/$h/sys" "${daemon_args[@]}" \
		--alertmanager "$am" --instance "$h"
done
t_start=$(date +%s)

# --- checks -------------------------------------------------------------------------------------
# q PROMQL: the result vector (JSON).
q() { prom_query "$prom" "$1"; }
# phase_wall HOST PHASE: when the driver entered PHASE (epoch seconds, integer), or empty.
phase_wall() { jq -r --arg p "$2" 'select(.phase == $p) | .wall | floor' "$PW_WORK/$1.events" 2>/dev/null; }
# until_epoch EPOCH WHAT COMMAND...: poll COMMAND until it holds or the clock passes EPOCH.
until_epoch() {
	local end=$1 what=$2
	shift 2
	pw_wait_for $((end - $(date +%s))) "$what" "$@"
}
declare -A seen_at
# mark NAME: note how long after the incident's onset a stage was first seen.
mark() { [ -n "${seen_at[$1]:-}" ] || seen_at[$1]=$(($(date +%s) - onset)); }

all_up() { [ "$(q 'count(up{job="perfwatch"} == 1)' | jq -r '.[0].value[1] // 0')" = 3 ]; }
pw_wait_for 60 "Prometheus scraping 3 targets" all_up || pw_fail "targets: $(q 'up')"

# The series Prometheus stores for a firing perfwatchd alert: exactly one, for the sick host.
prom_perfwatch_firing() {
	local r
	r=$(q 'perfwatch_alerts{alertstate="firing"}')
	[ "$(jq -c '[.[].metric | {alertname, instance, severity}]' <<<"$r")" = \
		"[{\"alertname\":\"CpuFrequencyLow\",\"instance\":\"$sick\",\"severity\":\"warning\"}]" ] && mark perfwatch_alerts
}
# The forwarded alert in ALERTS: firing, same name and severity, the sick instance only.
prom_alerts_firing() {
	local r
	r=$(q 'ALERTS{alertstate="firing"}')
	[ "$(jq -c '[.[].metric | {alertname, instance, severity}]' <<<"$r")" = \
		"[{\"alertname\":\"CpuFrequencyLow\",\"instance\":\"$sick\",\"severity\":\"warning\"}]" ] && mark ALERTS
}
# The two pathways into Alertmanager, PATH = prom (forwarded by Prometheus, which adds the external
# label via="prometheus"; instance is the scrape target) or direct (pushed by perfwatchd: exactly the
# labels alertname, instance = its --instance name, severity; no via, no job). Each check below
# takes PATH and marks the stage as "PATH:stage".
declare -A am_filter=([prom]='via="prometheus"' [direct]='via!="prometheus"')
declare -A sick_instance=([prom]=$sick [direct]=sick)
# jq: whether an alert's labels are the ones PATH gives it.
declare -A path_labels=(
	[prom]='.labels.via == "prometheus" and .labels.job == "perfwatch"'
	[direct]='(.labels | keys) == ["alertname", "instance", "severity"]'
)
# am_alerts FILTER: Alertmanager's active alerts matching FILTER (a label matcher).
am_alerts() { am_get "$am" "/api/v2/alerts?filter=$(jq -rn --arg f "$1" '$f | @uri')"; }
# am_firing PATH: exactly one active alert of PATH, CpuFrequencyLow of the sick host with its
# severity and PATH's labels (and, pushed, the sick host's /alerts as generatorURL).
am_firing() {
	local r
	r=$(am_alerts "${am_filter[$1]}") || return 1
	[ "$(jq -c "[.[] | {n: .labels.alertname, i: .labels.instance, s: .labels.severity, st: .status.state,
		l: (${path_labels[$1]})}]" <<<"$r" 2>/dev/null)" = \
		"[{\"n\":\"CpuFrequencyLow\",\"i\":\"${sick_instance[$1]}\",\"s\":\"warning\",\"st\":\"active\",\"l\":true}]" ] || return 1
	[ "$1" = prom ] || [ "$(jq -r '.[0].generatorURL' <<<"$r")" = "http://$sick/alerts" ] || return 1
	mark "$1:am_alerts"
}
# am_grouped PATH: one group, labelled {alertname, instance}, holding that alert.
am_grouped() {
	local r
	r=$(am_get "$am" "/api/v2/alerts/groups?filter=$(jq -rn --arg f "${am_filter[$1]}" '$f | @uri')") || return 1
	[ "$(jq -c '[.[] | select(.alerts | length > 0) | {labels, n: (.alerts | length)}]' <<<"$r" 2>/dev/null)" = \
		"[{\"labels\":{\"alertname\":\"CpuFrequencyLow\",\"instance\":\"${sick_instance[$1]}\"},\"n\":1}]" ] &&
		mark "$1:am_groups"
}
# receiver_got STATUS PATH: a notification with STATUS for PATH's group {CpuFrequencyLow, sick}
# whose alerts all have PATH's labels and STATUS.
receiver_got() {
	jq -e -s --arg st "$1" --arg i "${sick_instance[$2]}" "
		any(.[].body; .status == \$st
			and .groupLabels == {alertname: \"CpuFrequencyLow\", instance: \$i}
			and (.alerts | length > 0)
			and all(.alerts[]; .status == \$st and ${path_labels[$2]}))" "$received" >/dev/null 2>&1 &&
		mark "$2:receiver_$1"
}
am_empty() { [ "$(am_alerts "${am_filter[$1]}" | jq 'length' 2>/dev/null)" = 0 ] && mark "$1:am_gone"; }
prom_quiet() {
	[ "$(q 'perfwatch_alerts{alertstate="firing"} or ALERTS{alertstate="firing"}')" = "[]" ] && mark prom_gone
}

# Before the incident (if Prometheus came up in time to see some of it): nothing fires anywhere.
if [ "$(date +%s)" -lt $(($(phase_wall sick baseline) + baseline - 1)) ]; then
	[ "$(q 'perfwatch_alerts{alertstate="firing"} or ALERTS{alertstate="firing"}')" = "[]" ] ||
		pw_fail "alerts before the incident: $(q 'perfwatch_alerts or ALERTS')"
	[ "$(am_alerts "${am_filter[direct]}")" = "[]" ] || pw_fail "pushed before the incident: $(am_get "$am" /api/v2/alerts)"
fi

pw_wait_for $((baseline + 60)) "the incident's onset" grep -q '"incident"' "$PW_WORK/sick.events" ||
	pw_fail "the incident never began: $(cat "$PW_WORK/sick.driver.err")"
onset=$(phase_wall sick incident)
recovery=$((onset + incident))
echo "incident on $sick from $(date -ud "@$onset" +%T) to $(date -ud "@$recovery" +%T) UTC"

# While the incident lasts, every stage shows it (each must be seen before the recovery begins).
for check in prom_perfwatch_firing prom_alerts_firing "am_firing prom" "am_grouped prom" "receiver_got firing prom" \
	"am_firing direct" "am_grouped direct" "receiver_got firing direct"; do
	# shellcheck disable=SC2086
	until_epoch "$recovery" "$check" $check || {
		echo "perfwatch_alerts: $(q 'perfwatch_alerts')" >&2
		echo "ALERTS: $(q 'ALERTS')" >&2
		echo "alertmanager: $(am_get "$am" /api/v2/alerts)" >&2
		echo "received: $(cat "$received")" >&2
		pw_fail "during the incident: $check did not hold"
	}
done

# The recovery: perfwatchd resolves after 3 clear intervals; every stage follows.
pw_wait_for $((recovery - $(date +%s) + 30)) "the recovery phase" grep -q '"recovery"' "$PW_WORK/sick.events" ||
	pw_fail "the recovery never began: $(cat "$PW_WORK/sick.driver.err")"
onset_r=$(phase_wall sick recovery)
for check in prom_quiet "am_empty prom" "receiver_got resolved prom" "am_empty direct" "receiver_got resolved direct"; do
	# shellcheck disable=SC2086
	until_epoch $((onset_r + 60)) "$check" $check || {
		echo "perfwatch_alerts: $(q 'perfwatch_alerts')" >&2
		echo "ALERTS: $(q 'ALERTS')" >&2
		echo "alertmanager: $(am_get "$am" /api/v2/alerts)" >&2
		echo "received: $(cat "$received")" >&2
		pw_fail "after the recovery: $check did not hold"
	}
done

# Over the whole run: the calm hosts never fired, the sick one fired only CpuFrequencyLow (pending
# blips are allowed, as in test_incidents), and every notification was about the sick host's alert.
window="$(($(date +%s) - t_start + 5))s"
others=$(q "count_over_time(perfwatch_alerts{alertstate=\"firing\",alertname!=\"CpuFrequencyLow\"}[$window])
	or count_over_time(perfwatch_alerts{alertstate=\"firing\",instance!=\"$sick\"}[$window])
	or count_over_time(ALERTS{alertstate=\"firing\",alertname!=\"CpuFrequencyLow\"}[$window])
	or count_over_time(ALERTS{alertstate=\"firing\",instance!=\"$sick\"}[$window])")
[ "$others" = "[]" ] || pw_fail "unexpected alerts: $others"
jq -e -s --arg i "$sick" 'all(.[].body.alerts[]; .labels.alertname == "CpuFrequencyLow"
	and (if .labels.via == "prometheus" then .labels.instance == $i else .labels.instance == "sick" end))' \
	"$received" >/dev/null || pw_fail "the receiver got other alerts: $(cat "$received")"
# perfwatchd's side of the push: the sick host pushed (firing, re-pushes, the resolve) and lost
# nothing; the calm hosts never pushed.
sick_metrics=$(curl -s "http://$sick/metrics")
am_rx='{receiver="alertmanager1",type="alertmanager"}'
[ "$(awk -v m="perfwatch_notifications_sent_total$am_rx" '$1 == m { print $2 }' <<<"$sick_metrics")" -ge 2 ] ||
	pw_fail "the sick host's pushes: $(grep '^perfwatch_notifications' <<<"$sick_metrics")"
[ "$(awk -v m="perfwatch_notifications_dropped_total$am_rx" '$1 == m { print $2 }' <<<"$sick_metrics")" = 0 ] ||
	pw_fail "the sick host dropped pushes: $(grep '^perfwatch_notifications' <<<"$sick_metrics")"
for h in calm-performance calm-swap; do
	[ "$(curl -s "http://${instance[$h]}/metrics" | awk -v m="perfwatch_notifications_sent_total$am_rx" '$1 == m { print $2 }')" = 0 ] ||
		pw_fail "$h pushed alerts: $(curl -s "http://${instance[$h]}/metrics" | grep '^perfwatch_notifications')"
done
# Every rule of contrib/prometheus evaluated without error on real series (no many-to-many match,
# no bad template).
bad_rules=$(curl -s "$prom/api/v1/rules" | jq -c '[.data.groups[].rules[] | select(.health != "ok") | {name, health, lastError}]')
[ "$bad_rules" = "[]" ] || pw_fail "rules failing in Prometheus: $bad_rules"
[ "$(curl -s "$prom/api/v1/rules" | jq '[.data.groups[].rules[]] | length')" -ge 31 ] ||
	pw_fail "Prometheus did not load every rule: $(curl -s "$prom/api/v1/rules" | jq -c '[.data.groups[].name]')"
# The annotations travelled with the alert to the receiver.
jq -e -s --arg i "$sick" 'any(.[].body.alerts[]; .annotations.summary == "\($i): busy CPUs run below their maximum frequency")' \
	"$received" >/dev/null || pw_fail "no summary annotation for $sick at the receiver: $(cat "$received")"
# The recording rules evaluate for every host; the sick host's slowest busy CPU is below 85%.
[ "$(q 'count(instance:perfwatch_cpu_busy_ratio:rate1m)' | jq -r '.[0].value[1]')" = 3 ] ||
	pw_fail "recording rules: $(q 'instance:perfwatch_cpu_busy_ratio:rate1m')"
[ "$(q "min_over_time(instance:perfwatch_cpu_frequency_ratio_busy:min1m{instance=\"$sick\"}[$window]) < 0.85")" != "[]" ] ||
	pw_fail "instance:perfwatch_cpu_frequency_ratio_busy:min1m never went below 0.85 on $sick"

for stage in perfwatch_alerts ALERTS {prom,direct}:{am_alerts,am_groups,receiver_firing}; do
	echo "  $stage: seen ${seen_at[$stage]} s after the onset"
done
for stage in prom_gone {prom,direct}:{am_gone,receiver_resolved}; do
	echo "  $stage: seen $((${seen_at[$stage]} + onset - onset_r)) s after the recovery"
done
echo "  notifications received: $(wc -l <"$received"), run time $(($(date +%s) - t_start)) s after the hosts started"
echo PASS
