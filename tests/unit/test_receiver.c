/* test_receiver.c — alert receivers' configuration on its own (daemon/receiver.c): receivers from
 * --webhook/--alertmanager URLs, [receiver.NAME] keys, and the checks after loading (type, url, one
 * kind of credentials, unique names), each rejection with its reason. */
#include "fixture_util.h"
#include "receiver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	key_bad("header.X-A", "a\r\nX-Injected: 1", "control character 0x0d at byte 1");
	key_bad("tls_insecure", "maybe", "invalid boolean");
	key_bad("timeout", "10ms", "at least 100ms");
	key_bad("repeat_interval", "soon", "invalid duration");
	key_bad("no_such_key", "1", "no_such_key");

	struct pw_receivers rs = {0};
	char why[256], big[5000];
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

/* CR, LF and other control characters in a credential or header would inject headers into the
 * request: refused, and the message shows where, never the value. */
START_TEST(test_control_characters)
{
	static const char *const keys[] = {"bearer_token", "basic_auth_user", "basic_auth_password",
	                                   "header.X-Key", "url"};
	static const char *const values[] = {"a\rX-Injected: 1", "a\nX-Injected: 1", "a\x01X-Injected",
	                                     "a\x7fX-Injected"};

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
			struct pw_receivers rs = {0};
			char why[256] = "", value[64];
			snprintf(value, sizeof(value), "%s%s", k == 4 ? "http://h/" : "", values[v]);
			ck_assert_int_eq(
			        pw_receivers_apply_key(&rs, "r", 3, keys[k], value, why, sizeof(why)),
			        -EINVAL);
			ck_assert_msg(strstr(why, "control character"), "%s: %s", keys[k], why);
			ck_assert_msg(!strstr(why, "Injected"), "%s: the value leaked: %s", keys[k], why);
		}
	/* A tab is allowed in a header value (HTTP allows it), not in a token. */
	struct pw_receivers rs = {0};
	key_ok(&rs, "r", "header.X-A", "a\tb");
	key_bad("bearer_token", "a\tb", "control character 0x09");
	key_bad("basic_auth_user", "a:b", "':' not allowed");
}
END_TEST

