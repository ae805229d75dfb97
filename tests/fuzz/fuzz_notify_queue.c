/* fuzz_notify_queue.c — libFuzzer harness: the notification queue's file form
 * (daemon/notify_queue.c): decode, and for what it accepts, encode, decode and encode again to the
 * same text. */
#include "notify_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pw_nq q = {0}, q2 = {0};
	int n = pw_nq_decode(&q, (const char *)data, size);

	if (n >= 0) {
		char *one = pw_nq_encode(&q);
		if (one) {
			if (pw_nq_decode(&q2, one, strlen(one)) != n)
				abort();
			char *two = pw_nq_encode(&q2);
			if (two && strcmp(one, two) != 0)
				abort();
			free(two);
		}
		free(one);
	} else if (n != -EINVAL && n != -ENOMEM) {
		abort();
	}
	pw_nq_clear(&q);
	pw_nq_clear(&q2);
	return 0;
}
