/* fuzz_cpufreq.c — libFuzzer harness: the cpufreq sysfs readers (lib/cpufreq.c): one number, one
 * word, stats/time_in_state and CPU lists. */
#include "cpufreq.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	uint64_t v;
	char word[16];
	struct pw_time_in_state tis;
	bool mask[64];

	pw_sysfs_parse_u64(buf, size, &v);
	pw_sysfs_parse_word(buf, size, word, sizeof(word));
	pw_sysfs_parse_word(buf, size, word, 1);
	pw_time_in_state_parse(buf, size, &tis);
	pw_cpulist_parse(buf, size, mask, 64);
	pw_cpulist_parse(buf, size, mask, 1);
	return 0;
}
