/* test_http_host.c — the Host check (daemon/http_host.c): what each kind of listener answers, the
 * parsing of Host headers and of http-allowed-hosts. The e2e test (test_http_rebinding.sh) runs the
 * daemon on loopback; the wildcard listeners are only here. */
#include "fixture_util.h"
#include "http_host.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

static struct sockaddr_storage addr(const char *text)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;

	if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(10071);
	} else {
		ck_assert_int_eq(inet_pton(AF_INET6, text, &v6->sin6_addr), 1);
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(10071);
	}
	return ss;
}

static bool allowed(const char *listen, const struct pw_http_hosts *names, const char *host)
{
	struct sockaddr_storage ss = addr(listen);
	return pw_http_host_allowed(names, (const struct sockaddr *)&ss, host);
}

static void expect(bool want, const char *listen, const struct pw_http_hosts *names, const char *host)
{
	ck_assert_msg(allowed(listen, names, host) == want, "%s: Host '%s' %s", listen,
	              host ? host : "(none)", want ? "refused" : "answered");
}

#define YES(listen, names, host) expect(true, listen, names, host)
#define NO(listen, names, host) expect(false, listen, names, host)

static struct pw_http_hosts parse_ok(const char *value)
{
	struct pw_http_hosts h;
	char why[256] = "";

	ck_assert_msg(pw_http_hosts_parse(value, &h, why, sizeof(why)) == 0, "'%s': %s", value, why);
	return h;
}

