/* log.h — the daemon's only way to speak: one line per event on stderr, with a syslog priority
 * prefix journald understands when it is listening. Library code never logs. */
#ifndef PW_LOG_H
#define PW_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

void pw_log_init(int max_level);
void pw_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* At most one message per period; counts what it held back. */
struct pw_ratelimit {
	int64_t period_ns;
	int64_t last_ns;
	uint64_t suppressed;
	bool used;
};

/* True when a message may go out at now_ns; then *ret_suppressed says how many were held back. */
bool pw_ratelimit_allow(struct pw_ratelimit *rl, int64_t now_ns, uint64_t *ret_suppressed);

#endif
