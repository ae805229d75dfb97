/* detector_state.c — the detector's learned baselines to and from bytes, so a restarted daemon
 * carries on where it stopped instead of relearning for the warmup time. Pure: no I/O.
 *
 * Format (all integers little-endian; a double is stored as the little-endian u64 of its bits):
 *
 *   header  32 bytes: "PWBL", u32 version (2), u32 cpu_cap, u32 line_cap, u64 payload bytes,
 *           u64 FNV-1a-64 over header bytes 0..23 then the payload
 *   payload i64 learned_ns (last - first sample time when saved: what warmup has counted),
 *           baseline host[PW_SIG_COUNT], softirq[PW_SOFTIRQ_COUNT],
 *           cpu_irq[cpu_cap], cpu_system[cpu_cap], cpu_irq_cost[cpu_cap], host_irq_cost,
 *           cpu_events[cpu_cap][1 + PW_SOFTIRQ_COUNT] (hardirqs, then each softirq type, per second),
 *           line[line_cap] = {char irq[PW_IRQ_NAME_MAX] NUL-padded, baseline, u8 used}
 *   baseline = {double mean, var, learned_s}
 *
 * The payload length must be exactly what the capacities imply, learned_ns at most a century, every
 * baseline finite with var and learned_s >= 0, every irq name NUL-terminated: anything else is corrupt. Alert
 * state is not saved: alerts restart inactive, and a still-ongoing incident goes through its pending time
 * again. */
#include "detector_internal.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#define STATE_MAGIC "PWBL"
#define STATE_VERSION 2u
#define LEARNED_MAX_NS (INT64_C(100) * 365 * 24 * 3600 * 1000000000) /* a century */
#define HEADER_SIZE 32
#define SUMMED_HEADER 24 /* the header bytes before the checksum */
#define BASELINE_SIZE 24
#define LINE_SIZE (PW_IRQ_NAME_MAX + BASELINE_SIZE + 1)
#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

struct header {
	uint32_t cpu_cap, line_cap;
	uint64_t payload;
};

static uint64_t payload_size(uint32_t cpu_cap, uint32_t line_cap)
{
	return 8 + (uint64_t)(PW_SIG_COUNT + PW_SOFTIRQ_COUNT + 1) * BASELINE_SIZE +
	       (3 + PW_CPU_EVENT_KINDS) * (uint64_t)cpu_cap * BASELINE_SIZE + (uint64_t)line_cap * LINE_SIZE;
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return h;
}

static uint64_t checksum(const unsigned char *file, size_t payload)
{
	return fnv1a(fnv1a(FNV_OFFSET, file, SUMMED_HEADER), file + HEADER_SIZE, payload);
}

/* ---- writing ---- */

struct out {
	unsigned char *p;
	size_t off;
};

static void put_u64(struct out *o, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		o->p[o->off++] = (unsigned char)(v >> (8 * i));
}

static void put_u32(struct out *o, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		o->p[o->off++] = (unsigned char)(v >> (8 * i));
}

static void put_double(struct out *o, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	put_u64(o, bits);
}

static void put_baselines(struct out *o, const struct pw_baseline *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		put_double(o, b[i].mean);
		put_double(o, b[i].var);
		put_double(o, b[i].learned_s);
	}
}

static void put_line(struct out *o, const struct pw_line_baseline *line)
{
	size_t name = strnlen(line->irq, PW_IRQ_NAME_MAX - 1);

	memset(o->p + o->off, 0, PW_IRQ_NAME_MAX);
	memcpy(o->p + o->off, line->irq, name);
	o->off += PW_IRQ_NAME_MAX;
	put_baselines(o, &line->rate, 1);
	o->p[o->off++] = line->used ? 1 : 0;
}

size_t pw_detector_state_size(const struct pw_detector *d)
{
	return HEADER_SIZE + (size_t)payload_size(d->cpu_cap, d->line_cap);
}

int pw_detector_state_save(const struct pw_detector *d, void *buf, size_t len)
{
	size_t need = pw_detector_state_size(d);
	struct out o = {buf, 0};
	int64_t learned_ns =
	        d->learned_before_ns + (d->first_mono_ns ? d->last_mono_ns - d->first_mono_ns : 0);

	if (len < need || need > INT_MAX)
		return -ENOBUFS;
	memcpy(o.p, STATE_MAGIC, 4);
	o.off = 4;
	put_u32(&o, STATE_VERSION);
	put_u32(&o, d->cpu_cap);
	put_u32(&o, d->line_cap);
	put_u64(&o, need - HEADER_SIZE);
	put_u64(&o, 0); /* the checksum, once the payload is there */
	put_u64(&o, (uint64_t)learned_ns);
	put_baselines(&o, d->host, PW_SIG_COUNT);
	put_baselines(&o, d->softirq, PW_SOFTIRQ_COUNT);
	put_baselines(&o, d->cpu_irq, d->cpu_cap);
	put_baselines(&o, d->cpu_system, d->cpu_cap);
	put_baselines(&o, d->cpu_irq_cost, d->cpu_cap);
	put_baselines(&o, &d->host_irq_cost, 1);
	put_baselines(&o, d->cpu_events, d->cpu_cap * PW_CPU_EVENT_KINDS);
	for (uint32_t i = 0; i < d->line_cap; i++)
		put_line(&o, &d->lines[i]);
	o.off = SUMMED_HEADER;
	put_u64(&o, checksum(buf, need - HEADER_SIZE));
	return (int)need;
}

