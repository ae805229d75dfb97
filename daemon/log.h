/* log.h — the daemon's only way to speak: one record per event. Under systemd with stderr connected
 * to the journal (JOURNAL_STREAM names stderr's device and inode), structured journal records
 * (PRIORITY, MESSAGE, SYSLOG_IDENTIFIER, CODE_*, and ALERT* fields for alert transitions); otherwise
 * one "perfwatchd: LEVEL: text" line on stderr. Library code never logs. */
#ifndef PW_LOG_H
#define PW_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

/* The journal fields of an alert transition (ALERTNAME=, ALERTSTATE=, ALERTSEVERITY=, ALERTSCOPE=);
 * NULL members are left out. */
struct pw_log_alert_fields {
	const char *name;     /* "InterruptTimeHigh" */
	const char *state;    /* "pending", "firing", "resolved", "inactive" */
	const char *severity; /* "warning", "critical" */
	const char *scope;    /* "host", "cpu3" */
};

/* Pick the destination (journal or stderr text) from JOURNAL_STREAM and stderr, and set the most
 * verbose level written. Call once from main before any thread starts. */
void pw_log_init(int max_level);

/* Change the level at run time (a reload); any thread. */
void pw_log_set_level(int max_level);

/* True when records go to the journal as structured entries. */
bool pw_log_to_journal(void);

/* Any thread. Use through the macros below, which pass the caller's location (CODE_FILE, CODE_LINE,
 * CODE_FUNC in the journal). alert may be NULL. */
void pw_log_at(const char *file, int line, const char *func, int level,
               const struct pw_log_alert_fields *alert, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));

#define pw_log(level, ...) pw_log_at(__FILE__, __LINE__, __func__, (level), NULL, __VA_ARGS__)
#define pw_log_alert(level, fields, ...)                                                                     \
	pw_log_at(__FILE__, __LINE__, __func__, (level), (fields), __VA_ARGS__)

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
