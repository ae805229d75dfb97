/* http_host.c — the Host check against DNS rebinding; see http_host.h for what is answered and why.
 * Plain ASCII rules, no locale: a Host header is "host[:port]" (RFC 9110 section 7.2, RFC 3986
 * section 3.2.2), host an IPv4 address, a bracketed IPv6 address or a name. */
#include "http_host.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum host_kind { HOST_BAD, HOST_NAME, HOST_V4, HOST_V6 };

struct host {
	enum host_kind kind;
	char text[PW_HTTP_HOST_NAME_MAX + 1]; /* lowercase name, or the address in inet_ntop's form */
	struct in_addr v4;
	struct in6_addr v6;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_name_char(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
}

/* s[0..len) as a name: labels of letters, digits, '-' and '_' between single dots, one trailing
 * dot dropped, lowercased into h->text. Digits and dots alone are no name (no top-level domain is
 * numeric: "127.1" is an address in a form we do not take). */
static bool parse_name(const char *s, size_t len, struct host *h)
{
	bool numeric = true;

	if (len > 0 && s[len - 1] == '.')
		len--;
	if (len == 0 || len > PW_HTTP_HOST_NAME_MAX || s[len - 1] == '.')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '.' ? i == 0 || s[i - 1] == '.' : !is_name_char(c))
			return false;
		numeric &= c == '.' || is_digit(c);
		h->text[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	h->text[len] = '\0';
	return !numeric;
}

/* s[0..len): an IPv4 address, "[IPv6]", a bare IPv6 address when bare_v6 (the configured list),
 * or a name. */
static void parse_address(const char *s, size_t len, bool bare_v6, struct host *h)
{
	char buf[INET6_ADDRSTRLEN + 1];
	bool v6 = bare_v6 && memchr(s, ':', len);

	h->kind = HOST_BAD;
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
		s++;
		len -= 2;
		v6 = true;
	}
	if (len < sizeof(buf)) {
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (v6) {
			if (inet_pton(AF_INET6, buf, &h->v6) == 1 &&
			    inet_ntop(AF_INET6, &h->v6, h->text, sizeof(h->text)))
				h->kind = HOST_V6;
			return;
		}
		if (inet_pton(AF_INET, buf, &h->v4) == 1 &&
		    inet_ntop(AF_INET, &h->v4, h->text, sizeof(h->text))) {
			h->kind = HOST_V4;
			return;
		}
	}
	if (!v6 && parse_name(s, len, h))
		h->kind = HOST_NAME;
}

/* A Host header: the host, then maybe ':' and a port of up to 5 digits (maybe none: RFC 3986). */
static void parse_header(const char *header, struct host *h)
{
	size_t len = strlen(header), host_len = len;
	const char *colon = strrchr(header, ':'), *bracket = strrchr(header, ']');

	if (colon && (!bracket || colon > bracket)) {
		size_t digits = len - (size_t)(colon - header) - 1;
		h->kind = HOST_BAD;
		if (digits > 5 || strspn(colon + 1, "0123456789") != digits)
			return;
		host_len = (size_t)(colon - header);
	}
	parse_address(header, host_len, false, h);
}

int pw_http_hosts_parse(const char *value, struct pw_http_hosts *ret, char *why, size_t why_size)
{
	static struct pw_http_hosts empty;
	struct host h;

	*ret = empty;
	for (const char *p = value + strspn(value, " \t,"); *p; p += strspn(p, " \t,")) {
		size_t len = strcspn(p, " \t,");
		if (len == 1 && *p == '*') {
			ret->any = true;
			p += len;
			continue;
		}
		parse_address(p, len, true, &h);
		if (h.kind == HOST_BAD)
			return snprintf(why, why_size, "'%.*s' is neither a host name nor an IP address",
			                (int)(len > 80 ? 80 : len), p),
			       -EINVAL;
		if (ret->n == PW_HTTP_HOSTS_MAX)
			return snprintf(why, why_size, "more than %d names", PW_HTTP_HOSTS_MAX), -EINVAL;
		snprintf(ret->names[ret->n++], sizeof(ret->names[0]), "%s", h.text);
		p += len;
	}
	return 0;
}

/* The listen address as its kind: IPv4 (IPv4-mapped IPv6 included) or IPv6, and whether it is a
 * wildcard or on loopback. */
struct listener {
	int family;
	struct in_addr v4;
	struct in6_addr v6;
	bool wildcard, loopback;
};

static struct listener listener_of(const struct sockaddr *sa)
{
	struct listener l = {.family = sa ? sa->sa_family : AF_UNSPEC};

	if (l.family == AF_INET6) {
		l.v6 = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(&l.v6)) {
			l.family = AF_INET;
			memcpy(&l.v4, &l.v6.s6_addr[12], 4);
		} else {
			l.wildcard = IN6_IS_ADDR_UNSPECIFIED(&l.v6);
			l.loopback = IN6_IS_ADDR_LOOPBACK(&l.v6);
		}
	} else if (l.family == AF_INET) {
		l.v4 = ((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	}
	if (l.family == AF_INET) {
		l.wildcard = l.v4.s_addr == htonl(INADDR_ANY);
		l.loopback = (ntohl(l.v4.s_addr) >> 24) == 127;
	}
	return l;
}

bool pw_http_host_allowed(const struct pw_http_hosts *allowed, const struct sockaddr *listen,
                          const char *host)
{
	struct listener l = listener_of(listen);
	struct host h;

	if (!host || !*host || (allowed && allowed->any))
		return true;
	parse_header(host, &h);
	switch (h.kind) {
	case HOST_BAD:
		return false;
	case HOST_V4:
		if (l.wildcard || (l.family == AF_INET && l.v4.s_addr == h.v4.s_addr))
			return true;
		break;
	case HOST_V6:
		if (l.wildcard || (l.family == AF_INET6 && memcmp(&l.v6, &h.v6, sizeof(h.v6)) == 0))
			return true;
		break;
	case HOST_NAME:
		if (strcmp(h.text, "localhost") == 0 && (l.loopback || l.wildcard))
			return true;
		break;
	}
	for (unsigned i = 0; allowed && i < allowed->n && i < PW_HTTP_HOSTS_MAX; i++)
		if (strcmp(allowed->names[i], h.text) == 0)
			return true;
	return false;
}
