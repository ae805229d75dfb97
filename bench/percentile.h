/* percentile.h — the order statistics floor and scrape report: sort the samples once, then read
 * nearest-rank percentiles off the sorted array. */
#ifndef PW_BENCH_PERCENTILE_H
#define PW_BENCH_PERCENTILE_H

#include <stdint.h>
#include <stdlib.h>

static int bench_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static inline void bench_sort_i64(int64_t *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_i64);
}

/* Nearest-rank percentile (q in 0..1) of a sorted array of n > 0 values. */
static inline int64_t bench_percentile(const int64_t *v, long n, double q)
{
	long k = (long)(q * (double)n + 0.999999);
	if (k < 1)
		k = 1;
	return v[k > n ? n - 1 : k - 1];
}

#endif
