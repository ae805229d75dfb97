/* http_auth.c — basic auth: bcrypt via crypt(3), a cache of verified credentials, and rationing of
 * the bcrypt work that wrong credentials can cause. */
#define _GNU_SOURCE
#include "http_auth.h"

#include "clock.h"

#include <crypt.h>
#include <ctype.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define NS_PER_S INT64_C(1000000000)
#define DIGEST_LEN 32 /* HMAC-SHA-256 */
#define GOOD_SLOTS 32
#define BAD_SLOTS 64
#define CACHE_TTL_NS (600 * NS_PER_S)
#define IP_SLOTS 256
#define IP_BURST 5.0
#define IP_REFILL_NS (12 * NS_PER_S)  /* one more failed bcrypt check per client every 12 s */
#define FAILED_MEMORY_NS CACHE_TTL_NS /* a failed check counts against its client this long */
#define TRUST_SLOTS 32                /* clients whose credentials passed bcrypt, newest kept */
#define BUDGET_MAX_NS (NS_PER_S / 2)  /* bcrypt may use 0.5 s at once ... */
#define BUDGET_SHARE 4                /* ... and a quarter of a CPU in the long run */

static const char *const endpoints[] = {"/", "/metrics", "/status", "/alerts", "/healthz", "/history", "/ui"};
#define ENDPOINT_COUNT (sizeof(endpoints) / sizeof(endpoints[0]))

struct cache_entry {
	uint8_t digest[DIGEST_LEN];
	int64_t expires_ns;
	bool used;
};

struct ip_bucket {
	uint8_t addr[16];
	double tokens;
	int64_t last_ns;
	int64_t failed_ns; /* its last failed check, when failed */
	bool failed, used;
};

/* A client whose credentials passed bcrypt: only success puts an address here, so no amount of
 * guessing from other addresses can push it out. */
struct trusted {
	uint8_t addr[16];
	int64_t ok_ns;
	bool used;
};

struct pw_auth {
	struct pw_auth_config cfg;
	uint8_t key[32];                     /* random per process: cache digests are worthless outside it */
	struct cache_entry good[GOOD_SLOTS]; /* verified: answered without bcrypt */
	struct cache_entry bad[BAD_SLOTS];   /* failed: a client retrying a wrong password costs nothing */
	struct ip_bucket ips[IP_SLOTS];
	struct trusted trusted[TRUST_SLOTS];
	int64_t budget_ns, budget_last_ns;
	int64_t budget_max_ns, budget_share; /* BUDGET_MAX_NS, BUDGET_SHARE unless tuned */
	struct crypt_data crypt;             /* ~32 KiB of crypt_r scratch */
};

uint32_t pw_auth_endpoint(const char *path)
{
	for (size_t i = 0; i < ENDPOINT_COUNT; i++)
		if (strcmp(path, endpoints[i]) == 0)
			return 1u << i;
	return 0;
}

uint32_t pw_auth_protected(const struct pw_auth_config *cfg)
{
	if (cfg->protect_set)
		return cfg->protect;
	/* Health checks (load balancers, systemd, probes) carry no password; they learn nothing. */
	return cfg->n_users ? ((1u << ENDPOINT_COUNT) - 1) & ~pw_auth_endpoint("/healthz") : 0;
}

static bool ct_equal(const void *a, const void *b, size_t len)
{
	const volatile uint8_t *x = a, *y = b;
	uint8_t diff = 0;

	for (size_t i = 0; i < len; i++)
		diff |= x[i] ^ y[i];
	return diff == 0;
}

/* Name the hash scheme a non-bcrypt hash uses, so the error says what was found. */
static const char *hash_kind(const char *h)
{
	static const struct {
		const char *prefix, *name;
	} kinds[] = {{"$1$", "MD5-crypt"},     {"$5$", "SHA-256-crypt"},  {"$6$", "SHA-512-crypt"},
	             {"$y$", "yescrypt"},      {"$7$", "scrypt"},         {"$gy$", "gost-yescrypt"},
	             {"$apr1$", "Apache MD5"}, {"{SHA}", "Apache SHA-1"}, {"$argon2", "Argon2"}};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strncmp(h, kinds[i].prefix, strlen(kinds[i].prefix)) == 0)
			return kinds[i].name;
	return h[0] == '$' ? "an unknown crypt scheme" : "not a crypt hash (plain text?)";
}

