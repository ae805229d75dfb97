/* receiver.c — receivers from flags and [receiver.NAME] sections, checked before anything runs. */
#define _GNU_SOURCE
#include "receiver.h"

#include "duration.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *pw_receiver_type_str(enum pw_receiver_type type)
{
	return type == PW_RECEIVER_WEBHOOK        ? "webhook"
	       : type == PW_RECEIVER_ALERTMANAGER ? "alertmanager"
	                                          : "unset";
}

/* http:// or https:// followed by a host: what libcurl will be asked to reach. */
static int check_url(const char *url, char *why, size_t n)
{
	const char *rest = strncasecmp(url, "http://", 7) == 0    ? url + 7
	                   : strncasecmp(url, "https://", 8) == 0 ? url + 8
	                                                          : NULL;

	if (!rest)
		return snprintf(why, n, "invalid url '%s' (want http:// or https://)", url), -EINVAL;
	if (!*rest || *rest == '/' || strpbrk(url, " \t\r\n"))
		return snprintf(why, n, "invalid url '%s' (no host, or blanks in it)", url), -EINVAL;
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

/* "Name: value" with a token for a name and no line breaks (they would inject headers). */
static int add_header(struct pw_receiver *r, const char *name, const char *value, char *why, size_t n)
{
	size_t len = strlen(name);

	if (!len ||
	    strspn(name, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") !=
	            len)
		return snprintf(why, n, "invalid header name '%s'", name), -EINVAL;
	if (strpbrk(value, "\r\n"))
		return snprintf(why, n, "header %s: line breaks not allowed", name), -EINVAL;
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
	snprintf(field, size, "%s", value);
	return 0;
}

#define SET_TEXT(field) set_text(field, sizeof(field), value, key, why, n)

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
	if (strcmp(key, "url") == 0)
		return check_url(value, why, n) < 0 ? -EINVAL : SET_TEXT(r->url);
	if (strcmp(key, "bearer_token") == 0)
		return SET_TEXT(r->bearer_token);
	if (strcmp(key, "basic_auth_user") == 0)
		return SET_TEXT(r->basic_user);
	if (strcmp(key, "basic_auth_password") == 0)
		return SET_TEXT(r->basic_password);
	if (strcmp(key, "ca_file") == 0)
		return SET_TEXT(r->ca_file);
	if (strncmp(key, "header.", 7) == 0)
		return add_header(r, key + 7, value, why, n);
	if (strcmp(key, "header") == 0) {
		char name[128];
		const char *colon = strchr(value, ':');
		if (!colon || (size_t)(colon - value) >= sizeof(name))
			return snprintf(why, n, "invalid header '%s' (want 'Name: value')", value), -EINVAL;
		snprintf(name, sizeof(name), "%.*s", (int)(colon - value), value);
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
	                "basic_auth_password, "
	                "header, header.NAME, tls_insecure, ca_file, repeat_interval, timeout)",
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
