#!/usr/bin/env bash
# Receivers in the config file and on the command line: --check-config accepts a good
# [receiver.NAME] section and refuses bad ones with file:line and the reason, exit status 2.
source "$(dirname "$0")/lib.sh"

conf="$PW_WORK/perfwatchd.conf"
# expect_bad LINE REASON-ERE: the config is refused at LINE for REASON.
expect_bad() {
	local out rc=0
	out=$("$PERFWATCHD" --config "$conf" --check-config 2>&1) || rc=$?
	[ "$rc" = 2 ] || pw_fail "exit $rc, want 2: $out"
	grep -Eq "^perfwatchd: $conf:$1: $2" <<<"$out" || pw_fail "want '$conf:$1: $2', got: $out"
}

cat >"$conf" <<'CONF'
[perfwatchd]
instance = db1
webhook = http://127.0.0.1:1/a
webhook = http://127.0.0.1:1/b
alertmanager = http://127.0.0.1:9093/

[receiver.ops]
type = webhook
url = https://hooks.example.com/perf
bearer_token = s3cret
header = X-Team: perf
header.X-Env = prod
repeat_interval = 1h
timeout = 5s
ca_file = /etc/ssl/certs/ca-certificates.crt

[receiver.am]
type = alertmanager
url = http://127.0.0.1:9093
basic_auth_user = perf
basic_auth_password = pw
tls_insecure = false
CONF
out=$("$PERFWATCHD" --config "$conf" --check-config --webhook http://127.0.0.1:1/x 2>&1) || pw_fail "good config refused: $out"
# It holds secrets inline: a warning while every user may read it, naming no secret.
chmod 0644 "$conf"
out=$("$PERFWATCHD" --config "$conf" --check-config 2>&1) || pw_fail "good config refused: $out"
grep -q "warning: $conf holds a secret (\[receiver.ops\]) and every user may read it (mode 0644)" <<<"$out" ||
	pw_fail "no warning for a world-readable config with secrets: $out"
grep -qE 's3cret|= pw' <<<"$out" && pw_fail "the warning shows a secret: $out"
chmod 0640 "$conf"
out=$("$PERFWATCHD" --config "$conf" --check-config 2>&1) || pw_fail "good config refused: $out"
grep -q warning <<<"$out" && pw_fail "a warning for a config mode 0640: $out"
printf '[perfwatchd]\nwebhook = http://a/1\nwebhook = mailto:x\n' >"$conf"
expect_bad 3 "invalid url 'mailto:x'"

printf '[receiver.ops]\ntype = webhook\nurl = ftp://example.com/x\n' >"$conf"
expect_bad 3 "invalid url 'ftp://example.com/x' \(want http:// or https://\)"
printf '# receivers\n\n[receiver.ops]\ntype = webhook\nheader = X-Team: perf\n' >"$conf"
expect_bad 3 '\[receiver.ops\]: missing url'
printf '[receiver.ops]\nurl = http://a/b\n' >"$conf"
expect_bad 1 '\[receiver.ops\]: missing type'
printf '[receiver.ops]\ntype = webhook\nurl = http://a/b\nretries = 3\n' >"$conf"
expect_bad 4 "unknown key 'retries'"
printf '[receiver.ops]\ntype = pager\n' >"$conf"
expect_bad 2 "invalid type 'pager'"
printf '[receiver.ops]\ntype = webhook\nurl = http://a/b\nheader = X-Bad\n' >"$conf"
expect_bad 4 "invalid header \(want 'Name: value'; the value is not shown\)"
printf '[receiver.o p]\ntype = webhook\n' >"$conf"
expect_bad 2 'invalid receiver name'

# Flags: a bad URL, a bad queue size.
out=$("$PERFWATCHD" --config /dev/null --check-config --alertmanager localhost:9093 2>&1) && pw_fail "bad URL accepted"
grep -q -- '--alertmanager: invalid url' <<<"$out" || pw_fail "$out"
# Credentials in a flag's URL: refused, pointing to the config file; the password is not echoed.
out=$("$PERFWATCHD" --config /dev/null --check-config --webhook https://u:hunter2@hooks.example.com/x 2>&1) &&
	pw_fail "credentials in --webhook accepted"
grep -q -- '--webhook: a URL with credentials on the command line is visible to every user' <<<"$out" || pw_fail "$out"
grep -q hunter2 <<<"$out" && pw_fail "the password echoed: $out"
out=$("$PERFWATCHD" --config /dev/null --check-config --notify-queue 0 2>&1) && pw_fail "queue 0 accepted"
grep -q -- 'notify-queue: want 1 to 1000000' <<<"$out" || pw_fail "$out"
echo PASS
