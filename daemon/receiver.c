/* receiver.c — receivers from flags and [receiver.NAME] sections, checked before anything runs. */
#define _GNU_SOURCE
#include "receiver.h"

#include "duration.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

const char *pw_receiver_type_str(enum pw_receiver_type type)
{
	return type == PW_RECEIVER_WEBHOOK        ? "webhook"
	       : type == PW_RECEIVER_ALERTMANAGER ? "alertmanager"
	                                          : "unset";
}

/* Where the authority of url starts (after "scheme://"; the start when there is none) and how long
 * it is (up to the path, query or fragment). */
static const char *authority(const char *url, size_t *ret_len)
{
	size_t scheme = strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
	const char *start = scheme && strncmp(url + scheme, "://", 3) == 0 ? url + scheme + 3 : url;

	*ret_len = strcspn(start, "/?#");
	return start;
}

bool pw_url_has_userinfo(const char *url)
{
	size_t len;
	const char *a = authority(url, &len);

	return memchr(a, '@', len) != NULL;
}

/* url for an error message: user and password replaced by "***", cut at 200 bytes. */
static void redact_url(const char *url, char *out, size_t n)
{
	size_t len;
	const char *a = authority(url, &len);
	const char *at = NULL;

	for (const char *p = a; p < a + len; p++)
		if (*p == '@')
			at = p;
	if (at)
		snprintf(out, n, "%.*s***%.200s", (int)(a - url), url, at);
	else
		snprintf(out, n, "%.200s", url);
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/* Control characters in a value that goes into a request: CR and LF would inject headers, the rest
 * has no business there. Tabs only where allowed (header values). The error names the key and the
 * position, never the value. */
static int check_text(const char *key, const char *value, bool tab_ok, char *why, size_t n)
{
	for (const char *p = value; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if ((c < 0x20 && !(c == '\t' && tab_ok)) || c == 0x7f)
			return snprintf(why, n, "%s: control character 0x%02x at byte %zu not allowed", key,
			                c, (size_t)(p - value)),
			       -EINVAL;
	}
	return 0;
}

/* http:// or https:// followed by a host: what libcurl will be asked to reach. The URL in the
 * message is redacted: it may carry a password. */
static int check_url(const char *url, char *why, size_t n)
{
	const char *rest = strncasecmp(url, "http://", 7) == 0    ? url + 7
	                   : strncasecmp(url, "https://", 8) == 0 ? url + 8
	                                                          : NULL;
	char shown[256];

	redact_url(url, shown, sizeof(shown));
	if (!rest)
		return snprintf(why, n, "invalid url '%s' (want http:// or https://)", shown), -EINVAL;
	size_t alen;
	const char *a = authority(rest, &alen), *at = a;
	for (const char *p = a; p < a + alen; p++)
		if (*p == '@')
			at = p + 1;
	if (at == a + alen || strchr(url, ' '))
		return snprintf(why, n, "invalid url '%s' (no host, or blanks in it)", shown), -EINVAL;
	return check_text("url", url, false, why, n);
}

/* Read a secret from path into buf (one trailing newline dropped). A relative path is taken in
 * $CREDENTIALS_DIRECTORY (systemd's LoadCredential=). Only regular files of at most size - 1
 * bytes; errors name key and file, never what the file holds. */
static int read_secret(const char *key, const char *path, char *buf, size_t size, char *why, size_t n)
{
	const char *dir = getenv("CREDENTIALS_DIRECTORY");
	char full[PATH_MAX];
	struct stat st;
	ssize_t got;

	if (!*path)
		return snprintf(why, n, "%s: empty path", key), -EINVAL;
	if (path[0] != '/' && (!dir || !*dir))
		return snprintf(why, n,
		                "%s: relative path '%.200s' needs $CREDENTIALS_DIRECTORY (systemd "
		                "LoadCredential=); give an absolute path",
		                key, path),
		       -EINVAL;
	if ((size_t)snprintf(full, sizeof(full), "%s%s%s", path[0] == '/' ? "" : dir,
	                     path[0] == '/' ? "" : "/", path) >= sizeof(full))
		return snprintf(why, n, "%s: path too long", key), -EINVAL;
	/* Devices and FIFOs are never opened (a device's open may act; a FIFO would hang the start or
	 * a reload); O_NONBLOCK and the second check cover a file swapped in between. */
	if (stat(full, &st) < 0)
		return snprintf(why, n, "%s: cannot open %.300s: %s", key, full, strerror(errno)), -EINVAL;
	if (!S_ISREG(st.st_mode))
		return snprintf(why, n, "%s: %.300s is not a regular file", key, full), -EINVAL;
	int fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return snprintf(why, n, "%s: cannot open %.300s: %s", key, full, strerror(errno)), -EINVAL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return snprintf(why, n, "%s: %.300s is not a regular file", key, full), -EINVAL;
	}
	/* Room for one more byte than fits, and a CR LF: a file that fills it is too big. */
	char *tmp = malloc(size + 2);
	got = tmp ? read(fd, tmp, size + 2) : -1;
	int saved = errno;
	close(fd);
	if (got < 0) {
		free(tmp);
		return snprintf(why, n, "%s: cannot read %.300s: %s", key, full, strerror(saved)), -EINVAL;
	}
	size_t len = (size_t)got;
	if (len && tmp[len - 1] == '\n')
		len--;
	if (len && tmp[len - 1] == '\r')
		len--;
	if (len >= size || memchr(tmp, '\0', len)) {
		explicit_bzero(tmp, size + 2);
		free(tmp);
		return snprintf(why, n, "%s: %.300s is %s (at most %zu bytes of text)", key, full,
		                len >= size ? "too big" : "not text", size - 1),
		       -EINVAL;
	}
	memcpy(buf, tmp, len);
	buf[len] = '\0';
	explicit_bzero(tmp, size + 2);
	free(tmp);
	if (len == 0)
		return snprintf(why, n, "%s: %.300s is empty", key, full), -EINVAL;
	if (check_text(key, buf, false, why, n) < 0) {
		size_t at = strlen(why);
		snprintf(why + at, n - at, " (in %.300s)", full);
		explicit_bzero(buf, size);
		return -EINVAL;
	}
	return 0;
}

