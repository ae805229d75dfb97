/* receiver.h — where alerts go: one webhook or Alertmanager per entry, from --webhook and
 * --alertmanager flags and from [receiver.NAME] sections of the config file. Parsing and
 * validation only; the notifier (notifier.h) delivers. */
#ifndef PW_RECEIVER_H
#define PW_RECEIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many receivers, and how long a name (its NUL included): the configuration's limits, which
 * the notifier's tables and its queue file follow. */
#define PW_RECEIVERS_MAX 16
#define PW_RECEIVER_NAME_MAX 64
#define PW_RECEIVER_HEADERS_MAX 8
#define PW_RECEIVER_DEFAULT_TIMEOUT_NS (10 * INT64_C(1000000000))

enum pw_receiver_type { PW_RECEIVER_UNSET, PW_RECEIVER_WEBHOOK, PW_RECEIVER_ALERTMANAGER };

struct pw_receiver {
	char name[PW_RECEIVER_NAME_MAX]; /* section name, or "webhook1", "alertmanager1" for flags */
	enum pw_receiver_type type;
	char url[1024]; /* webhook: the URL POSTed to; alertmanager: the base URL */
	char bearer_token[4096];
	char basic_user[256], basic_password[1024];
	char headers[PW_RECEIVER_HEADERS_MAX][1024]; /* "Name: value" */
	uint32_t nheaders;
	bool inline_secret; /* the config file itself holds one of its secrets (not a *_file key) */
	bool tls_insecure;
	char ca_file[1024];
	int64_t repeat_ns;  /* 0: the global --webhook-repeat-interval / --alertmanager-resend */
	int64_t timeout_ns; /* whole request, connect included */
	int line;           /* config line of its section header; 0: from a flag */
};

struct pw_receivers {
	uint32_t n;
	struct pw_receiver list[PW_RECEIVERS_MAX];
};

const char *pw_receiver_type_str(enum pw_receiver_type type); /* "webhook", "alertmanager" */

/* Add a receiver for a --webhook or --alertmanager URL, named after its type and rank. Returns 0,
 * or -EINVAL with the reason in why (bad URL, too many receivers). */
int pw_receivers_add_url(struct pw_receivers *rs, enum pw_receiver_type type, const char *url, char *why,
                         size_t why_size);

/* Whether url carries credentials ("scheme://user:password@host..."). */
bool pw_url_has_userinfo(const char *url);

/* Apply one key of the [receiver.NAME] section (created on its first key; section_line is the
 * line of its header). Keys: type, url, bearer_token, basic_auth_user, basic_auth_password,
 * header ("Name: value", repeatable), header.NAME, tls_insecure, ca_file, repeat_interval,
 * timeout; and url_file, bearer_token_file, basic_auth_password_file, header_file.NAME, which read
 * the secret from a file (a relative path is taken in $CREDENTIALS_DIRECTORY, systemd's
 * LoadCredential=). Returns 0 or -EINVAL with the reason in why, which never holds a secret. */
int pw_receivers_apply_key(struct pw_receivers *rs, const char *name, int section_line, const char *key,
                           const char *value, char *why, size_t why_size);

/* After loading: every receiver has a type and a url, names are unique. Returns 0, or -EINVAL with
 * the reason in why and the offending section's line in *ret_line (0 for a flag). */
int pw_receivers_validate(const struct pw_receivers *rs, char *why, size_t why_size, int *ret_line);

#endif