/* ---- reading ---- */

struct in {
	const unsigned char *p;
	size_t off;
};

static uint64_t get_u64(struct in *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)in->p[in->off++] << (8 * i);
	return v;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static double get_double(struct in *in)
{
	uint64_t bits = get_u64(in);
	double v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

static bool get_baseline(struct in *in, struct pw_baseline *ret)
{
	ret->mean = get_double(in);
	ret->var = get_double(in);
	ret->learned_s = get_double(in);
	return isfinite(ret->mean) && isfinite(ret->var) && ret->var >= 0 && isfinite(ret->learned_s) &&
	       ret->learned_s >= 0;
}

/* Read n baselines; store the first `fit` into dst (NULL: only check), zero dst[n..fit). */
static bool take(struct in *in, struct pw_baseline *dst, uint32_t n, uint32_t fit)
{
	struct pw_baseline b;
	bool ok = true;

	for (uint32_t i = 0; i < n; i++) {
		ok = get_baseline(in, &b) && ok;
		if (dst && i < fit)
			dst[i] = b;
	}
	for (uint32_t i = n; dst && i < fit; i++)
		memset(&dst[i], 0, sizeof(dst[i]));
	return ok;
}

static bool take_line(struct in *in, struct pw_line_baseline *dst)
{
	const char *name = (const char *)in->p + in->off;
	bool ok = memchr(name, '\0', PW_IRQ_NAME_MAX) != NULL;
	struct pw_line_baseline line;

	memcpy(line.irq, name, PW_IRQ_NAME_MAX);
	in->off += PW_IRQ_NAME_MAX;
	ok = get_baseline(in, &line.rate) && ok;
	ok = ok && in->p[in->off] <= 1;
	line.used = in->p[in->off++] == 1;
	if (dst)
		*dst = line;
	return ok;
}

/* Walk the payload; with d NULL only check it, else store it (it was checked). */
static bool walk(const unsigned char *payload, const struct header *h, struct pw_detector *d)
{
	struct in in = {payload, 0};
	int64_t learned_ns = (int64_t)get_u64(&in);
	uint32_t cpus = d ? d->cpu_cap : 0;
	bool ok = learned_ns >= 0 && learned_ns <= LEARNED_MAX_NS;

	ok = take(&in, d ? d->host : NULL, PW_SIG_COUNT, PW_SIG_COUNT) && ok;
	ok = take(&in, d ? d->softirq : NULL, PW_SOFTIRQ_COUNT, PW_SOFTIRQ_COUNT) && ok;
	ok = take(&in, d ? d->cpu_irq : NULL, h->cpu_cap, cpus) && ok;
	ok = take(&in, d ? d->cpu_system : NULL, h->cpu_cap, cpus) && ok;
	ok = take(&in, d ? d->cpu_irq_cost : NULL, h->cpu_cap, cpus) && ok;
	ok = take(&in, d ? &d->host_irq_cost : NULL, 1, 1) && ok;
	for (uint32_t i = 0; i < h->cpu_cap; i++)
		ok = take(&in, d && i < cpus ? pw_cpu_event_baseline(d, i, 0) : NULL, PW_CPU_EVENT_KINDS,
		          PW_CPU_EVENT_KINDS) &&
		     ok;
	for (uint32_t i = h->cpu_cap; d && i < cpus; i++)
		memset(pw_cpu_event_baseline(d, i, 0), 0, PW_CPU_EVENT_KINDS * sizeof(struct pw_baseline));
	for (uint32_t i = 0; i < h->line_cap; i++)
		ok = take_line(&in, d && i < d->line_cap ? &d->lines[i] : NULL) && ok;
	if (!d)
		return ok;
	for (uint32_t i = h->line_cap; i < d->line_cap; i++)
		memset(&d->lines[i], 0, sizeof(d->lines[i]));
	/* What was learned before the restart counts toward the warmup, on top of this run's. */
	d->learned_before_ns = learned_ns;
	return true;
}

static int read_header(const unsigned char *p, size_t len, struct header *ret)
{
	if (len < HEADER_SIZE)
		return -EINVAL;
	if (memcmp(p, STATE_MAGIC, 4) != 0 || le32(p + 4) != STATE_VERSION)
		return -EPROTO;
	struct in in = {p, 16};
	ret->cpu_cap = le32(p + 8);
	ret->line_cap = le32(p + 12);
	ret->payload = get_u64(&in);
	uint64_t sum = get_u64(&in);
	if (ret->payload != len - HEADER_SIZE || ret->payload != payload_size(ret->cpu_cap, ret->line_cap))
		return -EINVAL;
	return checksum(p, len - HEADER_SIZE) == sum ? 0 : -EINVAL;
}

int pw_detector_state_load(struct pw_detector *d, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	struct header h;
	int r = read_header(p, len, &h);

	if (r < 0)
		return r;
	if (!walk(p + HEADER_SIZE, &h, NULL))
		return -EINVAL;
	walk(p + HEADER_SIZE, &h, d);
	return h.cpu_cap != d->cpu_cap || h.line_cap != d->line_cap ? -ERANGE : 0;
}
