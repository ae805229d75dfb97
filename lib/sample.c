/* sample.c — layout of the flat sample block. */
#include "sample.h"

#include <string.h>

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

size_t pw_sample_size(uint32_t cpu_cap, uint32_t line_cap, bool with_matrix)
{
	size_t size = align8(sizeof(struct pw_sample));

	size += align8((size_t)cpu_cap * sizeof(struct pw_cpu_sample));
	size += align8((size_t)line_cap * sizeof(struct pw_line_sample));
	if (with_matrix)
		size += (size_t)line_cap * cpu_cap * sizeof(uint64_t);
	return size;
}

void pw_sample_layout(struct pw_sample *ret, uint32_t cpu_cap, uint32_t line_cap, bool with_matrix)
{
	size_t off = align8(sizeof(struct pw_sample));

	ret->cpu_cap = cpu_cap;
	ret->line_cap = line_cap;
	ret->off_cpus = (uint32_t)off;
	off += align8((size_t)cpu_cap * sizeof(struct pw_cpu_sample));
	ret->off_lines = (uint32_t)off;
	off += align8((size_t)line_cap * sizeof(struct pw_line_sample));
	ret->off_matrix = with_matrix ? (uint32_t)off : 0;
	ret->size = (uint32_t)pw_sample_size(cpu_cap, line_cap, with_matrix);
}

void pw_sample_init(struct pw_sample *sample, uint32_t cpu_cap, uint32_t line_cap, bool with_matrix)
{
	memset(sample, 0, pw_sample_size(cpu_cap, line_cap, with_matrix));
	pw_sample_layout(sample, cpu_cap, line_cap, with_matrix);
}
