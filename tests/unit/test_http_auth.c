/* test_http_auth.c — the daemon's basic-auth module on its own: [auth] parsing (bcrypt only, cost
 * cap), crypt(3) verification, the cache of verified and failed credentials, and the per-client
 * and global budgets for bcrypt work. Time is passed in, so the refill is tested without waiting.
 * Hashes are cost 4 (16 rounds) so the suite runs fast under ASan. */
#include "fixture_util.h"
#include "http_auth.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NS_PER_S INT64_C(1000000000)
/* crypt.crypt("right", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)) and "other". */
#define HASH_RIGHT "$2b$04$ked814RXI13WwpPz4C.dHeTwBFR1PpANMF8jKpFIc42Jvy5Pon6ji"
#define HASH_OTHER "$2b$04$Y5vaAMnDYH/SYq4rhPazvuWSs7cH4JBw4U5L4EVFl93cfb63XE2Aa"

static struct sockaddr_in addr4(const char *ip)
{
	struct sockaddr_in a = {.sin_family = AF_INET};

	ck_assert_int_eq(inet_pton(AF_INET, ip, &a.sin_addr), 1);
	return a;
}

static void set_ok(struct pw_auth_config *cfg, const char *key, const char *value)
{
	char why[256] = "";

	ck_assert_msg(pw_auth_config_set(cfg, key, value, why, sizeof(why)) == 0, "%s: %s", key, why);
}

