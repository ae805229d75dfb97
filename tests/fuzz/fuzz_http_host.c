/* fuzz_http_host.c — libFuzzer harness: the Host check against DNS rebinding (daemon/http_host.c)
 * and the escaping of outside text (lib/text_escape.c), both fed by other people's bytes. The input
 * up to its first newline is an http-allowed-hosts value, the rest a Host header, judged for a
 * loopback, a specific, an IPv6 and a wildcard listener. The whole input is escaped: the result
 * must be printable UTF-8 without a control character, cut only between units, and the same when
 * escaped again. */
#include "http_host.h"
#include "text_escape.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void judge(const struct pw_http_hosts *allowed, const char *host)
{
	static const char *const listeners[] = {"127.0.0.1", "192.0.2.1", "::1", "0.0.0.0", "::"};

	for (size_t i = 0; i < sizeof(listeners) / sizeof(listeners[0]); i++) {
		struct sockaddr_storage ss = {0};
		struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
		if (inet_pton(AF_INET, listeners[i], &v4->sin_addr) == 1) {
			v4->sin_family = AF_INET;
		} else if (inet_pton(AF_INET6, listeners[i], &v6->sin6_addr) == 1) {
			v6->sin6_family = AF_INET6;
		}
		pw_http_host_allowed(allowed, (const struct sockaddr *)&ss, host);
		pw_http_host_allowed(NULL, (const struct sockaddr *)&ss, host);
	}
}

/* Printable UTF-8: no C0, DEL or C1 (0xc2 0x80-0x9f), no byte outside a valid sequence. */
static void check_escaped(const char *s, size_t len)
{
	char again[256];

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f || (c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] < 0xa0))
			abort();
	}
	/* Escaping again changes nothing (and so finds every byte valid). */
	if (pw_text_escape(s, len, again, sizeof(again)) != len ||
	    (len < sizeof(again) && memcmp(again, s, len)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), small[17], big[4 * 64 + 1];
	struct pw_http_hosts allowed;
	char why[256];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	if (pw_http_hosts_parse(text, &allowed, why, sizeof(why)) == 0)
		judge(&allowed, nl ? nl + 1 : text);
	judge(NULL, nl ? nl + 1 : text);
	free(text);

	size_t n = size < 64 ? size : 64;
	size_t whole = pw_text_escape((const char *)data, n, big, sizeof(big));
	if (whole >= sizeof(big) || strlen(big) != whole)
		abort();
	check_escaped(big, whole);
	size_t cut = pw_text_escape((const char *)data, n, small, sizeof(small));
	if (cut != whole || strncmp(small, big, strlen(small)) != 0)
		abort();
	check_escaped(small, strlen(small));
	return 0;
}
