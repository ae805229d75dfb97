/* test_receiver.c — alert receivers' configuration on its own (daemon/receiver.c): receivers from
 * --webhook/--alertmanager URLs, [receiver.NAME] keys, and the checks after loading (type, url, one
 * kind of credentials, unique names), each rejection with its reason. */
#include "fixture_util.h"
#include "receiver.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NS_PER_S INT64_C(1000000000)

static void key_ok(struct pw_receivers *rs, const char *name, const char *key, const char *value)
{
	char why[256] = "";

	ck_assert_msg(pw_receivers_apply_key(rs, name, 3, key, value, why, sizeof(why)) == 0, "%s = %s: %s",
	              key, value, why);
}

/* A key that must be refused with reason in its message. */
static void key_bad(const char *key, const char *value, const char *reason)
{
	struct pw_receivers rs = {0};
	char why[256] = "";

	ck_assert_int_eq(pw_receivers_apply_key(&rs, "r", 3, key, value, why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(why, reason), "%s = %s: '%s' lacks '%s'", key, value, why, reason);
}

static const char *validate(const struct pw_receivers *rs, int *ret_line)
{
	static char why[256];

	why[0] = '\0';
	return pw_receivers_validate(rs, why, sizeof(why), ret_line) == 0 ? NULL : why;
}

START_TEST(test_urls)
{
	struct pw_receivers rs = {0};
	char why[256];
	int line = -1;

	ck_assert_int_eq(pw_receivers_add_url(&rs, PW_RECEIVER_WEBHOOK, "http://a/x", why, sizeof(why)), 0);
	ck_assert_int_eq(pw_receivers_add_url(&rs, PW_RECEIVER_WEBHOOK, "https://b/y", why, sizeof(why)), 0);
	ck_assert_int_eq(
	        pw_receivers_add_url(&rs, PW_RECEIVER_ALERTMANAGER, "http://am:9093", why, sizeof(why)), 0);
	ck_assert_uint_eq(rs.n, 3);
	ck_assert_str_eq(rs.list[0].name, "webhook1");
	ck_assert_str_eq(rs.list[1].name, "webhook2");
	ck_assert_str_eq(rs.list[2].name, "alertmanager1");
	ck_assert_str_eq(pw_receiver_type_str(rs.list[2].type), "alertmanager");
	ck_assert_int_eq(rs.list[0].line, 0);
	ck_assert_int_eq(rs.list[0].timeout_ns, PW_RECEIVER_DEFAULT_TIMEOUT_NS);
	ck_assert_ptr_null(validate(&rs, &line));
	ck_assert_int_eq(line, 0);
}
END_TEST

START_TEST(test_section)
{
	struct pw_receivers rs = {0};
	int line = -1;

	key_ok(&rs, "ops.team-1", "type", "webhook");
	key_ok(&rs, "ops.team-1", "url", "https://hooks.example/x");
	key_ok(&rs, "ops.team-1", "bearer_token", "s3cret");
	key_ok(&rs, "ops.team-1", "header", "X-Team:   ops");
	key_ok(&rs, "ops.team-1", "header.X-Env", "prod");
	key_ok(&rs, "ops.team-1", "tls_insecure", "true");
	key_ok(&rs, "ops.team-1", "repeat_interval", "1h");
	key_ok(&rs, "ops.team-1", "timeout", "2s");
	key_ok(&rs, "am", "type", "alertmanager");
	key_ok(&rs, "am", "url", "http://127.0.0.1:9093");
	ck_assert_uint_eq(rs.n, 2);
	const struct pw_receiver *r = &rs.list[0];
	ck_assert_str_eq(r->name, "ops.team-1");
	ck_assert_int_eq(r->type, PW_RECEIVER_WEBHOOK);
	ck_assert_str_eq(r->bearer_token, "s3cret");
	ck_assert_uint_eq(r->nheaders, 2);
	ck_assert_str_eq(r->headers[0], "X-Team: ops");
	ck_assert_str_eq(r->headers[1], "X-Env: prod");
	ck_assert(r->tls_insecure);
	ck_assert_int_eq(r->repeat_ns, 3600 * NS_PER_S);
	ck_assert_int_eq(r->timeout_ns, 2 * NS_PER_S);
	ck_assert_int_eq(r->line, 3);
	ck_assert_ptr_null(validate(&rs, &line));
}
END_TEST

START_TEST(test_bad_keys)
{
	key_bad("type", "pager", "invalid type 'pager'");
	key_bad("url", "ftp://x/", "want http:// or https://");
	key_bad("url", "http://", "no host");
	key_bad("url", "http://a b/", "no host, or blanks");
	key_bad("header", "no colon", "want 'Name: value'");
	key_bad("header", "Bad Name: x", "invalid header name");
	key_bad("header.X-A", "a\r\nX-Injected: 1", "line breaks not allowed");
	key_bad("tls_insecure", "maybe", "invalid boolean");
	key_bad("timeout", "10ms", "at least 100ms");
	key_bad("repeat_interval", "soon", "invalid duration");
	key_bad("no_such_key", "1", "no_such_key");

	struct pw_receivers rs = {0};
	char why[256], big[2048];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(pw_receivers_apply_key(&rs, "bad name!", 1, "type", "webhook", why, sizeof(why)),
	                 -EINVAL);
	ck_assert_msg(strstr(why, "invalid receiver name"), "%s", why);
	ck_assert_int_eq(pw_receivers_apply_key(&rs, "r", 1, "bearer_token", big, why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(why, "too long"), "%s", why);
	for (int i = 0; i < PW_RECEIVER_HEADERS_MAX; i++)
		key_ok(&rs, "r", "header", "X-A: 1");
	ck_assert_int_eq(pw_receivers_apply_key(&rs, "r", 1, "header", "X-A: 1", why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(why, "too many headers"), "%s", why);
}
END_TEST

START_TEST(test_too_many)
{
	struct pw_receivers rs = {0};
	char why[256];

	for (int i = 0; i < PW_RECEIVERS_MAX; i++)
		ck_assert_int_eq(
		        pw_receivers_add_url(&rs, PW_RECEIVER_WEBHOOK, "http://a/", why, sizeof(why)), 0);
	ck_assert_int_eq(pw_receivers_add_url(&rs, PW_RECEIVER_WEBHOOK, "http://a/", why, sizeof(why)),
	                 -EINVAL);
	ck_assert_msg(strstr(why, "too many receivers"), "%s", why);
	ck_assert_int_eq(pw_receivers_apply_key(&rs, "more", 1, "type", "webhook", why, sizeof(why)),
	                 -EINVAL);
	ck_assert_uint_eq(rs.n, PW_RECEIVERS_MAX);
}
END_TEST

START_TEST(test_validate)
{
	struct pw_receivers rs = {0};
	const char *why;
	int line = -1;

	key_ok(&rs, "a", "url", "http://a/");
	why = validate(&rs, &line);
	ck_assert_msg(why && strstr(why, "[receiver.a]: missing type"), "%s", why);
	ck_assert_int_eq(line, 3);

	memset(&rs, 0, sizeof(rs));
	key_ok(&rs, "a", "type", "webhook");
	why = validate(&rs, &line);
	ck_assert_msg(why && strstr(why, "[receiver.a]: missing url"), "%s", why);

	key_ok(&rs, "a", "url", "http://a/");
	key_ok(&rs, "a", "bearer_token", "t");
	key_ok(&rs, "a", "basic_auth_user", "u");
	why = validate(&rs, &line);
	ck_assert_msg(why && strstr(why, "exclude each other"), "%s", why);

	/* Two entries of one name (sections merge by name, so only a hand-built list has them). */
	memset(&rs, 0, sizeof(rs));
	key_ok(&rs, "a", "type", "webhook");
	key_ok(&rs, "a", "url", "http://a/");
	rs.list[1] = rs.list[0];
	rs.list[1].line = 9;
	rs.n = 2;
	why = validate(&rs, &line);
	ck_assert_msg(why && strstr(why, "receiver name 'a' used twice"), "%s", why);
	ck_assert_int_eq(line, 9);
}
END_TEST

static Suite *receiver_suite(void)
{
	Suite *s = suite_create("receiver");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_urls);
	tcase_add_test(core, test_section);
	tcase_add_test(malformed, test_bad_keys);
	tcase_add_test(malformed, test_too_many);
	tcase_add_test(malformed, test_validate);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(receiver_suite());
}