/* "$2a$", "$2b$" or "$2y$", two-digit cost, "$", 53 characters of bcrypt's base64. */
static int check_bcrypt(const char *h, char *why, size_t n)
{
	if (strlen(h) != PW_AUTH_HASH_LEN || strncmp(h, "$2", 2) != 0 || !strchr("aby", h[2]) ||
	    h[3] != '$' || !isdigit((unsigned char)h[4]) || !isdigit((unsigned char)h[5]) || h[6] != '$') {
		if (strncmp(h, "$2", 2) == 0)
			return snprintf(why, n, "malformed bcrypt hash (want $2y$NN$ and 53 characters)"),
			       -EINVAL;
		return snprintf(why, n,
		                "not a bcrypt hash: %s (want $2a$, $2b$ or $2y$, e.g. from htpasswd -nBC 10)",
		                hash_kind(h)),
		       -EINVAL;
	}
	for (const char *p = h + 7; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '/')
			return snprintf(why, n, "malformed bcrypt hash (bad character '%c')", *p), -EINVAL;
	int cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (cost < 4 || cost > PW_AUTH_MAX_COST)
		return snprintf(why, n,
		                "bcrypt cost %d out of range 4..%d (each check blocks the HTTP thread)", cost,
		                PW_AUTH_MAX_COST),
		       -EINVAL;
	return 0;
}

static int set_user(struct pw_auth_config *cfg, const char *name, const char *hash, char *why, size_t n)
{
	if (!*name || strlen(name) >= PW_AUTH_USER_MAX || strchr(name, ':'))
		return snprintf(why, n, "invalid user name '%s' (1..%d characters, no ':')", name,
		                PW_AUTH_USER_MAX - 1),
		       -EINVAL;
	for (unsigned i = 0; i < cfg->n_users; i++)
		if (strcmp(cfg->users[i].name, name) == 0)
			return snprintf(why, n, "user '%s' given twice", name), -EINVAL;
	if (cfg->n_users == PW_AUTH_MAX_USERS)
		return snprintf(why, n, "more than %d users", PW_AUTH_MAX_USERS), -EINVAL;
	char reason[200];
	if (check_bcrypt(hash, reason, sizeof(reason)) < 0)
		return snprintf(why, n, "user.%s: %s", name, reason), -EINVAL;
	struct pw_auth_user *u = &cfg->users[cfg->n_users++];
	snprintf(u->name, sizeof(u->name), "%s", name);
	snprintf(u->hash, sizeof(u->hash), "%s", hash);
	return 0;
}

