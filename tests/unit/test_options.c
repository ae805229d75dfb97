/* test_options.c — the daemon's settings on their own (daemon/options.c): defaults, flags, the INI
 * config file with flags over it, [rule.NAME] and [receiver.NAME] sections, and every bad value
 * named by "--flag:" or "file:line:". Config files are written to a temporary directory. */
#include "fixture_util.h"
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#define NS_PER_S INT64_C(1000000000)

static char dir[64];
static char conf[128];

static void setup(void)
{
	pw_scratch_make(dir, sizeof(dir), NULL, "options");
	snprintf(conf, sizeof(conf), "%s", pw_scratch_path(dir, "perfwatchd.conf"));
}

static void teardown(void)
{
	pw_scratch_remove(dir);
}

static void write_conf(const char *text)
{
	FILE *f = fopen(conf, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Load argv (NULL-terminated, without the program name); returns pw_options_load's result. */
static int load(struct pw_options *o, char *err, size_t err_size, const char *const *args)
{
	char *argv[32] = {"perfwatchd"};
	int argc = 1;

	for (; args[argc - 1]; argc++) {
		ck_assert_int_lt(argc, 31);
		argv[argc] = (char *)args[argc - 1];
	}
	err[0] = '\0';
	return pw_options_load(o, argc, argv, err, err_size);
}

#define LOAD(o, err, ...) load(o, err, sizeof(err), (const char *const[]){__VA_ARGS__, NULL})

/* The error for a config file of one bad text, which must name the file and the line. */
static void assert_conf_error(const char *text, int line, const char *reason)
{
	struct pw_options o;
	char err[512], want[256];

	write_conf(text);
	ck_assert_int_eq(LOAD(&o, err, "--config", conf), -EINVAL);
	snprintf(want, sizeof(want), "%s:%d: ", conf, line);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "'%s' does not start with '%s'", err, want);
	ck_assert_msg(strstr(err, reason), "'%s' lacks '%s'", err, reason);
}

START_TEST(test_defaults)
{
	struct pw_options o;
	char err[256];

	/* A config path that does not exist and was not given: the default file is optional. */
	ck_assert_int_eq(LOAD(&o, err, "--procfs", "/proc"), 0);
	ck_assert_str_eq(o.listen, "127.0.0.1:10071");
	ck_assert_int_eq(o.interval_ns, NS_PER_S);
	ck_assert_int_eq(o.history_ns, 3600 * NS_PER_S);
	ck_assert_int_eq(o.alert_for_ns, 30 * NS_PER_S);
	ck_assert_int_eq(o.log_level, LOG_INFO);
	ck_assert_int_eq(o.notify_queue, 1024);
	ck_assert_int_eq(o.http_max_connections, 512);
	ck_assert_uint_eq(o.receivers.n, 0);
	ck_assert(!o.check_config);
	ck_assert(!o.interrupts_per_cpu);
}
END_TEST

START_TEST(test_flags)
{
	struct pw_options o;
	char err[256];

	ck_assert_msg(LOAD(&o, err, "--interval", "250ms", "--history=10m", "--listen", "[::1]:9100",
	                   "--interrupts-per-cpu", "--log-level", "debug", "--notify-queue", "7", "--webhook",
	                   "http://127.0.0.1:9/hook", "--alertmanager", "http://127.0.0.1:9093",
	                   "--check-config") == 0,
	              "%s", err);
	ck_assert_int_eq(o.interval_ns, NS_PER_S / 4);
	ck_assert_int_eq(o.history_ns, 600 * NS_PER_S);
	ck_assert_str_eq(o.listen, "[::1]:9100");
	ck_assert_int_eq(o.listen_addr.ss_family, AF_INET6);
	ck_assert(o.interrupts_per_cpu);
	ck_assert_int_eq(o.log_level, LOG_DEBUG);
	ck_assert_uint_eq(o.notify_queue, 7);
	ck_assert(o.check_config);
	ck_assert_uint_eq(o.receivers.n, 2);
	ck_assert_str_eq(o.receivers.list[0].name, "webhook1");
	ck_assert_int_eq(o.receivers.list[0].type, PW_RECEIVER_WEBHOOK);
	ck_assert_str_eq(o.receivers.list[1].name, "alertmanager1");
	ck_assert_int_eq(o.receivers.list[1].type, PW_RECEIVER_ALERTMANAGER);
}
END_TEST

START_TEST(test_config_file)
{
	struct pw_options o;
	char err[512];

	write_conf("# comment\n"
	           "interval = 2s\n"
	           "[perfwatchd]\n"
	           "history = 5m\n"
	           "instance = web-1\n"
	           "[rule.IoWaitHigh]\n"
	           "enabled = false\n"
	           "[receiver.ops]\n"
	           "type = webhook\n"
	           "url = http://127.0.0.1:9/ops\n"
	           "header = X-Team: ops\n");
	ck_assert_msg(LOAD(&o, err, "--config", conf) == 0, "%s", err);
	ck_assert_int_eq(o.interval_ns, 2 * NS_PER_S);
	ck_assert_int_eq(o.history_ns, 300 * NS_PER_S);
	ck_assert_str_eq(o.instance, "web-1");
	ck_assert_uint_eq(o.receivers.n, 1);
	ck_assert_str_eq(o.receivers.list[0].name, "ops");
	ck_assert_str_eq(o.receivers.list[0].url, "http://127.0.0.1:9/ops");
	ck_assert_uint_eq(o.receivers.list[0].nheaders, 1);
	ck_assert_int_eq(o.receivers.list[0].line, 8);

	/* Flags override the file, wherever they stand relative to --config. */
	ck_assert_msg(LOAD(&o, err, "--interval", "3s", "--config", conf) == 0, "%s", err);
	ck_assert_int_eq(o.interval_ns, 3 * NS_PER_S);
	ck_assert_int_eq(o.history_ns, 300 * NS_PER_S);
}
END_TEST

START_TEST(test_help_version)
{
	struct pw_options o;
	char err[256];

	ck_assert(freopen("/dev/null", "w", stdout));
	ck_assert_int_eq(LOAD(&o, err, "--help"), 1);
	ck_assert_int_eq(LOAD(&o, err, "--version"), 1);
}
END_TEST

START_TEST(test_parse_listen)
{
	struct sockaddr_storage a;
	socklen_t len;

	ck_assert_int_eq(pw_parse_listen("127.0.0.1:80", &a, &len), 0);
	ck_assert_int_eq(a.ss_family, AF_INET);
	ck_assert_int_eq(pw_parse_listen("[::]:80", &a, &len), 0);
	ck_assert_int_eq(a.ss_family, AF_INET6);
	ck_assert_int_eq(pw_parse_listen(":10071", &a, &len), 0);
	ck_assert_int_eq(pw_parse_listen("127.0.0.1", &a, &len), -EINVAL);
	ck_assert_int_eq(pw_parse_listen("127.0.0.1:0x50", &a, &len), -EINVAL);
	ck_assert_int_eq(pw_parse_listen("127.0.0.1:65536", &a, &len), -EINVAL);
	ck_assert_int_eq(pw_parse_listen("[::1:80", &a, &len), -EINVAL);
	ck_assert_int_eq(pw_parse_listen("", &a, &len), -EINVAL);
}
END_TEST

START_TEST(test_bad_flags)
{
	struct pw_options o;
	char err[512];

	ck_assert_int_eq(LOAD(&o, err, "--no-such-flag"), -EINVAL);
	ck_assert_msg(strstr(err, "--no-such-flag: unknown flag"), "%s", err);
	ck_assert_int_eq(LOAD(&o, err, "--interval"), -EINVAL);
	ck_assert_msg(strstr(err, "missing value"), "%s", err);
	ck_assert_int_eq(LOAD(&o, err, "--interval", "fast"), -EINVAL);
	ck_assert_msg(strncmp(err, "--interval: ", 12) == 0, "%s", err);
	ck_assert_int_eq(LOAD(&o, err, "--log-level", "loud"), -EINVAL);
	ck_assert_msg(strncmp(err, "--log-level: ", 13) == 0, "%s", err);
	ck_assert_int_eq(LOAD(&o, err, "--notify-queue", "-1"), -EINVAL);
	ck_assert_msg(strncmp(err, "--notify-queue: ", 16) == 0, "%s", err);
	ck_assert_int_eq(LOAD(&o, err, "--listen", "nowhere"), -EINVAL);
	ck_assert_msg(strncmp(err, "--listen: ", 10) == 0, "%s", err);
	ck_assert_int_eq(LOAD(&o, err, "--webhook", "ftp://x"), -EINVAL);
	ck_assert_msg(strncmp(err, "--webhook: ", 11) == 0, "%s", err);
	ck_assert_int_eq(LOAD(&o, err, "stray"), -EINVAL);
	ck_assert_msg(strstr(err, "stray: unexpected argument"), "%s", err);
	/* A --config that was named must exist. */
	ck_assert_int_eq(LOAD(&o, err, "--config", "/nonexistent/perfwatchd.conf"), -EINVAL);
	ck_assert_msg(strstr(err, "/nonexistent/perfwatchd.conf: cannot open"), "%s", err);
}
END_TEST

START_TEST(test_bad_config)
{
	assert_conf_error("interval = 1s\nhistory = forever\n", 2, "invalid duration 'forever'");
	assert_conf_error("[perfwatchd]\nno_such_key = 1\n", 2, "unknown key 'no_such_key'");
	assert_conf_error("\n\n[nonsense]\nx = 1\n", 4, "unknown section [nonsense]");
	assert_conf_error("help = 1\n", 1, "unknown key 'help'");
	assert_conf_error("this is not ini\n", 1, "syntax error");
	assert_conf_error("[rule.NoSuchRule]\nenabled = true\n", 2, "unknown rule [rule.NoSuchRule]");
	/* A receiver without a url is found after loading and named by its section's line. */
	assert_conf_error("interval = 1s\n\n[receiver.ops]\ntype = webhook\n", 3,
	                  "[receiver.ops]: missing url");
	/* A section's bad value is named at the value's line. */
	assert_conf_error("[receiver.ops]\ntype = pager\n", 2, "invalid type 'pager'");
}
END_TEST

#define HASH "$2b$04$ked814RXI13WwpPz4C.dHeTwBFR1PpANMF8jKpFIc42Jvy5Pon6ji"

/* libinih reads 200 bytes a line: the rest of a long line used to be read as a line of its own,
 * so the end of a comment became configuration. */
START_TEST(test_long_lines)
{
	struct pw_options o;
	char err[512], text[20000], filler[9000];

	/* A comment whose text from byte 199 on reads "protect = /metrics": still a comment. */
	memset(filler, 'x', 198);
	filler[198] = '\0';
	snprintf(text, sizeof(text), "[auth]\nuser.prom = " HASH "\n#%s protect = /metrics\n;%s[x]\n", filler,
	         filler);
	write_conf(text);
	ck_assert_msg(LOAD(&o, err, "--config", conf) == 0, "%s", err);
	ck_assert_uint_eq(o.auth.protect, 0);
	ck_assert_uint_eq(o.auth.n_users, 1);

	/* A 4000-byte token and a URL of 1000 bytes: read whole; the next line keeps its number. */
	memset(filler, 't', 4000);
	filler[4000] = '\0';
	snprintf(text, sizeof(text),
	         "[receiver.ops]\ntype = webhook\nbearer_token = %s   ; the token\n"
	         "url = http://127.0.0.1:9/%.*s\ntimeout = never\n",
	         filler, 970, filler);
	assert_conf_error(text, 5, "invalid duration 'never'");
	strstr(text, "timeout")[0] = '\0';
	write_conf(text);
	ck_assert_msg(LOAD(&o, err, "--config", conf) == 0, "%s", err);
	ck_assert_uint_eq(strlen(o.receivers.list[0].bearer_token), 4000);
	ck_assert_uint_eq(strlen(o.receivers.list[0].url), 19 + 970);

	/* Over PW_CONFIG_LINE_MAX: refused at its line, whatever it is. */
	memset(filler, 'y', 8500);
	filler[8500] = '\0';
	snprintf(text, sizeof(text), "interval = 1s\n\n[perfwatchd]\ninstance = %s\n", filler);
	assert_conf_error(text, 4, "line longer than 8192 bytes");
	snprintf(text, sizeof(text), "# %s\n", filler);
	assert_conf_error(text, 1, "line longer than 8192 bytes");
	/* A long section header, and a value too long for its field. */
	snprintf(text, sizeof(text), "\n[receiver.%.300s]\n", filler);
	assert_conf_error(text, 2, "section header longer than");
	snprintf(text, sizeof(text), "[receiver.a]\n\nurl = http://%.3000s\n", filler);
	assert_conf_error(text, 3, "url: too long (at most 1023 bytes)");
	write_conf("interval = 1s\ninstance = a\0b\n");
	{
		FILE *f = fopen(conf, "w");
		fwrite("interval = 1s\ninst\0ance = a\n", 1, 28, f);
		fclose(f);
		ck_assert_int_eq(LOAD(&o, err, "--config", conf), -EINVAL);
		ck_assert_msg(strstr(err, ":2: NUL byte in line"), "%s", err);
	}
}
END_TEST

/* libinih reads an indented line after a key as more of that key's value and calls the handler
 * again, replacing the value: such a line is refused; indented keys are keys. */
START_TEST(test_continuation)
{
	struct pw_options o;
	char err[512];

	assert_conf_error(
	        "[receiver.ops]\ntype = webhook\nurl = http://127.0.0.1:9/\nbearer_token = a\n  b\n", 5,
	        "continuation lines are not supported");
	assert_conf_error("[auth]\nuser.a = " HASH "\nprotect = /metrics\n\t/status\n", 4,
	                  "continuation lines are not supported");
	write_conf("[perfwatchd]\n  interval = 2s\n  history = 5m\n[receiver.ops]\n\ttype = webhook\n"
	           "\turl = http://127.0.0.1:9/\n  # an indented comment\n");
	ck_assert_msg(LOAD(&o, err, "--config", conf) == 0, "%s", err);
	ck_assert_int_eq(o.interval_ns, 2 * NS_PER_S);
	ck_assert_int_eq(o.history_ns, 300 * NS_PER_S);
	ck_assert_str_eq(o.receivers.list[0].url, "http://127.0.0.1:9/");
}
END_TEST

/* A single-valued key given twice: the second would silently win. */
START_TEST(test_repeated_keys)
{
	struct pw_options o;
	char err[512];

	assert_conf_error("interval = 1s\n[perfwatchd]\ninterval = 2s\n", 3,
	                  "'interval' given twice in [perfwatchd] (first on line 1)");
	assert_conf_error("[receiver.a]\nbearer_token = x\n[rule.IoWaitHigh]\nfor = 1s\n[receiver.a]\n"
	                  "bearer_token = y\n",
	                  6, "'bearer_token' given twice in [receiver.a] (first on line 2)");
	assert_conf_error("[rule.IoWaitHigh]\nfor = 1s\nfor = 2s\n", 3, "given twice");
	assert_conf_error("[auth]\nprotect = /metrics\nprotect = /status\n", 3, "given twice");
	/* Repeatable keys: webhook, alertmanager, a receiver's header. */
	write_conf(
	        "webhook = http://127.0.0.1:9/a\nwebhook = http://127.0.0.1:9/b\n"
	        "[receiver.r]\ntype = webhook\nurl = http://127.0.0.1:9/r\nheader = A: 1\nheader = B: 2\n");
	ck_assert_msg(LOAD(&o, err, "--config", conf) == 0, "%s", err);
	ck_assert_uint_eq(o.receivers.n, 3);
	ck_assert_uint_eq(o.receivers.list[2].nheaders, 2);
	/* A syntax error before a bad value: each error names its own line. */
	assert_conf_error("not ini\ninterval = soon\n", 1, "syntax error");
}
END_TEST

/* Credentials in a URL on the command line show in /proc/PID/cmdline: refused, pointing to the
 * config file; the URL's password is not in the message. */
START_TEST(test_cli_credentials)
{
	struct pw_options o;
	char err[1024];

	write_conf("");
	ck_assert_int_eq(LOAD(&o, err, "--config", conf, "--webhook", "https://u:hunter2@hooks.example/x"),
	                 -EINVAL);
	ck_assert_msg(strncmp(err, "--webhook: ", 11) == 0 && strstr(err, "/proc/PID/cmdline") &&
	                      strstr(err, "basic_auth_password_file") && strstr(err, conf) &&
	                      !strstr(err, "hunter2"),
	              "%s", err);
	ck_assert_int_eq(LOAD(&o, err, "--alertmanager", "http://u@am:9093"), -EINVAL);
	ck_assert_msg(strstr(err, "--alertmanager: "), "%s", err);
	/* In the file they are allowed (it can be kept from other users). */
	write_conf("webhook = https://u:hunter2@hooks.example/x\n");
	ck_assert_msg(LOAD(&o, err, "--config", conf) == 0, "%s", err);
}
END_TEST

/* A config holding a secret that every user may read: a warning naming file and receiver. */
START_TEST(test_config_exposed)
{
	struct pw_options o;
	char err[512], msg[512], token[160], text[512];

	write_conf("[receiver.ops]\ntype = webhook\nurl = http://127.0.0.1:9/\nbearer_token = hunter2\n");
	ck_assert_int_eq(chmod(conf, 0644), 0);
	ck_assert_msg(LOAD(&o, err, "--config", conf) == 0, "%s", err);
	ck_assert_int_eq(pw_options_config_exposed(&o, msg, sizeof(msg)), 1);
	ck_assert_msg(strstr(msg, conf) && strstr(msg, "[receiver.ops]") && strstr(msg, "0644") &&
	                      !strstr(msg, "hunter2"),
	              "%s", msg);
	ck_assert_int_eq(chmod(conf, 0640), 0);
	ck_assert_int_eq(pw_options_config_exposed(&o, msg, sizeof(msg)), 0);
	/* The secret in a file of its own: the config holds none. */
	snprintf(token, sizeof(token), "%s/token", dir);
	FILE *f = fopen(token, "w");
	fputs("hunter2\n", f);
	fclose(f);
	snprintf(text, sizeof(text),
	         "[receiver.ops]\ntype = webhook\nurl = http://127.0.0.1:9/\nbearer_token_file = %s\n",
	         token);
	write_conf(text);
	ck_assert_int_eq(chmod(conf, 0644), 0);
	ck_assert_msg(LOAD(&o, err, "--config", conf) == 0, "%s", err);
	ck_assert_str_eq(o.receivers.list[0].bearer_token, "hunter2");
	ck_assert_int_eq(pw_options_config_exposed(&o, msg, sizeof(msg)), 0);
	unlink(token);
}
END_TEST

static Suite *options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(malformed, setup, teardown);
	tcase_add_test(core, test_defaults);
	tcase_add_test(core, test_flags);
	tcase_add_test(core, test_config_file);
	tcase_add_test(core, test_help_version);
	tcase_add_test(core, test_parse_listen);
	tcase_add_test(malformed, test_bad_flags);
	tcase_add_test(malformed, test_bad_config);
	tcase_add_test(malformed, test_long_lines);
	tcase_add_test(malformed, test_continuation);
	tcase_add_test(malformed, test_repeated_keys);
	tcase_add_test(malformed, test_cli_credentials);
	tcase_add_test(core, test_config_exposed);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(options_suite());
}
