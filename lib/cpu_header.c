/* cpu_header.c — column-to-CPU mapping shared by the interrupts and softirqs parsers. */
#include "cpu_header.h"

#include <errno.h>
#include <string.h>

/* "CPU12" -> 12. */
static int header_cpu_id(const char *tok, size_t len, uint32_t *ret_id)
{
	struct pw_scan sub;
	uint64_t id;

	if (len < 4 || memcmp(tok, "CPU", 3) != 0)
		return -EINVAL;
	pw_scan_init(&sub, tok + 3, len - 3);
	if (pw_scan_u64(&sub, &id) < 0 || !pw_scan_eof(&sub))
		return -EINVAL;
	if (id >= UINT32_MAX)
		return -ERANGE;
	*ret_id = (uint32_t)id;
	return 0;
}

int pw_cpu_header_parse(struct pw_scan *scan, struct pw_cpu_header *hdr)
{
	const char *tok;
	size_t len;
	uint32_t id;

	memset(hdr, 0, sizeof(*hdr));
	pw_scan_skip_blanks(scan);
	hdr->start = scan->pos;
	hdr->identity = true;
	while (pw_scan_token(scan, &tok, &len) == 0) {
		int r = header_cpu_id(tok, len, &id);
		if (r < 0)
			return r;
		if (hdr->ncolumns > 0 && id < hdr->cpu_seen)
			return -EINVAL;
		if (id != hdr->ncolumns)
			hdr->identity = false;
		hdr->cpu_seen = id + 1;
		hdr->ncolumns++;
	}
	hdr->len = (size_t)(scan->pos - hdr->start);
	return hdr->ncolumns > 0 ? 0 : -EINVAL;
}

void pw_cpu_header_walk(const struct pw_cpu_header *hdr, struct pw_scan *ret_walk)
{
	pw_scan_init(ret_walk, hdr->start, hdr->len);
}

uint32_t pw_cpu_header_column_cpu(const struct pw_cpu_header *hdr, struct pw_scan *walk, uint32_t column)
{
	const char *tok;
	size_t len;
	uint32_t id = column;

	/* Walk only when some CPU is offline; the header was validated, so the id parses. */
	if (!hdr->identity && pw_scan_token(walk, &tok, &len) == 0)
		(void)header_cpu_id(tok, len, &id);
	return id;
}

int pw_cpu_rows_parse(struct pw_scan *scan, pw_cpu_row_fn row, void *ctx)
{
	while (!pw_scan_eof(scan)) {
		const char *tok;
		size_t len;

		if (pw_scan_token(scan, &tok, &len) == 0) {
			if (len < 2 || tok[len - 1] != ':')
				return -EINVAL;
			int r = row(scan, ctx, tok, len - 1);
			if (r < 0)
				return r;
		}
		pw_scan_next_line(scan);
	}
	return 0;
}