static bool valid_name(const char *name)
{
	if (!*name || strlen(name) >= PW_RECEIVER_NAME_MAX)
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			return false;
	return true;
}

static struct pw_receiver *find(struct pw_receivers *rs, const char *name)
{
	for (uint32_t i = 0; i < rs->n; i++)
		if (strcmp(rs->list[i].name, name) == 0)
			return &rs->list[i];
	return NULL;
}

static struct pw_receiver *append(struct pw_receivers *rs, char *why, size_t n)
{
	if (rs->n == PW_RECEIVERS_MAX)
		return snprintf(why, n, "too many receivers (at most %d)", PW_RECEIVERS_MAX), NULL;
	struct pw_receiver *r = &rs->list[rs->n++];
	memset(r, 0, sizeof(*r));
	r->timeout_ns = PW_RECEIVER_DEFAULT_TIMEOUT_NS;
	return r;
}

int pw_receivers_add_url(struct pw_receivers *rs, enum pw_receiver_type type, const char *url, char *why,
                         size_t n)
{
	uint32_t rank = 1;
	struct pw_receiver *r;

	if (check_url(url, why, n) < 0)
		return -EINVAL;
	if (strlen(url) >= sizeof(r->url))
		return snprintf(why, n, "url too long"), -EINVAL;
	for (uint32_t i = 0; i < rs->n; i++)
		rank += rs->list[i].type == type && rs->list[i].line == 0;
	if (!(r = append(rs, why, n)))
		return -EINVAL;
	r->type = type;
	snprintf(r->name, sizeof(r->name), "%s%u", pw_receiver_type_str(type), rank);
	snprintf(r->url, sizeof(r->url), "%s", url);
	return 0;
}