static void set_bad(const char *key, const char *value, const char *want)
{
	struct pw_auth_config cfg = {0};
	char why[256] = "";

	ck_assert_int_eq(pw_auth_config_set(&cfg, key, value, why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(why, want), "'%s = %s' said '%s', want '%s'", key, value, why, want);
}

static struct pw_auth *make(void)
{
	struct pw_auth_config cfg = {0};

	set_ok(&cfg, "user.prom", HASH_RIGHT);
	set_ok(&cfg, "user.ops", HASH_OTHER);
	set_ok(&cfg, "protect", "/metrics, /status");
	struct pw_auth *a = pw_auth_new(&cfg);
	ck_assert_ptr_nonnull(a);
	return a;
}

START_TEST(test_config)
{
	struct pw_auth_config cfg = {0};
	char why[256];

	set_ok(&cfg, "user.a", "$2y$10$ked814RXI13WwpPz4C.dHeTwBFR1PpANMF8jKpFIc42Jvy5Pon6ji");
	set_ok(&cfg, "user.b", "$2a$12$ked814RXI13WwpPz4C.dHeTwBFR1PpANMF8jKpFIc42Jvy5Pon6ji");
	set_ok(&cfg, "protect", "/metrics /alerts");
	ck_assert_uint_eq(cfg.n_users, 2);
	ck_assert_uint_eq(cfg.protect, pw_auth_endpoint("/metrics") | pw_auth_endpoint("/alerts"));
	ck_assert_uint_eq(pw_auth_endpoint("/nope"), 0);
	ck_assert_int_eq(pw_auth_config_check(&cfg, why, sizeof(why)), 0);
	/* Nothing protected: no checker at all, today's behaviour. */
	struct pw_auth_config open = cfg;
	open.protect = 0;
	ck_assert_ptr_null(pw_auth_new(&open));
	ck_assert_int_eq(errno, 0);
	ck_assert(!pw_auth_protects(NULL, "/metrics"));
	/* protect without users */
	struct pw_auth_config nobody = {0};
	set_ok(&nobody, "protect", "/metrics");
	ck_assert_int_eq(pw_auth_config_check(&nobody, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "no user.NAME"));
}
END_TEST

/* Users without a protect line protect every endpoint but /healthz; protect narrows it; no user,
 * nothing. */
START_TEST(test_protect_default)
{
	static const char *const endpoints[] = {"/", "/metrics", "/status", "/alerts", "/history", "/ui"};
	struct pw_auth_config cfg = {0};

	ck_assert_uint_eq(pw_auth_protected(&cfg), 0);
	ck_assert_ptr_null(pw_auth_new(&cfg));
	set_ok(&cfg, "user.prom", HASH_RIGHT);
	struct pw_auth *a = pw_auth_new(&cfg);
	ck_assert_ptr_nonnull(a);
	for (size_t i = 0; i < sizeof(endpoints) / sizeof(endpoints[0]); i++)
		ck_assert_msg(pw_auth_protects(a, endpoints[i]), "%s open", endpoints[i]);
	ck_assert(!pw_auth_protects(a, "/healthz"));
	ck_assert(!pw_auth_protects(a, "/nope")); /* a 404 needs no password */
	pw_auth_free(a);
	set_ok(&cfg, "protect", "/metrics /ui");
	ck_assert_uint_eq(pw_auth_protected(&cfg), pw_auth_endpoint("/metrics") | pw_auth_endpoint("/ui"));
	a = pw_auth_new(&cfg);
	ck_assert(pw_auth_protects(a, "/ui"));
	ck_assert(!pw_auth_protects(a, "/status"));
	ck_assert(!pw_auth_protects(a, "/history"));
	pw_auth_free(a);
}
END_TEST

START_TEST(test_config_rejects)
{
	set_bad("user.a", "$6$salt$abcdef", "not a bcrypt hash: SHA-512-crypt");
	set_bad("user.a", "$1$salt$abcdef", "MD5-crypt");
	set_bad("user.a", "$y$j9T$salt$abcdef", "yescrypt");
	set_bad("user.a", "hunter2", "plain text");
	set_bad("user.a", "$2b$10$short", "malformed bcrypt hash");
	set_bad("user.a", "$2b$10$ked814RXI13WwpPz4C.dHeTwBFR1PpANMF8jKpFIc42Jvy5Pon6j!", "bad character");
	set_bad("user.a", "$2b$13$ked814RXI13WwpPz4C.dHeTwBFR1PpANMF8jKpFIc42Jvy5Pon6ji",
	        "cost 13 out of range");
	set_bad("user.a", "$2b$03$ked814RXI13WwpPz4C.dHeTwBFR1PpANMF8jKpFIc42Jvy5Pon6ji",
	        "cost 3 out of range");
	set_bad("user.a:b", HASH_RIGHT, "invalid user name");
	set_bad("user.", HASH_RIGHT, "invalid user name");
	set_bad("protect", "/metrics /secret", "unknown endpoint '/secret'");
	set_bad("protect", "", "empty list");
	set_bad("protect", " , ", "empty list");
	set_bad("realm", "x", "unknown key 'realm'");

	struct pw_auth_config cfg = {0};
	char why[256];
	set_ok(&cfg, "user.a", HASH_RIGHT);
	ck_assert_int_eq(pw_auth_config_set(&cfg, "user.a", HASH_RIGHT, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "given twice"));
}
END_TEST

START_TEST(test_verify)
{
	struct pw_auth *a = make();
	struct sockaddr_in c = addr4("192.0.2.1");
	const struct sockaddr *sa = (const struct sockaddr *)&c;

	ck_assert(pw_auth_protects(a, "/metrics"));
	ck_assert(pw_auth_protects(a, "/status"));
	ck_assert(!pw_auth_protects(a, "/healthz"));
	ck_assert(!pw_auth_protects(a, "/alerts"));
	ck_assert_int_eq(pw_auth_check(a, "prom", "right", sa, NS_PER_S), PW_AUTH_OK);
	ck_assert_int_eq(pw_auth_check(a, "ops", "other", sa, NS_PER_S), PW_AUTH_OK);
	ck_assert_int_eq(pw_auth_check(a, "prom", "other", sa, NS_PER_S), PW_AUTH_DENIED);
	ck_assert_int_eq(pw_auth_check(a, "ops", "right", sa, NS_PER_S), PW_AUTH_DENIED);
	/* An unknown user with a password that is some user's: still no. */
	ck_assert_int_eq(pw_auth_check(a, "nobody", "right", sa, NS_PER_S), PW_AUTH_DENIED);
	ck_assert_int_eq(pw_auth_check(a, "prom", "righ", sa, NS_PER_S), PW_AUTH_DENIED);
	ck_assert_int_eq(pw_auth_check(a, "prom", "", sa, NS_PER_S), PW_AUTH_DENIED);
	ck_assert_int_eq(pw_auth_check(a, NULL, NULL, sa, NS_PER_S), PW_AUTH_DENIED);
	ck_assert_int_eq(pw_auth_check(a, "prom", NULL, sa, NS_PER_S), PW_AUTH_DENIED);
	pw_auth_free(a);
}
END_TEST

/* htpasswd -B writes $2y$, Go's bcrypt $2a$: the same digest as $2b$ for the same salt. */
START_TEST(test_verify_prefixes)
{
	static const char *const prefixes[] = {"$2y$", "$2a$"};
	struct sockaddr_in c = addr4("192.0.2.2");

	for (size_t i = 0; i < 2; i++) {
		struct pw_auth_config cfg = {0};
		char hash[PW_AUTH_HASH_LEN + 1];
		snprintf(hash, sizeof(hash), "%s%s", prefixes[i], &HASH_RIGHT[4]);
		set_ok(&cfg, "user.h", hash);
		set_ok(&cfg, "protect", "/metrics");
		struct pw_auth *a = pw_auth_new(&cfg);
		ck_assert_int_eq(pw_auth_check(a, "h", "right", (const struct sockaddr *)&c, NS_PER_S),
		                 PW_AUTH_OK);
		ck_assert_int_eq(pw_auth_check(a, "h", "wrong", (const struct sockaddr *)&c, NS_PER_S),
		                 PW_AUTH_DENIED);
		pw_auth_free(a);
	}
}
END_TEST

/* Five failed bcrypt checks per client, then 429 until a token comes back (one per 12 s); other
 * clients and cached credentials are unaffected; a repeated wrong password costs no token. */
START_TEST(test_throttle)
{
	struct pw_auth *a = make();
	struct sockaddr_in bad = addr4("198.51.100.7"), good = addr4("198.51.100.8");
	const struct sockaddr *sb = (const struct sockaddr *)&bad, *sg = (const struct sockaddr *)&good;
	char guess[32];
	int64_t t = 100 * NS_PER_S;

	ck_assert_int_eq(pw_auth_check(a, "prom", "right", sb, t), PW_AUTH_OK);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(pw_auth_check(a, "prom", "same-wrong", sb, t), PW_AUTH_DENIED);
	for (int i = 0; i < 4; i++) {
		snprintf(guess, sizeof(guess), "guess-%d", i);
		ck_assert_int_eq(pw_auth_check(a, "prom", guess, sb, t), PW_AUTH_DENIED);
	}
	ck_assert_int_eq(pw_auth_check(a, "prom", "guess-x", sb, t), PW_AUTH_THROTTLED);
	ck_assert_int_eq(pw_auth_check(a, "nobody", "guess-y", sb, t), PW_AUTH_THROTTLED);
	/* Throttled, but the verified password is cached and another client is its own. */
	ck_assert_int_eq(pw_auth_check(a, "prom", "right", sb, t), PW_AUTH_OK);
	ck_assert_int_eq(pw_auth_check(a, "ops", "other", sg, t), PW_AUTH_OK);
	ck_assert_int_eq(pw_auth_check(a, "prom", "guess-z", sg, t), PW_AUTH_DENIED);
	/* One token back after 12 s: one more check, then throttled again. */
	ck_assert_int_eq(pw_auth_check(a, "prom", "guess-x", sb, t + 11 * NS_PER_S), PW_AUTH_THROTTLED);
	ck_assert_int_eq(pw_auth_check(a, "prom", "guess-x", sb, t + 13 * NS_PER_S), PW_AUTH_DENIED);
	ck_assert_int_eq(pw_auth_check(a, "prom", "guess-w", sb, t + 13 * NS_PER_S), PW_AUTH_THROTTLED);
	/* A verified password from a throttled client is still found in the cache. */
	ck_assert_int_eq(pw_auth_check(a, "ops", "other", sb, t + 13 * NS_PER_S), PW_AUTH_OK);
	/* The cache forgets after 10 minutes: then it needs bcrypt (and a token) again. */
	ck_assert_int_eq(pw_auth_check(a, "prom", "right", sb, t + 601 * NS_PER_S), PW_AUTH_OK);
	pw_auth_free(a);
}
END_TEST

/* Many addresses guessing: the global budget (a quarter of the time, 0.5 s at once) stops them when
 * no client's own budget would. Cost-4 checks take ~1 ms, so 0.5 s of burst is many checks: the
 * test spends it without the clock moving and then sees 429 for a fresh address. */
START_TEST(test_global_budget)
{
	struct pw_auth *a = make();
	char ip[32], guess[32];
	int64_t t = 50 * NS_PER_S;
	int throttled_at = -1;

	for (int i = 0; i < 100000 && throttled_at < 0; i++) {
		snprintf(ip, sizeof(ip), "10.%d.%d.1", i / 250 % 250, i % 250);
		snprintf(guess, sizeof(guess), "g%d", i);
		struct sockaddr_in c = addr4(ip);
		if (pw_auth_check(a, "prom", guess, (const struct sockaddr *)&c, t) == PW_AUTH_THROTTLED)
			throttled_at = i;
	}
	ck_assert_int_gt(throttled_at, 10);
	/* Cached credentials still pass; after 4 s the budget allows checks again. */
	struct sockaddr_in c = addr4("203.0.113.9");
	ck_assert_int_eq(pw_auth_check(a, "prom", "new", (const struct sockaddr *)&c, t), PW_AUTH_THROTTLED);
	ck_assert_int_eq(pw_auth_check(a, "prom", "new", (const struct sockaddr *)&c, t + 5 * NS_PER_S),
	                 PW_AUTH_DENIED);
	pw_auth_free(a);
}
END_TEST

/* IPv6 clients share a bucket per /64; IPv4-mapped addresses count as their IPv4 address. */
START_TEST(test_ipv6_buckets)
{
	struct pw_auth *a = make();
	struct sockaddr_in6 x = {.sin6_family = AF_INET6}, y = x, m = x;
	char guess[32];

	inet_pton(AF_INET6, "2001:db8:1:2::1", &x.sin6_addr);
	inet_pton(AF_INET6, "2001:db8:1:2::ffff", &y.sin6_addr);
	inet_pton(AF_INET6, "::ffff:192.0.2.77", &m.sin6_addr);
	for (int i = 0; i < 5; i++) {
		snprintf(guess, sizeof(guess), "v6-%d", i);
		ck_assert_int_eq(pw_auth_check(a, "prom", guess, (const struct sockaddr *)&x, NS_PER_S),
		                 PW_AUTH_DENIED);
	}
	ck_assert_int_eq(pw_auth_check(a, "prom", "v6-x", (const struct sockaddr *)&y, NS_PER_S),
	                 PW_AUTH_THROTTLED);
	ck_assert_int_eq(pw_auth_check(a, "prom", "v4m", (const struct sockaddr *)&m, NS_PER_S),
	                 PW_AUTH_DENIED);
	pw_auth_free(a);
}
END_TEST

/* One round of guessing: each of n attackers (10.9.0.1 ...) tries a new password at t. */
static void guess_round(struct pw_auth *a, int n, int64_t t, int *denied)
{
	char ip[32], guess[48];

	for (int i = 0; i < n; i++) {
		snprintf(ip, sizeof(ip), "10.9.0.%d", i + 1);
		snprintf(guess, sizeof(guess), "guess-%d-%lld", i, (long long)t);
		struct sockaddr_in c = addr4(ip);
		enum pw_auth_result r = pw_auth_check(a, "prom", guess, (const struct sockaddr *)&c, t);
		ck_assert_int_ne(r, PW_AUTH_OK);
		*denied += r == PW_AUTH_DENIED;
	}
}

/* 48 addresses guessing all the time (each as fast as its own failure tokens allow) spend the
 * global bcrypt budget as soon as it refills; a scraper whose login is not cached must still get
 * through. The budget is shrunk (100 ms at once, 0.1 ms a second) so cost-4 checks (~1 ms) can
 * exhaust it, as cost-10 checks (~60 ms) exhaust the real one. */
START_TEST(test_guessing_cannot_lock_out)
{
	struct pw_auth *a = make();
	struct sockaddr_in scraper = addr4("192.0.2.10"), fresh = addr4("192.0.2.11");
	const struct sockaddr *ss = (const struct sockaddr *)&scraper, *sf = (const struct sockaddr *)&fresh;
	int denied = 0;
	int64_t t = 10 * NS_PER_S;

	pw_auth_set_budget(a, NS_PER_S / 10, 10000);
	/* The scraper logs in once, before the attack. */
	ck_assert_int_eq(pw_auth_check(a, "prom", "right", ss, t), PW_AUTH_OK);
	for (int s = 1; s <= 120; s++)
		guess_round(a, 48, t + s * NS_PER_S, &denied);
	/* The budget binds, not only each address's tokens (5, and one per 12 s: 15 each). */
	ck_assert_int_lt(denied, 48 * 15 / 2);
	/* Two minutes of guessing: every attacker has failed; a client that never guessed gets
	 * through, with credentials nobody verified yet. */
	ck_assert_int_eq(pw_auth_check(a, "ops", "other", sf, t + 121 * NS_PER_S), PW_AUTH_OK);
	/* The scraper's login was cached for 10 minutes; then it needs bcrypt again, while a new wave
	 * of 48 addresses that never guessed before spends what the others left. */
	t += 600 * NS_PER_S;
	for (int s = 1; s <= 60; s++) {
		guess_round(a, 48, t + s * NS_PER_S, &denied);
		char ip[32], guess[48];
		for (int i = 0; i < 48; i++) {
			snprintf(ip, sizeof(ip), "10.8.%d.%d", s, i + 1);
			snprintf(guess, sizeof(guess), "wave-%d-%d", s, i);
			struct sockaddr_in c = addr4(ip);
			pw_auth_check(a, "prom", guess, (const struct sockaddr *)&c, t + s * NS_PER_S);
		}
		if (s % 15 == 0) {
			enum pw_auth_result r = pw_auth_check(a, "prom", "right", ss, t + s * NS_PER_S + 1);
			ck_assert_msg(r == PW_AUTH_OK, "the scraper got %d at second %d of the wave", r, s);
			t += 601 * NS_PER_S; /* forget its cached login again */
		}
	}
	pw_auth_free(a);
}
END_TEST

/* A reload hands the failure records and the budget to the new checker, not the cached logins. */
START_TEST(test_inherit)
{
	struct pw_auth *a = make(), *b = make();
	struct sockaddr_in c = addr4("198.51.100.20");
	const struct sockaddr *sc = (const struct sockaddr *)&c;
	char guess[32];

	ck_assert_int_eq(pw_auth_check(a, "prom", "right", sc, NS_PER_S), PW_AUTH_OK);
	for (int i = 0; i < 5; i++) {
		snprintf(guess, sizeof(guess), "g%d", i);
		ck_assert_int_eq(pw_auth_check(a, "prom", guess, sc, NS_PER_S), PW_AUTH_DENIED);
	}
	ck_assert_int_eq(pw_auth_check(a, "prom", "g9", sc, NS_PER_S), PW_AUTH_THROTTLED);
	pw_auth_inherit(b, a);
	pw_auth_free(a);
	/* Still throttled; and the cached login is gone (it needs bcrypt, for which no token is left). */
	ck_assert_int_eq(pw_auth_check(b, "prom", "g9", sc, NS_PER_S), PW_AUTH_THROTTLED);
	ck_assert_int_eq(pw_auth_check(b, "prom", "right", sc, NS_PER_S), PW_AUTH_THROTTLED);
	ck_assert_int_eq(pw_auth_check(b, "prom", "right", sc, 13 * NS_PER_S), PW_AUTH_OK);
	pw_auth_inherit(NULL, b);
	pw_auth_inherit(b, NULL);
	pw_auth_free(b);
}
END_TEST

static Suite *http_auth_suite(void)
{
	Suite *s = suite_create("http_auth");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_config);
	tcase_add_test(core, test_protect_default);
	tcase_add_test(core, test_verify);
	tcase_add_test(core, test_verify_prefixes);
	tcase_add_test(core, test_throttle);
	tcase_add_test(core, test_global_budget);
	tcase_add_test(core, test_ipv6_buckets);
	tcase_add_test(core, test_guessing_cannot_lock_out);
	tcase_add_test(core, test_inherit);
	tcase_add_test(malformed, test_config_rejects);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(http_auth_suite());
}
