/* history_transitions.c — the alert transitions file of the history store (history_transitions.h). */
#define _GNU_SOURCE /* O_NOFOLLOW */
#include "history_transitions.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER "time_ms\talert\tfrom\tto\tseverity\tvalue\tbaseline\tscope\n"
#define COMPACT_BYTES (256 * 1024) /* past this, the lines older than the retention go */
#define READ_MAX (16u << 20)       /* a file larger than this is read up to here */
#define NS_PER_MS INT64_C(1000000)

enum column {
	COL_TIME,
	COL_ALERT,
	COL_FROM,
	COL_TO,
	COL_SEVERITY,
	COL_VALUE,
	COL_BASELINE,
	COL_SCOPE,
	COL_COUNT
};
static const char *const column_names[COL_COUNT] = {"time_ms",  "alert", "from",     "to",
                                                    "severity", "value", "baseline", "scope"};

static int format_line(const struct pw_history_transition *t, char *buf, size_t size)
{
	char scope[sizeof(t->scope) + 1];

	snprintf(scope, sizeof(scope), "%.*s", (int)sizeof(t->scope), t->scope);
	for (char *c = scope; *c; c++) /* a tab or newline would split the line */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	return snprintf(buf, size, "%" PRId64 "\t%s\t%s\t%s\t%s\t%.6g\t%.6g\t%s\n", t->real_ns / NS_PER_MS,
	                pw_alert_name_str(t->alert), pw_alert_state_str(t->from), pw_alert_state_str(t->to),
	                pw_severity_str(t->severity), t->value, t->baseline, scope);
}

/* The file's text (at most READ_MAX bytes), NUL-terminated. */
static int read_whole(int fd, char **ret, size_t *ret_len)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		return -errno;
	size_t want = (size_t)sb.st_size < READ_MAX ? (size_t)sb.st_size : READ_MAX, got = 0;
	char *data = malloc(want + 1);
	if (!data)
		return -ENOMEM;
	while (got < want) {
		ssize_t n = pread(fd, data + got, want - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	data[got] = '\0';
	*ret = data;
	*ret_len = got;
	return 0;
}

/* ---- parsing ---- */

static int lookup(const char *(*name_of)(int), int count, const char *s, size_t len)
{
	for (int i = 0; i < count; i++) {
		const char *n = name_of(i);
		if (n && strlen(n) == len && memcmp(n, s, len) == 0)
			return i;
	}
	return -1;
}

static const char *alert_name(int i)
{
	return pw_alert_name_str((enum pw_alert_name)i);
}

static const char *state_name(int i)
{
	return pw_alert_state_str((enum pw_alert_state)i);
}

static const char *severity_name(int i)
{
	return pw_severity_str((enum pw_severity)i);
}

/* Which column each field of a line is, from the header line. */
static void parse_header(const char *line, size_t len, int *cols, size_t ncols)
{
	size_t k = 0;
	for (const char *p = line, *end = line + len; p <= end && k < ncols; k++) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));
		size_t flen = tab ? (size_t)(tab - p) : (size_t)(end - p);
		cols[k] = -1;
		for (int c = 0; c < COL_COUNT; c++)
			if (strlen(column_names[c]) == flen && memcmp(column_names[c], p, flen) == 0)
				cols[k] = c;
		if (!tab)
			break;
		p = tab + 1;
	}
}

static bool parse_line(const char *line, size_t len, const int *cols, size_t ncols,
                       struct pw_history_transition *ret)
{
	struct pw_history_transition t = {0};
	unsigned seen = 0;
	size_t k = 0;

