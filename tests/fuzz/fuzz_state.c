/* fuzz_state.c — libFuzzer harness: the baseline state loader (lib/detector_state.c) and a round
 * trip: whatever it accepts, saved and loaded again, saves to the same bytes. An input whose first
 * byte is odd gets its checksum fixed first, so the fuzzer gets past it to the payload checks. */
#include "detector.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { CPUS = 4, LINES = 8, HEADER = 32, SUMMED = 24 };

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	return h;
}

static void fix_checksum(unsigned char *file, size_t size)
{
	uint64_t h = fnv1a(fnv1a(UINT64_C(0xcbf29ce484222325), file, SUMMED), file + HEADER, size - HEADER);
	for (int i = 0; i < 8; i++)
		file[SUMMED + i] = (unsigned char)(h >> (8 * i));
}

static unsigned char *save(const struct pw_detector *det, size_t *ret_len)
{
	size_t len = pw_detector_state_size(det);
	unsigned char *buf = malloc(len);
	if (!buf || pw_detector_state_save(det, buf, len) != (int)len)
		abort();
	*ret_len = len;
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pw_detector_config cfg;
	unsigned char *in = malloc(size ? size : 1);

	if (!in)
		return 0;
	memcpy(in, data, size);
	if (size >= HEADER && (in[0] & 1)) {
		in[0] = 'P';
		fix_checksum(in, size);
	}
	pw_detector_config_defaults(&cfg, INT64_C(1000000000), INT64_C(1000000000));
	struct pw_detector *a = pw_detector_new(&cfg, CPUS, LINES), *b = pw_detector_new(&cfg, CPUS, LINES);
	int r = pw_detector_state_load(a, in, size);
	if (r == 0 || r == -ERANGE) {
		size_t len1, len2;
		unsigned char *one = save(a, &len1);
		if (pw_detector_state_load(b, one, len1) != 0)
			abort(); /* the daemon saved a file its own loader rejects */
		unsigned char *two = save(b, &len2);
		if (len1 != len2 || memcmp(one, two, len1) != 0)
			abort(); /* load, save, load: not the same baselines */
		free(one);
		free(two);
	} else if (r != -EINVAL && r != -EPROTO) {
		abort();
	}
	pw_detector_free(a);
	pw_detector_free(b);
	free(in);
	return 0;
}
