/* fuzz_history_query.c — libFuzzer harness: the /history query (exporters/history_query.c). The
 * input's first line is a query string "since=-15m&signals=a,b&format=csv" (split at & and the
 * first =, no percent-decoding: libmicrohttpd has done it), the rest the Accept header. Durations,
 * times and signal names are also parsed on their own. */
#include "history_query.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { ARGS_MAX = 16 };
#define NOW_NS (INT64_C(1714564800) * 1000000000)
#define HOUR_NS (INT64_C(3600) * 1000000000)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pw_history_arg args[ARGS_MAX];
	struct pw_history_query q;
	char err[256], *text = malloc(size + 1);
	size_t nargs = 0;
	int64_t ns;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	pw_history_parse_duration(text, &ns);
	pw_history_parse_time(text, NOW_NS, &ns);
	pw_history_signal_parse(text, strlen(text));
	char *nl = strchr(text, '\n'), *accept = NULL;
	if (nl) {
		*nl = '\0';
		accept = nl + 1;
	}
	for (char *save = NULL, *p = strtok_r(text, "&", &save); p && nargs < ARGS_MAX;
	     p = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(p, '=');
		if (eq)
			*eq = '\0';
		args[nargs].key = p;
		args[nargs++].value = eq ? eq + 1 : NULL;
	}
	pw_history_query_parse(args, nargs, accept, NOW_NS, HOUR_NS, &q, err, sizeof(err));
	free(text);
	return 0;
}