	for (const char *p = line, *end = line + len; k < ncols; k++) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));
		size_t flen = tab ? (size_t)(tab - p) : (size_t)(end - p);
		char field[128];
		int v;
		snprintf(field, sizeof(field), "%.*s", (int)(flen < sizeof(field) ? flen : sizeof(field) - 1),
		         p);
		switch (cols[k]) {
		case COL_TIME: {
			char *e;
			errno = 0;
			long long ms = strtoll(field, &e, 10);
			if (*e || errno || ms > INT64_MAX / NS_PER_MS || ms < INT64_MIN / NS_PER_MS)
				return false;
			t.real_ns = (int64_t)ms * NS_PER_MS;
			break;
		}
		case COL_ALERT:
			if ((v = lookup(alert_name, PW_ALERT_COUNT, p, flen)) < 0)
				return false;
			t.alert = (uint8_t)v;
			break;
		case COL_FROM:
		case COL_TO:
			if ((v = lookup(state_name, PW_ALERT_FIRING + 1, p, flen)) < 0)
				return false;
			*(cols[k] == COL_FROM ? &t.from : &t.to) = (uint8_t)v;
			break;
		case COL_SEVERITY:
			if ((v = lookup(severity_name, PW_SEVERITY_CRITICAL + 1, p, flen)) < 0)
				return false;
			t.severity = (uint8_t)v;
			break;
		case COL_VALUE:
		case COL_BASELINE:
			*(cols[k] == COL_VALUE ? &t.value : &t.baseline) = strtod(field, NULL);
			break;
		case COL_SCOPE:
			snprintf(t.scope, sizeof(t.scope), "%.*s",
			         (int)(flen < sizeof(t.scope) ? flen : sizeof(t.scope) - 1), p);
			break;
		default: /* a column of a newer perfwatch */
			break;
		}
		if (cols[k] >= 0)
			seen |= 1u << cols[k];
		if (!tab)
			break;
		p = tab + 1;
	}
	if ((seen & 0x1f) != 0x1f) /* time, alert, from, to, severity */
		return false;
	*ret = t;
	return true;
}

/* Call take(t, arg) for each transition of the file's text. */
static void each_line(const char *data, size_t len,
                      void (*take)(const struct pw_history_transition *, const char *, size_t, void *),
                      void *arg)
{
	int cols[32];
	size_t ncols = 0;
	const char *p = data, *end = data + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break; /* torn by a crash: skipped */
		size_t llen = (size_t)(nl - p);
		struct pw_history_transition t;
		if (!ncols) {
			ncols = sizeof(cols) / sizeof(cols[0]);
			for (size_t k = 0; k < ncols; k++)
				cols[k] = -1;
			parse_header(p, llen, cols, ncols);
		} else if (parse_line(p, llen, cols, ncols, &t)) {
			take(&t, p, llen + 1, arg);
		}
		p = nl + 1;
	}
}

/* ---- writing ---- */

struct keep {
	int fd;
	int64_t cutoff_ns;
	int err;
};

static void keep_newer(const struct pw_history_transition *t, const char *line, size_t len, void *arg)
{
	struct keep *k = arg;
	if (t->real_ns >= k->cutoff_ns && !k->err && write(k->fd, line, len) != (ssize_t)len)
		k->err = errno ? -errno : -EIO;
}

