/* duration.c — "1m30s"-style durations, the one parser behind every duration flag, config key and
 * [rule.NAME]/[receiver.NAME] setting. */
#include "duration.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)

int pw_parse_duration(const char *text, int64_t *ret_ns)
{
	static const struct {
		const char *suffix;
		int64_t ns;
	} units[] = {{"ms", NS_PER_MS},
	             {"s", NS_PER_S},
	             {"m", 60 * NS_PER_S},
	             {"h", 3600 * NS_PER_S},
	             {"d", 86400 * NS_PER_S}};
	const char *p = text;
	int64_t total = 0;

	if (!*p)
		return -EINVAL;
	while (*p) {
		char *end;
		errno = 0;
		long long n = strtoll(p, &end, 10);
		if (end == p || errno || n < 0 || *p == '-' || *p == '+')
			return -EINVAL;
		size_t i;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t len = strlen(units[i].suffix);
			/* "ms" is listed before "m", so "100ms" is not read as minutes. */
			if (strncmp(end, units[i].suffix, len) == 0)
				break;
		}
		if (i == sizeof(units) / sizeof(units[0]) || n > INT64_MAX / units[i].ns ||
		    total > INT64_MAX - n * units[i].ns)
			return -EINVAL;
		total += n * units[i].ns;
		p = end + strlen(units[i].suffix);
	}
	*ret_ns = total;
	return 0;
}
