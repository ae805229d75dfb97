/* procstat.c — parses /proc/stat (cpu times, intr, ctxt, btime, process counts, softirq) from a buffer. */
#include "procstat.h"

#include "scan.h"

#include <errno.h>
#include <string.h>

/* Oldest kernels (before 2.5.41) print user nice system idle only. */
#define MIN_MODES 4

/* Compare a token with a string literal; the length is known at compile time. */
#define KEY_IS(key, len, lit) ((len) == sizeof(lit) - 1 && memcmp((key), (lit), sizeof(lit) - 1) == 0)

struct stat_ctx {
	struct pw_procstat st;
	struct pw_cpu_times *cpus;
	uint32_t cpu_cap;
	bool cap_exceeded;
	const char *intr_line; /* where the "intr" key starts, for pw_procstat_parse_irqs() */
};

/* Read the mode columns of a cpu line; columns past PW_MODE_COUNT are left for the caller to skip. */
static int parse_times(struct pw_scan *scan, struct pw_cpu_times *times)
{
	uint8_t n = 0;

	while (n < PW_MODE_COUNT && !pw_scan_at_eol(scan)) {
		int r = pw_scan_u64(scan, &times->ticks[n]);
		if (r < 0)
			return r;
		n++;
	}
	if (n < MIN_MODES)
		return -EINVAL;
	times->nmodes = n;
	times->present = true;
	return 0;
}

/* "cpuN": the id after the prefix. Returns 1 if the token is a cpuN key, 0 if it is some other key. */
static int parse_cpu_id(const char *key, size_t len, uint32_t *ret_id)
{
	struct pw_scan sub;
	uint64_t id;

	pw_scan_init(&sub, key + 3, len - 3);
	if (pw_scan_u64(&sub, &id) < 0 || !pw_scan_eof(&sub))
		return 0;
	if (id >= UINT32_MAX)
		return -ERANGE;
	*ret_id = (uint32_t)id;
	return 1;
}

static int parse_cpu_line(struct pw_scan *scan, struct stat_ctx *ctx, const char *key, size_t len)
{
	struct pw_cpu_times scratch;
	uint32_t id;
	int r;

	if (len == 3) {
		r = parse_times(scan, &ctx->st.total);
		if (r == 0)
			ctx->st.present |= PW_PROCSTAT_HAS_CPU;
		return r;
	}
	r = parse_cpu_id(key, len, &id);
	if (r <= 0)
		return r; /* "cpufoo" is an unknown key */
	if (id + 1 > ctx->st.cpu_seen)
		ctx->st.cpu_seen = id + 1;
	if (id < ctx->cpu_cap)
		return parse_times(scan, &ctx->cpus[id]);
	/* Still validate the line, so a capacity problem never hides a malformed file. */
	ctx->cap_exceeded = true;
	memset(&scratch, 0, sizeof(scratch));
	return parse_times(scan, &scratch);
}

/* A key followed by one number; anything after the first number is ignored. */
static int parse_value(struct pw_scan *scan, struct stat_ctx *ctx, uint64_t *ret, uint32_t bit)
{
	int r = pw_scan_u64(scan, ret);

	if (r == 0)
		ctx->st.present |= bit;
	return r;
}