/* Rewrite the file without the lines older than cutoff (temporary file, rename). */
static int compact_file(int dir_fd, int fd, int64_t cutoff_ns)
{
	char *data = NULL;
	size_t len = 0;
	int r = read_whole(fd, &data, &len);
	if (r < 0)
		return r;
	int tmp = openat(dir_fd, PW_HISTORY_TRANSITIONS_FILE ".tmp",
	                 O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (tmp < 0) {
		free(data);
		return -errno;
	}
	struct keep k = {tmp, cutoff_ns, 0};
	if (write(tmp, HEADER, strlen(HEADER)) != (ssize_t)strlen(HEADER))
		k.err = -EIO;
	each_line(data, len, keep_newer, &k);
	free(data);
	if (!k.err && fsync(tmp) < 0)
		k.err = -errno;
	close(tmp);
	if (!k.err &&
	    renameat(dir_fd, PW_HISTORY_TRANSITIONS_FILE ".tmp", dir_fd, PW_HISTORY_TRANSITIONS_FILE) < 0)
		k.err = -errno;
	if (k.err)
		unlinkat(dir_fd, PW_HISTORY_TRANSITIONS_FILE ".tmp", 0);
	return k.err;
}

static void first_time(const struct pw_history_transition *t, const char *line, size_t len, void *arg)
{
	int64_t *oldest = arg;
	(void)line, (void)len;
	if (*oldest == INT64_MAX)
		*oldest = t->real_ns;
}

/* The time of the file's first transition (lines are in time order): a file whose oldest line is
 * inside the retention is not rewritten, however large. */
static int64_t oldest_ns(int fd)
{
	char head[2048];
	int64_t oldest = INT64_MAX;
	ssize_t n = pread(fd, head, sizeof(head), 0);

	if (n > 0)
		each_line(head, (size_t)n, first_time, &oldest);
	return oldest;
}

int pw_history_transitions_append(const char *dir, const struct pw_history_transition *t, size_t n,
                                  int64_t now_real_ns, int64_t retention_ns, size_t *ret_written)
{
	int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;
	char line[512];
	size_t written = 0;
	int r = 0;

	if (ret_written)
		*ret_written = 0;
	if (dir_fd < 0)
		return -errno;
	int fd = openat(dir_fd, PW_HISTORY_TRANSITIONS_FILE,
	                O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		r = -errno;
		close(dir_fd);
		return r;
	}
	errno = 0;
	if (fstat(fd, &sb) < 0)
		r = -errno;
	else if (sb.st_size == 0 && write(fd, HEADER, strlen(HEADER)) != (ssize_t)strlen(HEADER)) {
		r = errno ? -errno : -ENOSPC;
		if (ftruncate(fd, 0) < 0) /* a part of the header would stay the file's first line */
			r = -errno;
	}
	for (; written < n && r == 0; written++) {
		int len = format_line(&t[written], line, sizeof(line));
		off_t before = lseek(fd, 0, SEEK_END);
		if (len <= 0 || (size_t)len >= sizeof(line))
			continue;
		errno = 0;
		if (write(fd, line, (size_t)len) != len) {
			r = errno ? -errno : -ENOSPC; /* a short write: the disk filled */
			if (before >= 0 && ftruncate(fd, before) < 0)
				r = -errno; /* a torn line stays; readers skip it */
			break;
		}
	}
	if (ret_written)
		*ret_written = written;
	if (r == 0 && fstat(fd, &sb) == 0 && sb.st_size > COMPACT_BYTES &&
	    oldest_ns(fd) < now_real_ns - retention_ns)
		r = compact_file(dir_fd, fd, now_real_ns - retention_ns);
	close(fd);
	close(dir_fd);
	return r;
}

/* ---- reading ---- */

struct window {
	int64_t since_ns, until_ns;
	struct pw_history_transition *ret;
	size_t cap, n, next; /* a ring of the newest cap */
};

static void take_in_window(const struct pw_history_transition *t, const char *line, size_t len, void *arg)
{
	struct window *w = arg;
	(void)line, (void)len;
	if (t->real_ns <= w->since_ns || t->real_ns > w->until_ns || !w->cap)
		return;
	w->ret[w->next] = *t;
	w->next = (w->next + 1) % w->cap;
	if (w->n < w->cap)
		w->n++;
}

size_t pw_history_transitions_read(const char *dir, int64_t since_ns, int64_t until_ns,
                                   struct pw_history_transition *ret, size_t cap)
{
	char path[4096], *data = NULL;
	size_t len = 0;
	struct window w = {since_ns, until_ns, ret, cap, 0, 0};

	snprintf(path, sizeof(path), "%s/" PW_HISTORY_TRANSITIONS_FILE, dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	if (read_whole(fd, &data, &len) == 0)
		each_line(data, len, take_in_window, &w);
	close(fd);
	free(data);
	/* Oldest first: rotate the ring so it starts at its oldest. */
	if (w.n == cap && w.next) {
		struct pw_history_transition *tmp = malloc(cap * sizeof(*tmp));
		if (tmp) {
			memcpy(tmp, ret + w.next, (cap - w.next) * sizeof(*tmp));
			memcpy(tmp + (cap - w.next), ret, w.next * sizeof(*tmp));
			memcpy(ret, tmp, cap * sizeof(*tmp));
			free(tmp);
		}
	}
	return w.n;
}
