/* log.c — structured journal records when stderr is the journal, stderr text otherwise; rate limiting.
 * Messages carry text from outside (process and device names, a client's header): every message and
 * the alert scope are escaped (pw_text_escape: control characters and bytes that are not UTF-8 as
 * "\xNN"), so no line can be forged, no terminal driven, and journald stores text, not a blob.
 * Text escaped before (process names in the evidence) passes unchanged. */
#define _GNU_SOURCE
#define SD_JOURNAL_SUPPRESS_LOCATION /* pw_log_at passes the caller's location itself */
#include "log.h"

#include "text_escape.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

static atomic_int log_max_level = LOG_INFO;
static enum {
	LOG_TEXT,     /* "perfwatchd: LEVEL: text" on stderr */
	LOG_JOURNAL,  /* structured records to the journal's socket */
	LOG_PREFIXED, /* "<N>text" on stderr: a journal stream whose native socket is missing */
} log_mode;
/* Serializes journal sends. libsystemd opens its socket lazily with an atomic it keeps to itself, so
 * ThreadSanitizer sees the first thread's socket() race with every other thread's sendmsg(); a lock
 * around a rare event makes the ordering explicit. */
static pthread_mutex_t journal_lock = PTHREAD_MUTEX_INITIALIZER;

/* systemd sets JOURNAL_STREAM=DEV:INO for a service whose stdout or stderr is a journal stream. It is
 * inherited by children whose stderr may go elsewhere, so it only counts when it names stderr. */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	uintmax_t dev, ino;
	struct stat st;
	int used = 0;

	if (!env || sscanf(env, "%ju:%ju%n", &dev, &ino, &used) != 2 || env[used] != '\0')
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (uintmax_t)st.st_dev == dev && (uintmax_t)st.st_ino == ino;
}

void pw_log_init(int max_level)
{
	pw_log_set_level(max_level);
	/* sd_journal_send drops records silently when the socket does not exist: check once. */
	if (!stderr_is_journal())
		log_mode = LOG_TEXT;
	else
		log_mode = access(JOURNAL_SOCKET, F_OK) == 0 ? LOG_JOURNAL : LOG_PREFIXED;
}

void pw_log_set_level(int max_level)
{
	atomic_store_explicit(&log_max_level, max_level, memory_order_relaxed);
}

bool pw_log_to_journal(void)
{
	return log_mode == LOG_JOURNAL;
}

/* A record's fields: each "KEY=value" formatted into its own buffer, pointed to by one iovec. */
struct record {
	struct iovec iov[10];
	char buf[10][160];
	int n;
};

__attribute__((format(printf, 2, 3))) static void add_field(struct record *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->buf[r->n], sizeof(r->buf[r->n]), fmt, ap);
	va_end(ap);
	r->iov[r->n].iov_base = r->buf[r->n];
	r->iov[r->n].iov_len = strlen(r->buf[r->n]);
	r->n++;
}

/* One structured record; -errno when the journal socket cannot take it. */
static int journal_send(const char *file, int line, const char *func, int level,
                        const struct pw_log_alert_fields *alert, const char *text)
{
	char message[1100];
	struct record r = {.n = 0};

	add_field(&r, "PRIORITY=%d", level & 7);
	add_field(&r, "SYSLOG_IDENTIFIER=perfwatchd");
	add_field(&r, "CODE_FILE=%s", file);
	add_field(&r, "CODE_LINE=%d", line);
	add_field(&r, "CODE_FUNC=%s", func);
	if (alert && alert->name)
		add_field(&r, "ALERTNAME=%s", alert->name);
	if (alert && alert->state)
		add_field(&r, "ALERTSTATE=%s", alert->state);
	if (alert && alert->severity)
		add_field(&r, "ALERTSEVERITY=%s", alert->severity);
	if (alert && alert->scope) {
		char scope[sizeof(r.buf[0])];
		pw_text_escape(alert->scope, strlen(alert->scope), scope, sizeof(scope));
		add_field(&r, "ALERTSCOPE=%s", scope);
	}
	/* The message is longer than a field buffer: its own. */
	snprintf(message, sizeof(message), "MESSAGE=%s", text);
	r.iov[r.n].iov_base = message;
	r.iov[r.n].iov_len = strlen(message);
	pthread_mutex_lock(&journal_lock);
	int ret = sd_journal_sendv(r.iov, r.n + 1);
	pthread_mutex_unlock(&journal_lock);
	return ret;
}

void pw_log_at(const char *file, int line, const char *func, int level,
               const struct pw_log_alert_fields *alert, const char *fmt, ...)
{
	static const char *const names[] = {"emerg",   "alert",  "crit", "error",
	                                    "warning", "notice", "info", "debug"};
	char raw[1024], text[1024];
	va_list ap;

	if (level > atomic_load_explicit(&log_max_level, memory_order_relaxed))
		return;
	va_start(ap, fmt);
	int len = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	/* Cut to the buffer by vsnprintf (maybe inside a character: escaped then) and by the escapes. */
	pw_text_escape(raw, strnlen(raw, sizeof(raw)), text, sizeof(text));
	if (log_mode == LOG_TEXT)
		fprintf(stderr, "perfwatchd: %s: %s\n", names[level & 7], text);
	else if (log_mode == LOG_PREFIXED || journal_send(file, line, func, level, alert, text) < 0)
		/* The stream journald reads stderr through understands "<N>" priority prefixes. */
		fprintf(stderr, "<%d>%s\n", level & 7, text);
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
