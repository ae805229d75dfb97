/* pressure.c — parser for one /proc/pressure/{cpu,memory,io,irq} file (PSI).
 *
 * Kernel doc: Documentation/accounting/psi.rst; printed by kernel/sched/psi.c psi_show():
 * "some avg10=%lu.%02lu avg60=%lu.%02lu avg300=%lu.%02lu total=%llu" and the same for "full".
 * Quirks: cpu has no "full" line before 5.13; irq (6.1+) has only "full"; reading irq fails
 * (EOPNOTSUPP) when IRQ time accounting is off, which reaches us as an empty buffer. */
#include "pressure.h"

#include "scan.h"

#include <errno.h>
#include <string.h>

enum { SEEN_AVG10 = 1, SEEN_AVG60 = 2, SEEN_AVG300 = 4, SEEN_TOTAL = 8, SEEN_ALL = 15 };

/* Store one "name=value" pair; unknown names are ignored. Returns the SEEN_ bit (0 if unknown) or
 * a negative errno. */
static int psi_parse_pair(const char *tok, size_t len, struct pw_psi_line *line)
{
	const char *eq = memchr(tok, '=', len);
	struct pw_scan value;
	size_t name_len;
	int r, bit;

	if (!eq)
		return -EINVAL;
	name_len = (size_t)(eq - tok);
	pw_scan_init(&value, eq + 1, len - name_len - 1);
	if (pw_token_is(tok, name_len, "total")) {
		r = pw_scan_u64(&value, &line->total_us);
		bit = SEEN_TOTAL;
	} else if (pw_token_is(tok, name_len, "avg10")) {
		r = pw_scan_hundredths(&value, &line->avg10);
		bit = SEEN_AVG10;
	} else if (pw_token_is(tok, name_len, "avg60")) {
		r = pw_scan_hundredths(&value, &line->avg60);
		bit = SEEN_AVG60;
	} else if (pw_token_is(tok, name_len, "avg300")) {
		r = pw_scan_hundredths(&value, &line->avg300);
		bit = SEEN_AVG300;
	} else {
		return 0;
	}
	if (r < 0)
		return r;
	return pw_scan_eof(&value) ? bit : -EINVAL;
}

/* The pairs after "some"/"full"; all four must be there. */
static int psi_parse_line(struct pw_scan *scan, struct pw_psi_line *ret)
{
	struct pw_psi_line line = {0};
	int seen = 0;

	while (!pw_scan_at_eol(scan)) {
		const char *tok;
		size_t len;
		int bit;

		/* Not at the end of the line, so a token is there. */
		if (pw_scan_token(scan, &tok, &len) < 0)
			return -EINVAL;
		bit = psi_parse_pair(tok, len, &line);
		if (bit < 0)
			return bit;
		seen |= bit;
	}
	if (seen != SEEN_ALL)
		return -EINVAL;
	line.present = true;
	*ret = line;
	return 0;
}

int pw_pressure_parse(const char *buf, size_t len, struct pw_psi *ret)
{
	struct pw_psi psi = {0};
	struct pw_scan scan;

	pw_scan_init(&scan, buf, len);
	for (; !pw_scan_eof(&scan); pw_scan_next_line(&scan)) {
		struct pw_psi_line *line;
		const char *kind;
		size_t kind_len;
		int r;

		if (pw_scan_token(&scan, &kind, &kind_len) < 0)
			return -EINVAL;
		if (pw_token_is(kind, kind_len, "some"))
			line = &psi.some;
		else if (pw_token_is(kind, kind_len, "full"))
			line = &psi.full;
		else
			continue;
		r = psi_parse_line(&scan, line);
		if (r < 0)
			return r;
	}
	if (!psi.some.present && !psi.full.present)
		return -EINVAL;
	*ret = psi;
	return 0;
}