static bool valid_header_name(const char *name)
{
	size_t len = strlen(name);

	return len && len < 128 &&
	       strspn(name,
	              "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == len;
}

/* Headers whose value is a credential: it makes the config file hold a secret. */
static bool secret_header(const char *name)
{
	return strcasecmp(name, "Authorization") == 0 || strcasecmp(name, "Proxy-Authorization") == 0 ||
	       strcasecmp(name, "Cookie") == 0 || strcasestr(name, "token") || strcasestr(name, "key") ||
	       strcasestr(name, "secret") || strcasestr(name, "auth");
}

/* "Name: value" with a token for a name and no control characters but tabs in the value (CR and
 * LF would inject headers). Errors name the header, never its value. */
static int add_header(struct pw_receiver *r, const char *name, const char *value, char *why, size_t n)
{
	char key[160];

	if (!valid_header_name(name))
		return snprintf(why, n,
		                "invalid header name '%.100s' (want letters, digits, !#$%%&'*+-.^_`|~)",
		                name),
		       -EINVAL;
	snprintf(key, sizeof(key), "header %s", name);
	if (check_text(key, value, true, why, n) < 0)
		return -EINVAL;
	if (r->nheaders == PW_RECEIVER_HEADERS_MAX)
		return snprintf(why, n, "too many headers (at most %d)", PW_RECEIVER_HEADERS_MAX), -EINVAL;
	while (*value == ' ' || *value == '\t')
		value++;
	if ((size_t)snprintf(r->headers[r->nheaders], sizeof(r->headers[0]), "%s: %s", name, value) >=
	    sizeof(r->headers[0]))
		return snprintf(why, n, "header %s: too long", name), -EINVAL;
	r->nheaders++;
	return 0;
}

static int set_text(char *field, size_t size, const char *value, const char *key, char *why, size_t n)
{
	if (strlen(value) >= size)
		return snprintf(why, n, "%s: too long (at most %zu bytes)", key, size - 1), -EINVAL;
	if (check_text(key, value, false, why, n) < 0)
		return -EINVAL;
	snprintf(field, size, "%s", value);
	return 0;
}

#define SET_TEXT(field) set_text(field, sizeof(field), value, key, why, n)

/* A secret given inline (key) or read from a file (key_file): one of the two, once. */
static int set_secret(struct pw_receiver *r, char *field, size_t size, const char *key, bool from_file,
                      const char *value, char *why, size_t n)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", key, from_file ? "_file" : "");
	if (field[0])
		return snprintf(why, n, "%s: %s already set (%s and %s_file exclude each other)", name, key,
		                key, key),
		       -EINVAL;
	if (from_file)
		return read_secret(name, value, field, size, why, n);
	r->inline_secret = true;
	return set_text(field, size, value, key, why, n);
}

