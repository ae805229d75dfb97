/* cpu_header.h — the "CPU0 CPU1 CPU3" header of /proc/interrupts and /proc/softirqs, which maps
 * count columns to CPU ids: offline CPUs have no column, so column c is not always CPU c. */
#ifndef PW_CPU_HEADER_H
#define PW_CPU_HEADER_H

#include "scan.h"

struct pw_cpu_header {
	const char *start; /* the header's tokens, walked again per row when !identity */
	size_t len;
	uint32_t ncolumns;
	uint32_t cpu_seen; /* highest CPU id + 1 */
	bool identity;     /* column c is CPU c, the usual case */
};

/* Parse the header at the cursor: at least one "CPU<n>" token, ids strictly increasing (so no CPU is
 * counted twice). Returns 0, -EINVAL or -ERANGE. */
int pw_cpu_header_parse(struct pw_scan *scan, struct pw_cpu_header *ret);

/* Start a walk over the header's columns for one row. */
void pw_cpu_header_walk(const struct pw_cpu_header *hdr, struct pw_scan *ret_walk);

/* The CPU id of column (the columns of one row taken in order with the same walk). */
uint32_t pw_cpu_header_column_cpu(const struct pw_cpu_header *hdr, struct pw_scan *walk, uint32_t column);

/* What to do with one row after the header: the scanner stands after "NAME:". A negative result
 * stops the parse. */
typedef int (*pw_cpu_row_fn)(struct pw_scan *scan, void *ctx, const char *name, size_t name_len);

/* The rows after the header, each "NAME: ..." (a name never holds a blank): row() for each, then the
 * next line. Returns 0, -EINVAL for a row without its "NAME:", or row()'s negative result. */
int pw_cpu_rows_parse(struct pw_scan *scan, pw_cpu_row_fn row, void *ctx);

#endif
