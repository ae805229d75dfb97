/* log.c — stderr logging, journald-aware priority prefixes, and rate limiting. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int log_max_level = LOG_INFO;
static bool log_to_journal;

void pw_log_init(int max_level)
{
	log_max_level = max_level;
	/* systemd sets JOURNAL_STREAM when stderr goes to journald, which parses "<N>" prefixes. */
	log_to_journal = getenv("JOURNAL_STREAM") != NULL;
}

void pw_log(int level, const char *fmt, ...)
{
	static const char *const names[] = {"emerg",   "alert",  "crit", "error",
	                                    "warning", "notice", "info", "debug"};
	char line[1024];
	va_list ap;

	if (level > log_max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (log_to_journal)
		fprintf(stderr, "<%d>%s\n", level, line);
	else
		fprintf(stderr, "perfwatchd: %s: %s\n", names[level & 7], line);
}

bool pw_ratelimit_allow(struct pw_ratelimit *rl, int64_t now_ns, uint64_t *ret_suppressed)
{
	if (rl->used && now_ns - rl->last_ns < rl->period_ns) {
		rl->suppressed++;
		return false;
	}
	*ret_suppressed = rl->suppressed;
	rl->suppressed = 0;
	rl->last_ns = now_ns;
	rl->used = true;
	return true;
}
