/* test_options.c — the daemon's settings on their own (daemon/options.c): defaults, flags, the INI
 * config file with flags over it, [rule.NAME] and [receiver.NAME] sections, and every bad value
 * named by "--flag:" or "file:line:". Config files are written to a temporary directory. */
#include "fixture_util.h"
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#define NS_PER_S INT64_C(1000000000)

static char dir[64];
static char conf[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pw-test-options.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/perfwatchd.conf", dir);
}

static void teardown(void)
{
	unlink(conf);
	rmdir(dir);
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
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(options_suite());
}