/* A loopback listener: its address and localhost; every other name is what rebinding sends. */
START_TEST(test_loopback)
{
	static const char *const yes[] = {NULL,
	                                  "",
	                                  "127.0.0.1",
	                                  "127.0.0.1:10071",
	                                  "127.0.0.1:1",
	                                  "127.0.0.1:",
	                                  "localhost:10071",
	                                  "LocalHost",
	                                  "localhost.",
	                                  "localhost.:80"};
	static const char *const no[] = {"evil.example",
	                                 "evil.example:10071",
	                                 "127.0.0.2",
	                                 "[::1]:10071",
	                                 "127.1",
	                                 "2130706433",
	                                 "0x7f000001",
	                                 "127.0.0.1:x",
	                                 "127.0.0.1:123456",
	                                 "127.0.0.1:1:2",
	                                 "[127.0.0.1]",
	                                 "localhost..",
	                                 ".localhost",
	                                 "a..b",
	                                 "a b",
	                                 "user@127.0.0.1",
	                                 "localhost.evil.example",
	                                 "sub.localhost",
	                                 "127.0.0.1.nip.io",
	                                 "::1",
	                                 "[::1",
	                                 "localhost\x1b",
	                                 "xn--80ak6aa92e.com"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		YES("127.0.0.1", NULL, yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		NO("127.0.0.1", NULL, no[i]);
	/* Another loopback address: its own literal, localhost. */
	YES("127.0.0.53", NULL, "127.0.0.53:10071");
	YES("127.0.0.53", NULL, "localhost");
	NO("127.0.0.53", NULL, "127.0.0.1");
	/* IPv6 loopback. */
	YES("::1", NULL, "[::1]:10071");
	YES("::1", NULL, "[0:0:0:0:0:0:0:1]");
	YES("::1", NULL, "localhost");
	NO("::1", NULL, "127.0.0.1");
	NO("::1", NULL, "::1");
	NO("::1", NULL, "[::2]");
	NO("::1", NULL, "evil.example");
	/* An IPv4-mapped listener is its IPv4 address. */
	YES("::ffff:127.0.0.1", NULL, "127.0.0.1:10071");
	YES("::ffff:127.0.0.1", NULL, "localhost");
}
END_TEST

/* A specific address that is not loopback: its literal and the configured names only. */
START_TEST(test_specific)
{
	struct pw_http_hosts names = parse_ok("perf.example");

	YES("192.0.2.10", NULL, "192.0.2.10:10071");
	NO("192.0.2.10", NULL, "localhost");
	NO("192.0.2.10", NULL, "192.0.2.11");
	NO("192.0.2.10", NULL, "web1");
	YES("192.0.2.10", &names, "perf.example:10071");
	YES("192.0.2.10", &names, "Perf.Example.");
	NO("192.0.2.10", &names, "www.perf.example");
	YES("2001:db8::10", NULL, "[2001:db8::10]:10071");
	NO("2001:db8::10", NULL, "[2001:db8::11]:10071");
}
END_TEST

/* A wildcard listener: any IP literal (no DNS, nothing to rebind) and localhost (it listens on
 * loopback too); names only when configured. */
START_TEST(test_wildcard)
{
	struct pw_http_hosts names = parse_ok("node1.example");

	for (int i = 0; i < 2; i++) {
		const char *listen = i ? "::" : "0.0.0.0";
		YES(listen, NULL, "10.1.2.3:10071");
		YES(listen, NULL, "127.0.0.1");
		YES(listen, NULL, "[2001:db8::1]:10071");
		YES(listen, NULL, "localhost:10071");
		YES(listen, NULL, NULL);
		NO(listen, NULL, "node1.example");
		NO(listen, NULL, "evil.example:10071");
		NO(listen, NULL, "127.1");
		YES(listen, &names, "node1.example:10071");
		NO(listen, &names, "node2.example");
	}
}
END_TEST

START_TEST(test_configured)
{
	struct pw_http_hosts h = parse_ok(" perf.example,METRICS.example. [2001:DB8::1] 192.0.2.7\t::2 , ,");

	ck_assert(!h.any);
	ck_assert_uint_eq(h.n, 5);
	ck_assert_str_eq(h.names[0], "perf.example");
	ck_assert_str_eq(h.names[1], "metrics.example");
	ck_assert_str_eq(h.names[2], "2001:db8::1");
	ck_assert_str_eq(h.names[3], "192.0.2.7");
	ck_assert_str_eq(h.names[4], "::2");
	YES("127.0.0.1", &h, "metrics.example:10071");
	YES("127.0.0.1", &h, "[2001:db8:0::1]:10071");
	YES("127.0.0.1", &h, "192.0.2.7");
	YES("127.0.0.1", &h, "[::2]");
	NO("127.0.0.1", &h, "192.0.2.8");
	NO("127.0.0.1", &h, "::2"); /* a Host header's IPv6 address needs its brackets */
	/* Empty: none. "*": every Host, even junk (the check is off). */
	h = parse_ok("");
	ck_assert_uint_eq(h.n, 0);
	h = parse_ok("* perf.example");
	ck_assert(h.any);
	YES("127.0.0.1", &h, "evil.example");
	YES("127.0.0.1", &h, "a b");
	/* Up to PW_HTTP_HOSTS_MAX names of up to 253 characters. */
	char many[PW_HTTP_HOSTS_MAX * 8 + 1] = "", one[300];
	for (int i = 0; i < PW_HTTP_HOSTS_MAX; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "h%d.ex ", i);
	h = parse_ok(many);
	ck_assert_uint_eq(h.n, PW_HTTP_HOSTS_MAX);
	YES("127.0.0.1", &h, "h31.ex");
	memset(one, 'a', 253);
	one[253] = '\0';
	h = parse_ok(one);
	YES("127.0.0.1", &h, one);
}
END_TEST

START_TEST(test_config_rejects)
{
	static const char *const bad[] = {"bad/name",  "a..b",  ".a",           "[::1", "::g",
	                                  "[1.2.3.4]", "127.1", "under score!", "x:80", "perf.example:10071",
	                                  "é.example"};
	struct pw_http_hosts h;
	char why[256], long_name[300], many[PW_HTTP_HOSTS_MAX * 8 + 8] = "";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(pw_http_hosts_parse(bad[i], &h, why, sizeof(why)) == -EINVAL, "'%s' taken",
		              bad[i]);
		ck_assert_ptr_nonnull(strstr(why, "neither a host name nor an IP address"));
	}
	memset(long_name, 'a', 254);
	long_name[254] = '\0';
	ck_assert_int_eq(pw_http_hosts_parse(long_name, &h, why, sizeof(why)), -EINVAL);
	for (int i = 0; i <= PW_HTTP_HOSTS_MAX; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "h%d.ex ", i);
	ck_assert_int_eq(pw_http_hosts_parse(many, &h, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "more than"));
}
END_TEST

static Suite *http_host_suite(void)
{
	Suite *s = suite_create("http_host");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_loopback);
	tcase_add_test(core, test_specific);
	tcase_add_test(core, test_wildcard);
	tcase_add_test(core, test_configured);
	tcase_add_test(malformed, test_config_rejects);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(http_host_suite());
}
