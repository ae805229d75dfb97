/* softirqs.c — parses /proc/softirqs into per-type totals and a per-CPU x type table. */
#include "softirqs.h"

#include "cpu_header.h"

#include <errno.h>
#include <string.h>

#define KEY_IS(key, len, lit) ((len) == sizeof(lit) - 1 && memcmp((key), (lit), sizeof(lit) - 1) == 0)

struct softirq_ctx {
	struct pw_cpu_header hdr;
	struct pw_softirqs st;
	uint64_t *per_cpu;
	uint32_t cpu_cap;
};

/* Row name (without the colon) to its type, or -1 for a row a newer kernel added. */
static int softirq_type(const char *name, size_t len)
{
	switch (name[0]) {
	case 'H':
		if (KEY_IS(name, len, "HI"))
			return PW_SOFTIRQ_HI;
		if (KEY_IS(name, len, "HRTIMER"))
			return PW_SOFTIRQ_HRTIMER;
		break;
	case 'T':
		if (KEY_IS(name, len, "TIMER"))
			return PW_SOFTIRQ_TIMER;
		if (KEY_IS(name, len, "TASKLET"))
			return PW_SOFTIRQ_TASKLET;
		break;
	case 'N':
		if (KEY_IS(name, len, "NET_TX"))
			return PW_SOFTIRQ_NET_TX;
		if (KEY_IS(name, len, "NET_RX"))
			return PW_SOFTIRQ_NET_RX;
		break;
	case 'B':
		if (KEY_IS(name, len, "BLOCK"))
			return PW_SOFTIRQ_BLOCK;
		if (KEY_IS(name, len, "BLOCK_IOPOLL")) /* renamed IRQ_POLL in 4.4 */
			return PW_SOFTIRQ_IRQ_POLL;
		break;
	case 'I':
		if (KEY_IS(name, len, "IRQ_POLL"))
			return PW_SOFTIRQ_IRQ_POLL;
		break;
	case 'S':
		if (KEY_IS(name, len, "SCHED"))
			return PW_SOFTIRQ_SCHED;
		break;
	case 'R':
		if (KEY_IS(name, len, "RCU"))
			return PW_SOFTIRQ_RCU;
		break;
	}
	return -1;
}

/* Counts of one row; a short row leaves the missing CPUs at 0, extra columns are ignored. */
static int parse_row(struct pw_scan *scan, struct softirq_ctx *ctx, int type)
{
	struct pw_scan walk;
	uint64_t total = 0, value;

	pw_cpu_header_walk(&ctx->hdr, &walk);
	for (uint32_t col = 0; col < ctx->hdr.ncolumns && !pw_scan_at_eol(scan); col++) {
		int r = pw_scan_u64(scan, &value);
		if (r < 0)
			return r;
		if (__builtin_add_overflow(total, value, &total))
			return -ERANGE;
		uint32_t id = pw_cpu_header_column_cpu(&ctx->hdr, &walk, col);
		if (ctx->per_cpu && id < ctx->cpu_cap)
			ctx->per_cpu[(size_t)id * PW_SOFTIRQ_COUNT + (size_t)type] = value;
	}
	ctx->st.total[type] = total;
	ctx->st.present |= 1u << type;
	return 0;
}

/* A row of a known type: its counts; an unknown type (a newer kernel's) is skipped. */
static int parse_named_row(struct pw_scan *scan, void *arg, const char *name, size_t name_len)
{
	int type = softirq_type(name, name_len);

	return type >= 0 ? parse_row(scan, arg, type) : 0;
}

int pw_softirqs_parse(const char *buf, size_t len, uint64_t *per_cpu, uint32_t cpu_cap,
                      struct pw_softirqs *ret)
{
	struct softirq_ctx ctx = {.per_cpu = per_cpu, .cpu_cap = cpu_cap};
	struct pw_scan scan;
	int r;

	if (per_cpu && cpu_cap > 0)
		memset(per_cpu, 0, (size_t)cpu_cap * PW_SOFTIRQ_COUNT * sizeof(*per_cpu));
	pw_scan_init(&scan, buf, len);
	r = pw_cpu_header_parse(&scan, &ctx.hdr);
	if (r < 0)
		return r;
	pw_scan_next_line(&scan);
	r = pw_cpu_rows_parse(&scan, parse_named_row, &ctx);
	if (r < 0)
		return r;
	ctx.st.cpu_seen = ctx.hdr.cpu_seen;
	*ret = ctx.st;
	return ctx.hdr.cpu_seen > cpu_cap ? -ENOBUFS : 0;
}