static int apply_key(struct pw_receiver *r, const char *key, const char *value, char *why, size_t n)
{
	bool flag;

	if (strcmp(key, "type") == 0) {
		r->type = strcmp(value, "webhook") == 0        ? PW_RECEIVER_WEBHOOK
		          : strcmp(value, "alertmanager") == 0 ? PW_RECEIVER_ALERTMANAGER
		                                               : PW_RECEIVER_UNSET;
		if (r->type == PW_RECEIVER_UNSET)
			return snprintf(why, n, "invalid type '%s' (want webhook or alertmanager)", value),
			       -EINVAL;
		return 0;
	}
	if (strcmp(key, "url") == 0 || strcmp(key, "url_file") == 0) {
		bool from_file = key[3] == '_', had_secret = r->inline_secret;
		if (set_secret(r, r->url, sizeof(r->url), "url", from_file, value, why, n) < 0)
			return -EINVAL;
		/* A URL is a secret in the file only when it carries a password. */
		if (!from_file)
			r->inline_secret = had_secret || pw_url_has_userinfo(r->url);
		if (check_url(r->url, why, n) < 0) {
			explicit_bzero(r->url, sizeof(r->url));
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "bearer_token") == 0 || strcmp(key, "bearer_token_file") == 0)
		return set_secret(r, r->bearer_token, sizeof(r->bearer_token), "bearer_token", key[12] == '_',
		                  value, why, n);
	if (strcmp(key, "basic_auth_password") == 0 || strcmp(key, "basic_auth_password_file") == 0)
		return set_secret(r, r->basic_password, sizeof(r->basic_password), "basic_auth_password",
		                  key[19] == '_', value, why, n);
	if (strcmp(key, "basic_auth_user") == 0) {
		if (check_text(key, value, false, why, n) < 0)
			return -EINVAL;
		if (strchr(value, ':'))
			return snprintf(why, n, "basic_auth_user: ':' not allowed in a user name"), -EINVAL;
		return SET_TEXT(r->basic_user);
	}
	if (strcmp(key, "ca_file") == 0)
		return SET_TEXT(r->ca_file);
	if (strncmp(key, "header.", 7) == 0) {
		r->inline_secret |= secret_header(key + 7);
		return add_header(r, key + 7, value, why, n);
	}
	if (strncmp(key, "header_file.", 12) == 0) {
		char secret[sizeof(r->headers[0])];
		if (!valid_header_name(key + 12))
			return add_header(r, key + 12, "", why, n); /* its error */
		int ret = read_secret(key, value, secret, sizeof(secret), why, n);
		if (ret == 0)
			ret = add_header(r, key + 12, secret, why, n);
		explicit_bzero(secret, sizeof(secret));
		return ret;
	}
	if (strcmp(key, "header") == 0) {
		char name[128];
		const char *colon = strchr(value, ':');
		/* The value is not shown: it may be a credential. */
		if (!colon || (size_t)(colon - value) >= sizeof(name))
			return snprintf(why, n,
			                "invalid header (want 'Name: value'; the value is not shown)"),
			       -EINVAL;
		snprintf(name, sizeof(name), "%.*s", (int)(colon - value), value);
		if (!valid_header_name(name))
			return snprintf(why, n,
			                "invalid header name in 'header' (want 'Name: value' with "
			                "a token for a name; the value is not shown)"),
			       -EINVAL;
		r->inline_secret |= secret_header(name);
		return add_header(r, name, colon + 1, why, n);
	}
	if (strcmp(key, "tls_insecure") == 0) {
		if (strcasecmp(value, "true") != 0 && strcasecmp(value, "false") != 0)
			return snprintf(why, n, "invalid boolean '%s' (want true or false)", value), -EINVAL;
		flag = strcasecmp(value, "true") == 0;
		r->tls_insecure = flag;
		return 0;
	}
	if (strcmp(key, "repeat_interval") == 0 || strcmp(key, "timeout") == 0) {
		int64_t ns;
		if (pw_parse_duration(value, &ns) < 0 || ns < INT64_C(100000000))
			return snprintf(why, n, "invalid duration '%s' (want at least 100ms, e.g. 10s, 4h)",
			                value),
			       -EINVAL;
		*(key[0] == 'r' ? &r->repeat_ns : &r->timeout_ns) = ns;
		return 0;
	}
	return snprintf(why, n,
	                "unknown key '%s' (want type, url, bearer_token, basic_auth_user, "
	                "basic_auth_password, header, header.NAME, tls_insecure, ca_file, "
	                "repeat_interval, timeout, or url_file, bearer_token_file, "
	                "basic_auth_password_file, header_file.NAME)",
	                key),
	       -EINVAL;
}

int pw_receivers_apply_key(struct pw_receivers *rs, const char *name, int section_line, const char *key,
                           const char *value, char *why, size_t n)
{
	struct pw_receiver *r = find(rs, name);

	if (!valid_name(name))
		return snprintf(why, n, "invalid receiver name [receiver.%s] (want letters, digits, _ . -)",
		                name),
		       -EINVAL;
	if (!r) {
		if (!(r = append(rs, why, n)))
			return -EINVAL;
		snprintf(r->name, sizeof(r->name), "%s", name);
		r->line = section_line;
	}
	return apply_key(r, key, value, why, n);
}

int pw_receivers_validate(const struct pw_receivers *rs, char *why, size_t n, int *ret_line)
{
	for (uint32_t i = 0; i < rs->n; i++) {
		const struct pw_receiver *r = &rs->list[i];
		*ret_line = r->line;
		if (r->type == PW_RECEIVER_UNSET)
			return snprintf(why, n, "[receiver.%s]: missing type (webhook or alertmanager)",
			                r->name),
			       -EINVAL;
		if (!r->url[0])
			return snprintf(why, n, "[receiver.%s]: missing url", r->name), -EINVAL;
		if (r->basic_user[0] && r->bearer_token[0])
			return snprintf(why, n,
			                "[receiver.%s]: bearer_token and basic_auth_user exclude each other",
			                r->name),
			       -EINVAL;
		for (uint32_t j = 0; j < i; j++)
			if (strcmp(rs->list[j].name, r->name) == 0)
				return snprintf(why, n, "receiver name '%s' used twice", r->name), -EINVAL;
	}
	*ret_line = 0;
	return 0;
}
