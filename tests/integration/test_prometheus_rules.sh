#!/usr/bin/env bash
# contrib/prometheus: promtool (Debian package prometheus) accepts the example configuration and the
# rule files, amtool (prometheus-alertmanager) the Alertmanager example, and the unit tests of
# contrib/prometheus/tests/ pass: each recording rule computes what it says, each alerting rule
# fires on a sick host's series and not on a healthy one's.
source "$(dirname "$0")/../e2e/lib.sh"

command -v promtool >/dev/null || pw_skip "promtool not installed (apt-get install prometheus)"
contrib="$PW_TESTS/../contrib/prometheus"

out=$(promtool check config "$contrib/prometheus.yml" 2>&1) || pw_fail "promtool check config: $out"
grep -q 'SUCCESS: 2 rule files found' <<<"$out" || pw_fail "prometheus.yml does not find its rule files: $out"
# The only warning allowed: the example's file_sd directory does not exist on this machine.
warnings=$(grep WARNING <<<"$out" | grep -v 'for file_sd in scrape job "perfwatch" does not exist' || true)
[ -z "$warnings" ] || pw_fail "promtool check config warns: $warnings"

out=$(promtool check rules "$contrib/perfwatch.rules.yml" "$contrib/perfwatch.alerts.yml" 2>&1) ||
	pw_fail "promtool check rules: $out"
if grep -qiE 'warning|error' <<<"$out"; then pw_fail "promtool check rules complains: $out"; fi

# Every alerting rule has a unit test that expects it to fire.
for name in $(awk '$1 == "-" && $2 == "alert:" { print $3 }' "$contrib/perfwatch.alerts.yml"); do
	grep -q "alertname: $name, " "$contrib/tests/alerts_test.yml" || pw_fail "no test expects $name to fire"
done
# ... and every recording rule a test of its value.
for name in $(awk '$1 == "-" && $2 == "record:" { print $3 }' "$contrib/perfwatch.rules.yml"); do
	grep -qE "expr: (round\()?$name([{, ]|$)" "$contrib/tests/rules_test.yml" || pw_fail "no test checks $name"
done

if command -v amtool >/dev/null; then
	out=$(amtool check-config "$contrib/alertmanager.yml" 2>&1) || pw_fail "amtool check-config: $out"
else
	echo "note: amtool not installed (apt-get install prometheus-alertmanager): alertmanager.yml not checked"
fi

cd "$contrib/tests"
out=$(promtool test rules rules_test.yml alerts_test.yml 2>&1) || pw_fail "promtool test rules: $out"
echo "$out"
echo PASS