/* Errors never echo a password in a URL or a header's value. */
START_TEST(test_errors_hide_secrets)
{
	static const struct {
		const char *key, *value;
	} cases[] = {
	        {"url", "ftp://user:hunter2@host/x"},          {"url", "http://user:hunter2@"},
	        {"url", "http://user:hunter2@host/a b"},       {"header", "X-Token hunter2"},
	        {"header", "Authorization Bearer hunter2: x"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pw_receivers rs = {0};
		char why[512] = "";
		ck_assert_int_eq(
		        pw_receivers_apply_key(&rs, "r", 3, cases[i].key, cases[i].value, why, sizeof(why)),
		        -EINVAL);
		ck_assert_msg(why[0] && !strstr(why, "hunter2"), "%s = %s: '%s'", cases[i].key,
		              cases[i].value, why);
	}
	/* The redacted URL still says which one it is. */
	struct pw_receivers rs = {0};
	char why[512];
	pw_receivers_apply_key(&rs, "r", 3, "url", "ftp://user:hunter2@host/x", why, sizeof(why));
	ck_assert_msg(strstr(why, "ftp://***@host/x"), "%s", why);
	ck_assert(pw_url_has_userinfo("https://u:p@h/x"));
	ck_assert(pw_url_has_userinfo("http://u@h"));
	ck_assert(!pw_url_has_userinfo("http://h/x@y"));
	ck_assert(!pw_url_has_userinfo("http://h/?a=b@c"));
	ck_assert(!pw_url_has_userinfo("http://h/?next=http://u:p@x"));
}
END_TEST

static char dir[64];

static void secrets_setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pw-test-receiver.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void secrets_teardown(void)
{
	static const char *const names[] = {"token", "crlf", "big", "ctl", "empty",
	                                    "fifo",  "pw",   "hdr", "url"};
	char path[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* Write text into DIR/name; returns the path (static). */
static const char *put(const char *name, const char *text, size_t len)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

#define PUT(name, text) put(name, text, sizeof(text) - 1)

START_TEST(test_secret_files)
{
	struct pw_receivers rs = {0};
	char why[512];

	unsetenv("CREDENTIALS_DIRECTORY");
	key_ok(&rs, "r", "type", "webhook");
	key_ok(&rs, "r", "url_file", PUT("url", "https://u:p@hooks.example/x\n"));
	key_ok(&rs, "r", "bearer_token_file", PUT("token", "s3cret\n"));
	key_ok(&rs, "r", "header_file.X-Api-Key", PUT("hdr", "k3y\r\n"));
	key_ok(&rs, "p", "basic_auth_password_file", PUT("pw", "pass word"));
	ck_assert_str_eq(rs.list[0].url, "https://u:p@hooks.example/x");
	ck_assert_str_eq(rs.list[0].bearer_token, "s3cret");
	ck_assert_str_eq(rs.list[0].headers[0], "X-Api-Key: k3y");
	ck_assert_str_eq(rs.list[1].basic_password, "pass word");
	ck_assert(!rs.list[0].inline_secret && !rs.list[1].inline_secret);
	/* Inline secrets mark the receiver: its config file then holds one. */
	key_ok(&rs, "p", "url", "http://h/");
	ck_assert(!rs.list[1].inline_secret);
	key_ok(&rs, "q", "url", "http://u:p@h/");
	key_ok(&rs, "s", "header.Authorization", "Basic x");
	key_ok(&rs, "t", "bearer_token", "x");
	ck_assert(rs.list[2].inline_secret && rs.list[3].inline_secret && rs.list[4].inline_secret);

	/* A relative path is a systemd credential: taken in $CREDENTIALS_DIRECTORY, else refused. */
	key_bad("bearer_token_file", "token", "needs $CREDENTIALS_DIRECTORY");
	ck_assert_int_eq(setenv("CREDENTIALS_DIRECTORY", dir, 1), 0);
	memset(&rs, 0, sizeof(rs));
	key_ok(&rs, "r", "bearer_token_file", "token");
	ck_assert_str_eq(rs.list[0].bearer_token, "s3cret");
	unsetenv("CREDENTIALS_DIRECTORY");

	/* Both ways for one secret. */
	ck_assert_int_eq(pw_receivers_apply_key(&rs, "r", 3, "bearer_token", "x", why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(why, "exclude each other"), "%s", why);

	/* Refused, naming the key and the file, never what it holds. */
	char big[5000];
	memset(big, 'b', sizeof(big));
	const char *p = put("big", big, sizeof(big));
	key_bad("bearer_token_file", p, "too big");
	key_bad("bearer_token_file", PUT("ctl", "s3cret\rX-Injected: 1\n"), "control character 0x0d");
	key_bad("bearer_token_file", PUT("ctl", "s3cret\rX-Injected: 1\n"), "/ctl)");
	key_bad("bearer_token_file", PUT("empty", "\n"), "is empty");
	key_bad("basic_auth_password_file", "/nonexistent/pw",
	        "basic_auth_password_file: cannot open /nonexistent/pw");
	key_bad("bearer_token_file", dir, "is not a regular file");
	char fifo[128];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	key_bad("bearer_token_file", fifo, "is not a regular file"); /* and did not block */
	struct pw_receivers one = {0};
	ck_assert_int_eq(pw_receivers_apply_key(&one, "r", 3, "bearer_token_file",
	                                        put("ctl",
	                                            "ab\x01"
	                                            "cd",
	                                            5),
	                                        why, sizeof(why)),
	                 -EINVAL);
	ck_assert_msg(!strstr(why, "ab") || strstr(why, dir), "%s", why);
	ck_assert_str_eq(one.list[0].bearer_token, "");
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
	tcase_add_test(malformed, test_control_characters);
	tcase_add_test(malformed, test_errors_hide_secrets);
	TCase *secrets = tcase_create("secrets");
	tcase_add_checked_fixture(secrets, secrets_setup, secrets_teardown);
	tcase_add_test(secrets, test_secret_files);
	suite_add_tcase(s, secrets);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(receiver_suite());
}
