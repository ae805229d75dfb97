/* http_host.h — which Host headers the HTTP server answers: the defence against DNS rebinding, where
 * a web page makes the browser's own name for an attacker's server resolve to 127.0.0.1 and then
 * reads our loopback endpoints as "its own origin". The browser still sends the attacker's name in
 * Host, so a server that answers only to its own names is out of reach.
 *
 * Answered (ports are not compared: a proxy may change them, and the name is what rebinding can't
 * fake):
 *   - no Host at all (HTTP/1.0): browsers always send one;
 *   - the listen address as an IP literal ("127.0.0.1", "[::1]"), with or without a port;
 *   - "localhost" when listening on loopback (a name no one else can point at 127.0.0.1);
 *   - any IP literal when listening on a wildcard address (0.0.0.0, ::): such a listener has
 *     more addresses than it knows, and an IP literal is no DNS name, so it cannot be rebound;
 *     also "localhost", since a wildcard listener is reachable on loopback;
 *   - the names and addresses of http-allowed-hosts ("*": every Host, the check off).
 * Every other name is refused, on a wildcard listener too: it is reachable on loopback (and by a
 * LAN's browsers), exactly what rebinding targets. node_exporter and Prometheus check nothing;
 * they serve metrics only, while /status names processes. A fleet scraped by host name lists the
 * names (one config line); scraping by address needs nothing. */
#ifndef PW_HTTP_HOST_H
#define PW_HTTP_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define PW_HTTP_HOSTS_MAX 32
#define PW_HTTP_HOST_NAME_MAX 253 /* a DNS name's limit, without its trailing dot */

struct pw_http_hosts {
	bool any; /* "*" */
	unsigned n;
	/* lowercase names without a trailing dot; IP literals in inet_ntop's form, without brackets */
	char names[PW_HTTP_HOSTS_MAX][PW_HTTP_HOST_NAME_MAX + 1];
};

/* Parse an http-allowed-hosts value: names ("perf.example", "perf.example."; letters, digits, '-',
 * '_', dots between non-empty labels; any case), IPv4 addresses, IPv6 addresses with or without
 * brackets, and "*", separated by blanks or commas; empty: none. Returns 0, or -EINVAL with the
 * reason in why (naming the bad entry). Pure. */
int pw_http_hosts_parse(const char *value, struct pw_http_hosts *ret, char *why, size_t why_size);

/* Whether a request with this Host header value (NULL: none) is answered by a server listening on
 * listen (an AF_INET or AF_INET6 address; IPv4-mapped IPv6 counts as IPv4); allowed may be NULL.
 * Pure, thread-safe. */
bool pw_http_host_allowed(const struct pw_http_hosts *allowed, const struct sockaddr *listen,
                          const char *host);

#endif
