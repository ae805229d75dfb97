/* http_auth.h — HTTP basic auth, with bcrypt password hashes checked by crypt(3) (the scheme of
 * node_exporter's web config). Configured in the [auth] section:
 *
 *   [auth]
 *   user.prometheus = $2y$10$...      (bcrypt only: $2a$, $2b$ or $2y$, cost 4..PW_AUTH_MAX_COST)
 *   protect = /metrics /status        (optional)
 *
 * Once a user exists every endpoint but /healthz needs a password (an endpoint added later is
 * protected too: nothing is left open by forgetting it); `protect` narrows that to its list. No
 * user: nothing is protected. A bcrypt check costs tens of milliseconds on
 * the one HTTP thread, so verified credentials are cached, a repeated wrong password is
 * remembered, and the bcrypt work that failed or unknown credentials can cause is rationed per
 * client address and in total (see pw_auth_check). */
#ifndef PW_HTTP_AUTH_H
#define PW_HTTP_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define PW_AUTH_MAX_USERS 16
#define PW_AUTH_USER_MAX 64
#define PW_AUTH_HASH_LEN 60 /* every bcrypt hash: $2b$NN$ + 22 salt + 31 digest characters */
/* Cost 12 takes ~250 ms here; more would let one request stall every other client for seconds. */
#define PW_AUTH_MAX_COST 12

struct pw_auth_user {
	char name[PW_AUTH_USER_MAX];
	char hash[PW_AUTH_HASH_LEN + 1];
};

struct pw_auth_config {
	unsigned n_users;
	struct pw_auth_user users[PW_AUTH_MAX_USERS];
	uint32_t protect;     /* bit per endpoint (pw_auth_endpoint), as the protect line lists them */
	uint32_t protect_set; /* 1: a protect line was given; 0: users protect all but /healthz */
};

/* One key of the [auth] section: "user.NAME" or "protect". Returns 0, or -EINVAL with the reason in
 * why (a hash that is not bcrypt, a cost over the cap, an unknown endpoint, too many users). */
int pw_auth_config_set(struct pw_auth_config *cfg, const char *key, const char *value, char *why, size_t n);

/* The whole section makes sense (protected endpoints need a user). Returns 0 or -EINVAL. */
int pw_auth_config_check(const struct pw_auth_config *cfg, char *why, size_t n);

/* The endpoint bit of a request path, 0 for a path that is no endpoint (a 404 needs no password). */
uint32_t pw_auth_endpoint(const char *path);

/* The endpoints cfg protects: its protect list when given, else every endpoint but /healthz when
 * it has a user, else none. */
uint32_t pw_auth_protected(const struct pw_auth_config *cfg);

struct pw_auth;

/* Copy cfg into a new checker; NULL when nothing is protected or out of memory (errno says which:
 * 0 or ENOMEM). Single-threaded: use it from the HTTP thread only. */
struct pw_auth *pw_auth_new(const struct pw_auth_config *cfg);
void pw_auth_free(struct pw_auth *auth);

/* Does the request for path need credentials? */
bool pw_auth_protects(const struct pw_auth *auth, const char *path);

enum pw_auth_result {
	PW_AUTH_OK,        /* user and password match */
	PW_AUTH_DENIED,    /* missing, unknown or wrong: answer 401 */
	PW_AUTH_THROTTLED, /* too many recent failures from this client, or bcrypt budget spent: 429 */
};

/* Check user/password (either may be NULL: no or malformed Authorization header) from client at
 * now_ns (monotonic). Cached successes and remembered failures cost no bcrypt. A bcrypt check
 * needs a failure token of the client (IPv4 address or IPv6 /64: 5, refilled one per 12 s) and
 * room in the global budget (bcrypt's CPU time may be a quarter of the time elapsed, and 0.5 s at
 * once): clients with a failure in the last 10 minutes may spend only its upper half, clients
 * without one down to a quarter, clients whose credentials passed from their address before all
 * of it. So guessing, from any number of addresses, cannot make a scraper get 429. */
enum pw_auth_result pw_auth_check(struct pw_auth *auth, const char *user, const char *password,
                                  const struct sockaddr *client, int64_t now_ns);

/* Carry old's per-client records (failures, and addresses whose credentials passed) and the global
 * budget over to auth (a reload): a new [auth] section must not forgive guessing, nor make a
 * scraper wait behind it. The caches are not carried: they vouch for the old credentials. Either
 * may be NULL. */
void pw_auth_inherit(struct pw_auth *auth, const struct pw_auth *old);

/* Tune the global budget: at most max_ns of bcrypt at once, 1/share of the time in the long run
 * (defaults 0.5 s and 4). For tests, which cannot afford seconds of bcrypt. */
void pw_auth_set_budget(struct pw_auth *auth, int64_t max_ns, int64_t share);

#endif