static int set_protect(struct pw_auth_config *cfg, const char *value, char *why, size_t n)
{
	char list[512], *save = NULL;
	uint32_t mask = 0;

	if (strlen(value) >= sizeof(list))
		return snprintf(why, n, "protect: list too long"), -EINVAL;
	snprintf(list, sizeof(list), "%s", value);
	for (char *tok = strtok_r(list, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		uint32_t bit = pw_auth_endpoint(tok);
		if (!bit)
			return snprintf(why, n,
			                "protect: unknown endpoint '%s' (want /metrics, /status, /alerts, "
			                "/history, /ui, "
			                "/healthz or /)",
			                tok),
			       -EINVAL;
		mask |= bit;
	}
	/* An empty list would protect nothing while users exist: leave the line out for "all". */
	if (!mask)
		return snprintf(why, n,
		                "protect: empty list (leave the line out to protect every endpoint but "
		                "/healthz)"),
		       -EINVAL;
	cfg->protect = mask;
	cfg->protect_set = 1;
	return 0;
}

int pw_auth_config_set(struct pw_auth_config *cfg, const char *key, const char *value, char *why, size_t n)
{
	if (strncmp(key, "user.", 5) == 0)
		return set_user(cfg, key + 5, value, why, n);
	if (strcmp(key, "protect") == 0)
		return set_protect(cfg, value, why, n);
	return snprintf(why, n, "unknown key '%s' in [auth] (want user.NAME or protect)", key), -EINVAL;
}

int pw_auth_config_check(const struct pw_auth_config *cfg, char *why, size_t n)
{
	if (cfg->protect && cfg->n_users == 0)
		return snprintf(why, n, "auth: 'protect' names endpoints but no user.NAME is configured"),
		       -EINVAL;
	return 0;
}

struct pw_auth *pw_auth_new(const struct pw_auth_config *cfg)
{
	struct pw_auth *a;

	errno = 0;
	if (!pw_auth_protected(cfg))
		return NULL;
	if (!(a = calloc(1, sizeof(*a))))
		return errno = ENOMEM, NULL;
	a->cfg = *cfg;
	a->cfg.protect = pw_auth_protected(cfg);
	a->cfg.protect_set = 1;
	if (getrandom(a->key, sizeof(a->key), 0) != sizeof(a->key)) {
		free(a);
		return errno = EIO, NULL;
	}
	a->budget_ns = a->budget_max_ns = BUDGET_MAX_NS;
	a->budget_share = BUDGET_SHARE;
	return a;
}

void pw_auth_set_budget(struct pw_auth *a, int64_t max_ns, int64_t share)
{
	a->budget_ns = a->budget_max_ns = max_ns;
	a->budget_share = share;
}

void pw_auth_inherit(struct pw_auth *a, const struct pw_auth *old)
{
	if (!a || !old)
		return;
	memcpy(a->ips, old->ips, sizeof(a->ips));
	memcpy(a->trusted, old->trusted, sizeof(a->trusted));
	a->budget_ns = old->budget_ns;
	a->budget_last_ns = old->budget_last_ns;
	a->budget_max_ns = old->budget_max_ns;
	a->budget_share = old->budget_share;
}

void pw_auth_free(struct pw_auth *a)
{
	if (!a)
		return;
	explicit_bzero(a, sizeof(*a));
	free(a);
}

bool pw_auth_protects(const struct pw_auth *a, const char *path)
{
	return a && (a->cfg.protect & pw_auth_endpoint(path));
}

/* HMAC(key, user NUL password): the cache holds no password, only this. */
static int digest(const struct pw_auth *a, const char *user, const char *password, uint8_t *ret)
{
	gnutls_hmac_hd_t h;

	if (gnutls_hmac_init(&h, GNUTLS_MAC_SHA256, a->key, sizeof(a->key)) < 0)
		return -ENOMEM;
	gnutls_hmac(h, user, strlen(user) + 1);
	gnutls_hmac(h, password, strlen(password));
	gnutls_hmac_deinit(h, ret);
	return 0;
}

static bool cache_find(const struct cache_entry *c, size_t slots, const uint8_t *d, int64_t now)
{
	bool found = false;

	for (size_t i = 0; i < slots; i++)
		found |= c[i].used && c[i].expires_ns > now && ct_equal(c[i].digest, d, DIGEST_LEN);
	return found;
}

/* Into a free or expired slot, else over the one that expires first. */
static void cache_put(struct cache_entry *c, size_t slots, const uint8_t *d, int64_t now)
{
	size_t victim = 0;

	for (size_t i = 0; i < slots; i++) {
		if (!c[i].used || c[i].expires_ns <= now) {
			victim = i;
			break;
		}
		if (c[i].expires_ns < c[victim].expires_ns)
			victim = i;
	}
	memcpy(c[victim].digest, d, DIGEST_LEN);
	c[victim].expires_ns = now + CACHE_TTL_NS;
	c[victim].used = true;
}

/* The client's bucket key: the IPv4 address (also when it comes IPv4-mapped on an IPv6 socket),
 * or the /64 of an IPv6 one (a host gets a /64); the last byte keeps the two apart. */
static void client_key(const struct sockaddr *sa, uint8_t *key)
{
	memset(key, 0, 16);
	if (sa && sa->sa_family == AF_INET) {
		memcpy(key, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
		key[15] = 4;
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		bool mapped = IN6_IS_ADDR_V4MAPPED(a);
		memcpy(key, mapped ? a->s6_addr + 12 : a->s6_addr, mapped ? 4 : 8);
		key[15] = mapped ? 4 : 6;
	}
}

static double refilled(const struct ip_bucket *b, int64_t now)
{
	double t = b->tokens + (double)(now > b->last_ns ? now - b->last_ns : 0) / (double)IP_REFILL_NS;
	return t > IP_BURST ? IP_BURST : t;
}

static bool failed_lately(const struct ip_bucket *b, int64_t now)
{
	return b->failed && now - b->failed_ns < FAILED_MEMORY_NS;
}

/* Which client to forget first: one without a recent failure (a new entry is the same), then the
 * most forgiven, so cycling through addresses does not wipe a penalized client's record. */
static bool forget_first(const struct ip_bucket *b, const struct ip_bucket *than, int64_t now)
{
	if (failed_lately(b, now) != failed_lately(than, now))
		return !failed_lately(b, now);
	return refilled(b, now) > refilled(than, now);
}

/* The client's bucket, refilled to now; a new client takes a free slot or evicts (forget_first). */
static struct ip_bucket *bucket(struct pw_auth *a, const uint8_t *key, int64_t now)
{
	struct ip_bucket *victim = NULL;

	for (size_t i = 0; i < IP_SLOTS; i++) {
		struct ip_bucket *b = &a->ips[i];
		if (b->used && memcmp(b->addr, key, 16) == 0) {
			b->tokens = refilled(b, now);
			b->last_ns = now;
			return b;
		}
		if (!b->used) {
			if (!victim || victim->used)
				victim = b;
		} else if (!victim || (victim->used && forget_first(b, victim, now))) {
			victim = b;
		}
	}
	memset(victim, 0, sizeof(*victim));
	memcpy(victim->addr, key, 16);
	victim->tokens = IP_BURST;
	victim->last_ns = now;
	victim->used = true;
	return victim;
}

static bool trusted(const struct pw_auth *a, const uint8_t *key)
{
	for (size_t i = 0; i < TRUST_SLOTS; i++)
		if (a->trusted[i].used && memcmp(a->trusted[i].addr, key, 16) == 0)
			return true;
	return false;
}

/* Remember a client whose credentials passed, over the one that passed longest ago. */
static void trust(struct pw_auth *a, const uint8_t *key, int64_t now)
{
	struct trusted *slot = &a->trusted[0];

	for (size_t i = 0; i < TRUST_SLOTS; i++) {
		struct trusted *t = &a->trusted[i];
		if (t->used && memcmp(t->addr, key, 16) == 0) {
			slot = t;
			break;
		}
		if (!t->used || (slot->used && t->ok_ns < slot->ok_ns))
			slot = t;
	}
	memcpy(slot->addr, key, 16);
	slot->ok_ns = now;
	slot->used = true;
}

static void refill_budget(struct pw_auth *a, int64_t now)
{
	if (a->budget_last_ns == 0 || now < a->budget_last_ns)
		a->budget_last_ns = now; /* first use (the budget starts full) */
	a->budget_ns += (now - a->budget_last_ns) / a->budget_share;
	if (a->budget_ns > a->budget_max_ns)
		a->budget_ns = a->budget_max_ns;
	a->budget_last_ns = now;
}

/* How far down this client may take the global budget. Clients with a failed check in the last 10
 * minutes share its upper half; the lower half stays for clients without one, so guessing from any
 * number of known addresses cannot lock them out; and its last quarter only for clients whose
 * credentials passed from their address before, which a wave of new guessing addresses cannot
 * spend either. */
static int64_t budget_floor(const struct pw_auth *a, const struct ip_bucket *b, const uint8_t *key,
                            int64_t now)
{
	if (trusted(a, key))
		return 0;
	return failed_lately(b, now) ? a->budget_max_ns / 2 : a->budget_max_ns / 4;
}

/* One bcrypt check. An unknown user is checked against the first user's hash and then refused, so
 * its answer takes as long as a wrong password's. */
static bool bcrypt_verify(struct pw_auth *a, const char *user, const char *password)
{
	const struct pw_auth_user *match = NULL;

	for (unsigned i = 0; i < a->cfg.n_users; i++)
		if (strcmp(a->cfg.users[i].name, user) == 0)
			match = &a->cfg.users[i];
	const char *hash = match ? match->hash : a->cfg.users[0].hash;
	const char *out = crypt_r(password, hash, &a->crypt);
	bool ok = out && strlen(out) == PW_AUTH_HASH_LEN && ct_equal(out, hash, PW_AUTH_HASH_LEN);
	explicit_bzero(a->crypt.output, sizeof(a->crypt.output));
	return ok && match;
}

enum pw_auth_result pw_auth_check(struct pw_auth *a, const char *user, const char *password,
                                  const struct sockaddr *client, int64_t now)
{
	uint8_t d[DIGEST_LEN];

	if (!user || !password || digest(a, user, password, d) < 0)
		return PW_AUTH_DENIED;
	if (cache_find(a->good, GOOD_SLOTS, d, now))
		return PW_AUTH_OK;
	if (cache_find(a->bad, BAD_SLOTS, d, now))
		return PW_AUTH_DENIED;
	uint8_t key[16];
	client_key(client, key);
	struct ip_bucket *b = bucket(a, key, now);
	refill_budget(a, now);
	if (b->tokens < 1.0 || a->budget_ns <= budget_floor(a, b, key, now))
		return PW_AUTH_THROTTLED;
	/* CPU time, not wall time: a loaded host must not shrink the budget of an idle daemon. */
	int64_t start = pw_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	bool ok = bcrypt_verify(a, user, password);
	a->budget_ns -= pw_clock_ns(CLOCK_THREAD_CPUTIME_ID) - start;
	if (ok) {
		cache_put(a->good, GOOD_SLOTS, d, now);
		trust(a, key, now);
		return PW_AUTH_OK;
	}
	b->tokens -= 1.0;
	b->failed_ns = now;
	b->failed = true;
	cache_put(a->bad, BAD_SLOTS, d, now);
	return PW_AUTH_DENIED;
}
