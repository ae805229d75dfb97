/* fuzz_accept.c — libFuzzer harness: the request headers the exporters negotiate on: Accept for
 * /metrics (exporters/prometheus.c) and Accept-Encoding (exporters/gzip.c). The input is the
 * header value, NUL-terminated as libmicrohttpd hands it over. */
#include "gzip.h"
#include "prometheus.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *value = malloc(size + 1);

	if (!value)
		return 0;
	memcpy(value, data, size);
	value[size] = '\0';
	pw_prom_negotiate(value);
	pw_gzip_accepted(value);
	free(value);
	return 0;
}