/* Dispatch on the first character so each line costs at most a few short compares. */
static int parse_key(struct pw_scan *scan, struct stat_ctx *ctx, const char *key, size_t len)
{
	struct pw_procstat *st = &ctx->st;

	switch (key[0]) {
	case 'c':
		if (len >= 3 && key[1] == 'p' && key[2] == 'u')
			return parse_cpu_line(scan, ctx, key, len);
		if (KEY_IS(key, len, "ctxt"))
			return parse_value(scan, ctx, &st->ctxt, PW_PROCSTAT_HAS_CTXT);
		break;
	case 'i':
		/* Only the total; the per-IRQ counts that follow are skipped with the line, and the
		 * caller that wants them gets the line's place instead of searching for it again. */
		if (KEY_IS(key, len, "intr")) {
			ctx->intr_line = key;
			return parse_value(scan, ctx, &st->intr_total, PW_PROCSTAT_HAS_INTR);
		}
		break;
	case 'b':
		if (KEY_IS(key, len, "btime"))
			return parse_value(scan, ctx, &st->btime, PW_PROCSTAT_HAS_BTIME);
		break;
	case 'p':
		if (KEY_IS(key, len, "processes"))
			return parse_value(scan, ctx, &st->processes, PW_PROCSTAT_HAS_PROCESSES);
		if (KEY_IS(key, len, "procs_running"))
			return parse_value(scan, ctx, &st->procs_running, PW_PROCSTAT_HAS_PROCS_RUNNING);
		if (KEY_IS(key, len, "procs_blocked"))
			return parse_value(scan, ctx, &st->procs_blocked, PW_PROCSTAT_HAS_PROCS_BLOCKED);
		break;
	case 's':
		if (KEY_IS(key, len, "softirq"))
			return parse_value(scan, ctx, &st->softirq_total, PW_PROCSTAT_HAS_SOFTIRQ);
		break;
	}
	return 0;
}

/* The kernel prints every cpuN line with as many columns as the cpu line; a shorter one is a torn read. */
static bool columns_agree(const struct stat_ctx *ctx)
{
	for (uint32_t i = 0; i < ctx->cpu_cap; i++) {
		if (ctx->cpus[i].present && ctx->cpus[i].nmodes != ctx->st.total.nmodes)
			return false;
	}
	return true;
}

int pw_procstat_parse(const char *buf, size_t len, struct pw_cpu_times *cpus, uint32_t cpu_cap,
                      struct pw_procstat *ret, size_t *ret_intr_off)
{
	struct stat_ctx ctx = {.cpus = cpus, .cpu_cap = cpu_cap};
	struct pw_scan scan;

	if (cpu_cap > 0)
		memset(cpus, 0, cpu_cap * sizeof(*cpus));
	pw_scan_init(&scan, buf, len);
	while (!pw_scan_eof(&scan)) {
		const char *key;
		size_t key_len;

		if (pw_scan_token(&scan, &key, &key_len) == 0) {
			int r = parse_key(&scan, &ctx, key, key_len);
			if (r < 0)
				return r;
		}
		pw_scan_next_line(&scan);
	}
	if (!(ctx.st.present & PW_PROCSTAT_HAS_CPU) || !columns_agree(&ctx))
		return -EINVAL;
	*ret = ctx.st;
	if (ret_intr_off)
		*ret_intr_off = ctx.intr_line ? (size_t)(ctx.intr_line - buf) : len;
	return ctx.cap_exceeded ? -ENOBUFS : 0;
}

/* The "intr" line, or -EINVAL. */
static int find_intr_line(struct pw_scan *scan)
{
	const char *key;
	size_t len;

	for (; !pw_scan_eof(scan); pw_scan_next_line(scan)) {
		if (pw_scan_token(scan, &key, &len) == 0 && KEY_IS(key, len, "intr"))
			return 0;
	}
	return -EINVAL;
}

int pw_procstat_parse_irqs(const char *buf, size_t len, uint64_t *counts, uint32_t cap)
{
	struct pw_scan scan;
	uint64_t total, value;
	uint32_t n = 0;
	int r;

	pw_scan_init(&scan, buf, len);
	if (find_intr_line(&scan) < 0)
		return -EINVAL;
	if ((r = pw_scan_u64(&scan, &total)) < 0)
		return r;
	while (!pw_scan_at_eol(&scan)) {
		if ((r = pw_scan_u64(&scan, &value)) < 0)
			return r;
		if (n < cap)
			counts[n] = value;
		if (n == INT32_MAX)
			return -ERANGE;
		n++;
	}
	return (int)n;
}
