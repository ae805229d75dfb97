/* fuzz_auth.c — libFuzzer harness: the [auth] section (daemon/http_auth.c): each input line
 * "key=value" through pw_auth_config_set (user names, bcrypt hash validation, protect lists), the
 * section check, endpoint look-ups, and credentials "user:password" from the input against a
 * checker with one cost-4 user. The client address is fixed, so after its 5 failure tokens the
 * checks are answered without bcrypt: the inputs exercise the digest, caches and budgets, not
 * crypt(3) on every run. */
#include "http_auth.h"

#include <crypt.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pw_auth *checker;

static void setup(void)
{
	struct pw_auth_config cfg = {0};
	char salt[CRYPT_GENSALT_OUTPUT_SIZE], why[256];
	struct crypt_data cd = {0};

	if (!crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt)))
		abort();
	const char *hash = crypt_r("secret", salt, &cd);
	if (!hash || pw_auth_config_set(&cfg, "user.u", hash, why, sizeof(why)) < 0 ||
	    pw_auth_config_set(&cfg, "protect", "/metrics /status", why, sizeof(why)) < 0 ||
	    !(checker = pw_auth_new(&cfg)))
		abort();
}

static void config_lines(char *text)
{
	static struct pw_auth_config cfg;
	char why[256];

	memset(&cfg, 0, sizeof(cfg));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		pw_auth_config_set(&cfg, line, eq + 1, why, sizeof(why));
		pw_auth_endpoint(eq + 1);
	}
	if (pw_auth_config_check(&cfg, why, sizeof(why)) == 0) {
		struct pw_auth *a = pw_auth_new(&cfg);
		pw_auth_protects(a, "/metrics");
		pw_auth_free(a);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_in client = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
	char *text = malloc(size + 1);

	if (!checker)
		setup();
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *colon = strchr(text, ':');
	if (colon) {
		*colon = '\0';
		pw_auth_check(checker, text, colon + 1, (const struct sockaddr *)&client, 0);
		*colon = ':';
	}
	config_lines(text);
	free(text);
	return 0;
}
