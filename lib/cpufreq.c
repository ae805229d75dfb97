/* cpufreq.c — parsers for the sysfs cpufreq attributes (one number, one word, time_in_state) and CPU lists.
 *
 * Kernel docs: Documentation/admin-guide/pm/cpufreq.rst, Documentation/cpu-freq/cpufreq-stats.rst,
 * Documentation/admin-guide/cputopology.rst. Quirk: sysfs cuts any attribute at PAGE_SIZE (and a
 * reader can be handed a short read), so a time_in_state whose last line lacks its newline is
 * treated as truncated (-EINVAL) rather than summed low. */
#include "cpufreq.h"

#include "scan.h"

#include <errno.h>
#include <limits.h>

/* After the value: blanks, then an optional single newline, then nothing. */
static bool at_attribute_end(struct pw_scan *scan)
{
	if (!pw_scan_at_eol(scan))
		return false;
	pw_scan_next_line(scan);
	return pw_scan_eof(scan);
}

int pw_sysfs_parse_u64(const char *buf, size_t len, uint64_t *ret)
{
	struct pw_scan scan;
	uint64_t value;
	int r;

	pw_scan_init(&scan, buf, len);
	r = pw_scan_u64(&scan, &value);
	if (r < 0)
		return r;
	if (!at_attribute_end(&scan))
		return -EINVAL;
	*ret = value;
	return 0;
}

int pw_sysfs_parse_word(const char *buf, size_t len, char *ret, size_t size)
{
	struct pw_scan scan;
	const char *word;
	size_t word_len;

	pw_scan_init(&scan, buf, len);
	if (pw_scan_token(&scan, &word, &word_len) < 0)
		return -EINVAL;
	if (!at_attribute_end(&scan))
		return -EINVAL;
	pw_copy_label(ret, size, word, word_len);
	return 0;
}

/* Move past the newline that ends the current line; false if the buffer ends first. Only called
 * after a number was read, so pos[-1] is inside the buffer. */
static bool skip_complete_line(struct pw_scan *scan)
{
	pw_scan_next_line(scan);
	return scan->pos[-1] == '\n';
}

/* Add one "<khz> <time>" state to the sums; -ERANGE when a product or sum leaves 64 bits. */
static int tis_add(struct pw_time_in_state *tis, uint64_t khz, uint64_t time)
{
	if (khz > UINT32_MAX)
		return -ERANGE;
	if (khz != 0 && time > (UINT64_MAX - tis->khz_time) / khz)
		return -ERANGE;
	if (time > UINT64_MAX - tis->time)
		return -ERANGE;
	tis->khz_time += khz * time;
	tis->time += time;
	if (tis->nstates == 0 || khz < tis->min_khz)
		tis->min_khz = (uint32_t)khz;
	if (tis->nstates == 0 || khz > tis->max_khz)
		tis->max_khz = (uint32_t)khz;
	tis->nstates++;
	return 0;
}

int pw_time_in_state_parse(const char *buf, size_t len, struct pw_time_in_state *ret)
{
	struct pw_time_in_state tis = {0};
	struct pw_scan scan;

	pw_scan_init(&scan, buf, len);
	while (!pw_scan_eof(&scan)) {
		uint64_t khz, time;
		int r = pw_scan_u64(&scan, &khz);

		if (r == 0)
			r = pw_scan_u64(&scan, &time);
		if (r < 0)
			return r;
		/* Extra columns are ignored, but every line ends in a newline: a missing one means the
		 * file was cut short and the sums would be silently low. */
		if (!skip_complete_line(&scan))
			return -EINVAL;
		r = tis_add(&tis, khz, time);
		if (r < 0)
			return r;
	}
	if (tis.nstates == 0)
		return -EINVAL;
	*ret = tis;
	return 0;
}

/* Mark ids first..last that fall below cap; returns how many were newly set. */
static int cpulist_mark(bool *mask, uint32_t cap, uint64_t first, uint64_t last)
{
	int added = 0;

	for (uint64_t id = first; id <= last && id < cap; id++) {
		if (!mask[id]) {
			mask[id] = true;
			added++;
		}
	}
	return added;
}

/* Read one "<id>" or "<first>-<last>" entry. */
static int cpulist_entry(struct pw_scan *scan, uint64_t *ret_first, uint64_t *ret_last)
{
	/* An id too long for 64 bits is not a CPU id: malformed, not merely over capacity. */
	if (pw_scan_u64(scan, ret_first) < 0)
		return -EINVAL;
	*ret_last = *ret_first;
	if (scan->pos < scan->end && *scan->pos == '-') {
		scan->pos++;
		if (pw_scan_u64(scan, ret_last) < 0 || *ret_last < *ret_first)
			return -EINVAL;
	}
	return 0;
}

/* On -EINVAL the mask holds whatever came before the error; callers must not use it. */
int pw_cpulist_parse(const char *buf, size_t len, bool *mask, uint32_t cap)
{
	struct pw_scan scan;
	bool too_big = false;
	int count = 0;

	/* The count is returned as an int. */
	if (cap > INT_MAX)
		cap = INT_MAX;
	for (uint32_t i = 0; i < cap; i++)
		mask[i] = false;
	pw_scan_init(&scan, buf, len);
	if (at_attribute_end(&scan))
		return 0;
	pw_scan_init(&scan, buf, len);
	for (;;) {
		uint64_t first, last;
		int r = cpulist_entry(&scan, &first, &last);

		if (r < 0)
			return r;
		count += cpulist_mark(mask, cap, first, last);
		too_big |= last >= cap;
		if (scan.pos < scan.end && *scan.pos == ',') {
			scan.pos++;
			continue;
		}
		if (!at_attribute_end(&scan))
			return -EINVAL;
		return too_big ? -ENOBUFS : count;
	}
}
