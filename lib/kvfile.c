/* kvfile.c — "<key>[:] <value>" line files (/proc/vmstat, /proc/meminfo): lookup and line loop. */
#include "kvfile.h"

#include "scan.h"

#include <errno.h>
#include <string.h>

/* Order by length, then bytes: most lines of the file have a length none of our keys has, so the
 * search usually ends on integer compares without touching memcmp. */
static int key_cmp(const struct pw_kvfile_key *k, const char *key, size_t len)
{
	if (len != k->len)
		return len < k->len ? -1 : 1;
	return memcmp(key, k->name, len);
}

/* The field named key[0..len), or -1. */
static int kv_lookup(const struct pw_kvfile *table, const char *key, size_t len)
{
	size_t lo = 0, hi = table->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(&table->keys[table->sorted[mid]], key, len);

		if (c == 0)
			return table->sorted[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* One "<key>[:] <value> [unit]" line; the cursor ends at the next line. */
static int kv_parse_line(const struct pw_kvfile *table, struct pw_scan *scan, uint64_t *values,
                         uint32_t *present)
{
	const char *key;
	size_t key_len;
	uint64_t value;

	if (pw_scan_token(scan, &key, &key_len) < 0)
		return -EINVAL;
	if (table->key_suffix) {
		if (key[key_len - 1] != table->key_suffix)
			return -EINVAL;
		key_len--;
	}
	int field = kv_lookup(table, key, key_len);
	int r = pw_scan_u64(scan, &value);

	/* Every line must carry a number, but only a kept field may fail the file on overflow. */
	if (r == -EINVAL || (r == -ERANGE && field >= 0))
		return r;
	if (r == 0 && field >= 0) {
		values[field] = value;
		*present |= 1u << field;
	}
	pw_scan_next_line(scan);
	return 0;
}

int pw_kvfile_parse(const struct pw_kvfile *table, const char *buf, size_t len, uint64_t *values,
                    uint32_t *ret_present)
{
	struct pw_scan scan;

	/* An empty read is a failed source, not a kernel without counters. */
	if (len == 0)
		return -EINVAL;
	pw_scan_init(&scan, buf, len);
	while (!pw_scan_eof(&scan)) {
		int r = kv_parse_line(table, &scan, values, ret_present);

		if (r < 0)
			return r;
	}
	return 0;
}
