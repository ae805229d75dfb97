/* pidstat.c — parser for /proc/[pid]/stat: "1234 (comm) S 1 1234 ... utime stime ... starttime ...".
 *
 * Kernel doc: Documentation/filesystems/proc.rst, Table 1-4; fs/proc/array.c do_task_stat(). Fields
 * after comm are separated by single spaces; some are signed (tty_nr, priority, nice), so the ones
 * not wanted are skipped as tokens, not read as numbers. */
#include "pidstat.h"

#include "scan.h"

#include <errno.h>

#define UTIME_FIELD 14
#define STIME_FIELD 15
#define STARTTIME_FIELD 22

/* The last ')' in buf[0..len): where comm ends, whatever comm holds. */
static const char *last_paren(const char *buf, size_t len)
{
	for (size_t i = len; i > 0; i--)
		if (buf[i - 1] == ')')
			return buf + i - 1;
	return NULL;
}

/* Fields 3 (state) to 22 (starttime), the cursor just after comm's ')'. */
static int parse_fields(struct pw_scan *scan, struct pw_pidstat *st)
{
	const char *tok;
	size_t len;

	if (pw_scan_token(scan, &tok, &len) < 0 || len != 1)
		return -EINVAL;
	st->state = tok[0];
	for (int field = 4; field <= STARTTIME_FIELD; field++) {
		uint64_t *want = field == UTIME_FIELD       ? &st->utime
		                 : field == STIME_FIELD     ? &st->stime
		                 : field == STARTTIME_FIELD ? &st->starttime
		                                            : NULL;
		if (!want) {
			if (pw_scan_token(scan, &tok, &len) < 0)
				return -EINVAL;
			continue;
		}
		int r = pw_scan_u64(scan, want);
		if (r < 0)
			return r;
		/* A number must end at a separator: "12x" is junk, and a buffer that ends inside
		 * starttime is a short read, not a small starttime. */
		if (pw_scan_eof(scan) || !(pw_scan_is_blank(*scan->pos) || *scan->pos == '\n'))
			return -EINVAL;
	}
	return 0;
}

int pw_pidstat_parse(const char *buf, size_t len, struct pw_pidstat *ret)
{
	struct pw_pidstat st = {0};
	struct pw_scan scan;
	uint64_t pid;
	int r;

	pw_scan_init(&scan, buf, len);
	r = pw_scan_u64(&scan, &pid);
	if (r < 0)
		return r;
	if (pid == 0 || pid > INT32_MAX)
		return -ERANGE;
	if (pw_scan_remaining(&scan) < 2 || scan.pos[0] != ' ' || scan.pos[1] != '(')
		return -EINVAL;
	const char *open = scan.pos + 2, *close = last_paren(open, (size_t)(scan.end - open));
	if (!close)
		return -EINVAL;
	st.pid = (int32_t)pid;
	pw_copy_label(st.comm, sizeof(st.comm), open, (size_t)(close - open));
	pw_scan_init(&scan, close + 1, (size_t)(scan.end - close - 1));
	r = parse_fields(&scan, &st);
	if (r < 0)
		return r;
	*ret = st;
	return 0;
}
