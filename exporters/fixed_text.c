/* fixed_text.c — the lengths of the fractions pw_write_fixed writes. */
#include "fixed_text.h"

#include <pthread.h>

uint8_t pw_fraction_len[10000];

static void fill(void)
{
	for (unsigned k = 1; k < 10000; k++) {
		unsigned n = 4, t = k;
		for (; t % 10 == 0; t /= 10)
			n--;
		pw_fraction_len[k] = (uint8_t)(1 + n);
	}
}

void pw_fixed_text_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, fill);
}
