/* history_signals.c — the history signal table and its accessors into history points. */
#include "history_signals.h"

#include "detector.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHARE 1e-4 /* the point's shares and ratios: 1/10000 */
#define RATE 0.01  /* float rates: what /history prints */

static const struct pw_history_signal_def defs[PW_HS_COUNT] = {
        [PW_HS_CPU_USER] = {"cpu_user_ratio", "cpu", "ratio", PW_SCOPE_HOST, SHARE, 4, PW_SIG_USER},
        [PW_HS_CPU_SYSTEM] = {"cpu_system_ratio", "cpu", "ratio", PW_SCOPE_HOST, SHARE, 4, PW_SIG_SYSTEM},
        [PW_HS_CPU_IOWAIT] = {"cpu_iowait_ratio", "cpu", "ratio", PW_SCOPE_HOST, SHARE, 4, PW_SIG_IOWAIT},
        [PW_HS_CPU_IRQ] = {"cpu_irq_ratio", "cpu", "ratio", PW_SCOPE_HOST, SHARE, 4, PW_SIG_IRQ},
        [PW_HS_CPU_HARDIRQ] = {"cpu_hardirq_ratio", "cpu", "ratio", PW_SCOPE_HOST, SHARE, 4, -1},
        [PW_HS_CPU_SOFTIRQ] = {"cpu_softirq_ratio", "cpu", "ratio", PW_SCOPE_HOST, SHARE, 4, -1},
        [PW_HS_CPU_STEAL] = {"cpu_steal_ratio", "cpu", "ratio", PW_SCOPE_HOST, SHARE, 4, PW_SIG_STEAL},
        [PW_HS_CPU_IDLE] = {"cpu_idle_ratio", "cpu", "ratio", PW_SCOPE_HOST, SHARE, 4, -1},
        [PW_HS_BUSY_CPUS] = {"busy_cpus", "cpu", "count", PW_SCOPE_HOST, 1, 2, -1},
        [PW_HS_RUN_QUEUE] = {"run_queue", "scheduler", "count", PW_SCOPE_HOST, 1, 2, PW_SIG_RUN_QUEUE},
        [PW_HS_INTR] = {"interrupts_per_second", "interrupts", "per_second", PW_SCOPE_HOST, RATE, 2,
                        PW_SIG_INTR_RATE},
        [PW_HS_LINE] = {"interrupt_line_per_second", "interrupts", "per_second", PW_SCOPE_LINE, RATE, 2, -1},
        [PW_HS_SOFTIRQS] = {"softirqs_per_second", "softirqs", "per_second", PW_SCOPE_HOST, RATE, 2, -1},
        [PW_HS_SOFTIRQ_TYPE] = {"softirq_type_per_second", "softirqs", "per_second", PW_SCOPE_SOFTIRQ, RATE,
                                2, -1},
        [PW_HS_CTXT] = {"context_switches_per_second", "scheduler", "per_second", PW_SCOPE_HOST, RATE, 2,
                        PW_SIG_CTXT_RATE},
        [PW_HS_SWAP_IN] = {"swap_in_pages_per_second", "memory", "pages_per_second", PW_SCOPE_HOST, RATE, 2,
                           PW_SIG_SWAP_IN},
        [PW_HS_SWAP_OUT] = {"swap_out_pages_per_second", "memory", "pages_per_second", PW_SCOPE_HOST, RATE, 2,
                            PW_SIG_SWAP_OUT},
        [PW_HS_MAJOR_FAULTS] = {"major_faults_per_second", "memory", "per_second", PW_SCOPE_HOST, RATE, 2,
                                PW_SIG_MAJOR_FAULTS},
        [PW_HS_MEM_AVAILABLE] = {"memory_available_bytes", "memory", "bytes", PW_SCOPE_HOST, 1024, 0, -1},
        [PW_HS_PAGE_CACHE] = {"page_cache_bytes", "memory", "bytes", PW_SCOPE_HOST, 1024, 0, -1},
        [PW_HS_PSI_CPU] = {"pressure_cpu_some_percent", "pressure", "percent", PW_SCOPE_HOST, 0.01, 2,
                           PW_SIG_PSI_CPU},
        [PW_HS_PSI_MEMORY] = {"pressure_memory_some_percent", "pressure", "percent", PW_SCOPE_HOST, 0.01, 2,
                              PW_SIG_PSI_MEMORY},
        [PW_HS_PSI_IO] = {"pressure_io_some_percent", "pressure", "percent", PW_SCOPE_HOST, 0.01, 2,
                          PW_SIG_PSI_IO},
        [PW_HS_PSI_IRQ] = {"pressure_irq_some_percent", "pressure", "percent", PW_SCOPE_HOST, 0.01, 2, -1},
        [PW_HS_PERCPU_BUSY] = {"percpu_busy_ratio", "per_cpu", "ratio", PW_SCOPE_CPU, SHARE, 4, -1},
        [PW_HS_PERCPU_USER] = {"percpu_user_ratio", "per_cpu", "ratio", PW_SCOPE_CPU, SHARE, 4, -1},
        [PW_HS_PERCPU_SYSTEM] = {"percpu_system_ratio", "per_cpu", "ratio", PW_SCOPE_CPU, SHARE, 4, -1},
        [PW_HS_PERCPU_IRQ] = {"percpu_irq_ratio", "per_cpu", "ratio", PW_SCOPE_CPU, SHARE, 4, -1},
        [PW_HS_PERCPU_IOWAIT] = {"percpu_iowait_ratio", "per_cpu", "ratio", PW_SCOPE_CPU, SHARE, 4, -1},
        [PW_HS_PERCPU_FREQ] = {"percpu_frequency_hertz", "frequency", "hertz", PW_SCOPE_CPU, 1e6, 0, -1},
        [PW_HS_PERCPU_FREQ_RATIO] = {"percpu_frequency_ratio", "frequency", "ratio", PW_SCOPE_CPU, SHARE, 4,
                                     -1},
};

_Static_assert(PW_HS_COUNT <= 64, "/history selects signals as a 64-bit set");

const struct pw_history_signal_def *pw_history_signal_def(enum pw_history_signal signal)
{
	return (unsigned)signal < PW_HS_COUNT ? &defs[signal] : NULL;
}

const char *pw_history_signal_name(enum pw_history_signal signal)
{
	return (unsigned)signal < PW_HS_COUNT ? defs[signal].name : NULL;
}

int pw_history_signal_parse(const char *name, size_t len)
{
	for (int i = 0; i < PW_HS_COUNT; i++)
		if (strlen(defs[i].name) == len && memcmp(defs[i].name, name, len) == 0)
			return i;
	return -1;
}

/* ---- reading a point ---- */

static double share(uint16_t v)
{
	return v == PW_HISTORY_UNKNOWN ? NAN : v / 10000.0;
}

static double share2(uint16_t a, uint16_t b)
{
	return a == PW_HISTORY_UNKNOWN || b == PW_HISTORY_UNKNOWN ? NAN : (a + b) / 10000.0;
}

static double kb_bytes(uint64_t kb)
{
	return kb == UINT64_MAX ? NAN : (double)kb * 1024.0;
}

static int line_slot(const struct pw_history_point *p, const char *irq)
{
	for (int k = 0; k < PW_HISTORY_LINES; k++)
		if (p->lines[k].irq[0] && strncmp(p->lines[k].irq, irq, PW_IRQ_NAME_MAX) == 0)
			return k;
	return -1;
}

static double percpu_get(const struct pw_history_series *se, const struct pw_history_point *p)
{
	if (se->inst >= p->ncpu)
		return NAN;
	const struct pw_history_cpu *c = &p->cpus[se->inst];
	switch (se->signal) {
	case PW_HS_PERCPU_BUSY:
		return share(c->busy);
	case PW_HS_PERCPU_USER:
		return share(c->user);
	case PW_HS_PERCPU_SYSTEM:
		return share(c->system);
	case PW_HS_PERCPU_IRQ:
		return share(c->irq);
	case PW_HS_PERCPU_IOWAIT:
		return share(c->iowait);
	case PW_HS_PERCPU_FREQ:
		return c->avg_mhz ? c->avg_mhz * 1e6 : NAN;
	default:
		return share(c->freq_ratio);
	}
}

double pw_history_series_get(const struct pw_history_series *se, const struct pw_history_point *p)
{
	const uint16_t *sh = p->share;
	int k;

	switch (se->signal) {
	case PW_HS_CPU_USER:
		return share2(sh[PW_MODE_USER], sh[PW_MODE_NICE]);
	case PW_HS_CPU_SYSTEM:
		return share(sh[PW_MODE_SYSTEM]);
	case PW_HS_CPU_IOWAIT:
		return share(sh[PW_MODE_IOWAIT]);
	case PW_HS_CPU_IRQ:
		return share2(sh[PW_MODE_IRQ], sh[PW_MODE_SOFTIRQ]);
	case PW_HS_CPU_HARDIRQ:
		return share(sh[PW_MODE_IRQ]);
	case PW_HS_CPU_SOFTIRQ:
		return share(sh[PW_MODE_SOFTIRQ]);
	case PW_HS_CPU_STEAL:
		return share(sh[PW_MODE_STEAL]);
	case PW_HS_CPU_IDLE:
		return share(sh[PW_MODE_IDLE]);
	case PW_HS_BUSY_CPUS:
		return sh[PW_MODE_IDLE] == PW_HISTORY_UNKNOWN ? NAN : p->busy_cpus;
	case PW_HS_RUN_QUEUE:
		return p->procs_running == UINT32_MAX ? NAN : p->procs_running;
	case PW_HS_INTR:
		return p->intr_rate;
	case PW_HS_LINE:
		return (k = line_slot(p, se->irq)) < 0 ? NAN : p->lines[k].rate;
	case PW_HS_SOFTIRQS:
		return p->softirq_rate;
	case PW_HS_SOFTIRQ_TYPE:
		return se->inst < PW_SOFTIRQ_COUNT ? p->softirq_type_rate[se->inst] : NAN;
	case PW_HS_CTXT:
		return p->ctxt_rate;
	case PW_HS_SWAP_IN:
		return p->swap_in_rate;
	case PW_HS_SWAP_OUT:
		return p->swap_out_rate;
	case PW_HS_MAJOR_FAULTS:
		return p->major_fault_rate;
	case PW_HS_MEM_AVAILABLE:
		return kb_bytes(p->mem_available_kb);
	case PW_HS_PAGE_CACHE:
		return kb_bytes(p->cached_kb);
	case PW_HS_PSI_CPU:
	case PW_HS_PSI_MEMORY:
	case PW_HS_PSI_IO:
	case PW_HS_PSI_IRQ: {
		uint16_t v = p->psi_some_stall[se->signal - PW_HS_PSI_CPU];
		return v == PW_HISTORY_UNKNOWN ? NAN : v / 100.0;
	}
	case PW_HS_COUNT:
		return NAN;
	default:
		return percpu_get(se, p);
	}
}

void pw_history_reader_init(struct pw_history_reader *r, const struct pw_history_series *se)
{
	static const struct {
		enum pw_history_read_kind kind;
		uint32_t offset, offset2;
		double div;
	} host[PW_HS_COUNT] = {
#define SHARE_AT(m) PW_READ_U16, offsetof(struct pw_history_point, share) + 2 * (m), 0, 10000.0
#define F32_AT(field) PW_READ_F32, offsetof(struct pw_history_point, field), 0, 1.0
	        [PW_HS_CPU_USER] = {PW_READ_U16_PAIR,
	                            offsetof(struct pw_history_point, share) + 2 * PW_MODE_USER,
	                            offsetof(struct pw_history_point, share) + 2 * PW_MODE_NICE, 10000.0},
	        [PW_HS_CPU_SYSTEM] = {SHARE_AT(PW_MODE_SYSTEM)},
	        [PW_HS_CPU_IOWAIT] = {SHARE_AT(PW_MODE_IOWAIT)},
	        [PW_HS_CPU_IRQ] = {PW_READ_U16_PAIR,
	                           offsetof(struct pw_history_point, share) + 2 * PW_MODE_IRQ,
	                           offsetof(struct pw_history_point, share) + 2 * PW_MODE_SOFTIRQ, 10000.0},
	        [PW_HS_CPU_HARDIRQ] = {SHARE_AT(PW_MODE_IRQ)},
	        [PW_HS_CPU_SOFTIRQ] = {SHARE_AT(PW_MODE_SOFTIRQ)},
	        [PW_HS_CPU_STEAL] = {SHARE_AT(PW_MODE_STEAL)},
	        [PW_HS_CPU_IDLE] = {SHARE_AT(PW_MODE_IDLE)},
	        [PW_HS_INTR] = {F32_AT(intr_rate)},
	        [PW_HS_SOFTIRQS] = {F32_AT(softirq_rate)},
	        [PW_HS_CTXT] = {F32_AT(ctxt_rate)},
	        [PW_HS_SWAP_IN] = {F32_AT(swap_in_rate)},
	        [PW_HS_SWAP_OUT] = {F32_AT(swap_out_rate)},
	        [PW_HS_MAJOR_FAULTS] = {F32_AT(major_fault_rate)},
#undef SHARE_AT
#undef F32_AT
	};
	static const uint32_t per_cpu[PW_HS_COUNT] = {
	        [PW_HS_PERCPU_BUSY] = offsetof(struct pw_history_cpu, busy) + 1,
	        [PW_HS_PERCPU_USER] = offsetof(struct pw_history_cpu, user) + 1,
	        [PW_HS_PERCPU_SYSTEM] = offsetof(struct pw_history_cpu, system) + 1,
	        [PW_HS_PERCPU_IRQ] = offsetof(struct pw_history_cpu, irq) + 1,
	        [PW_HS_PERCPU_IOWAIT] = offsetof(struct pw_history_cpu, iowait) + 1,
	        [PW_HS_PERCPU_FREQ_RATIO] = offsetof(struct pw_history_cpu, freq_ratio) + 1,
	}; /* + 1: 0 is "not a share of a CPU" */
	enum pw_history_signal sig = se->signal;

	*r = (struct pw_history_reader){.series = se, .kind = PW_READ_ANY};
	if ((unsigned)sig >= PW_HS_COUNT)
		return;
	if (host[sig].kind != PW_READ_ANY) {
		r->kind = host[sig].kind;
		r->offset = host[sig].offset;
		r->offset2 = host[sig].offset2;
		r->div = host[sig].div;
	} else if (sig >= PW_HS_PSI_CPU && sig <= PW_HS_PSI_IRQ) {
		r->kind = PW_READ_U16;
		r->offset = (uint32_t)(offsetof(struct pw_history_point, psi_some_stall) +
		                       2 * (sig - PW_HS_PSI_CPU));
		r->div = 100.0;
	} else if (sig == PW_HS_SOFTIRQ_TYPE && se->inst < PW_SOFTIRQ_COUNT) {
		r->kind = PW_READ_F32;
		r->offset = (uint32_t)(offsetof(struct pw_history_point, softirq_type_rate) + 4 * se->inst);
	} else if (per_cpu[sig]) {
		r->kind = PW_READ_CPU_U16;
		r->offset = per_cpu[sig] - 1;
		r->cpu = se->inst;
		r->div = 10000.0;
	}
}

/* ---- writing a point ---- */

static uint16_t to_fixed(double v, double scale)
{
	if (!isfinite(v) || v < 0)
		return PW_HISTORY_UNKNOWN;
	double n = nearbyint(v * scale);
	return n >= PW_HISTORY_UNKNOWN ? PW_HISTORY_UNKNOWN - 1 : (uint16_t)n;
}

static float to_rate(double v)
{
	return isfinite(v) ? (float)v : NAN;
}

/* user and irq are kept as two modes: the sum goes into the first, the second is set to 0 when
 * unknown so the sum reads back; the hardirq/softirq split comes from their own signals. */
static void set_mode_sum(uint16_t *sh, int first, int second, double v)
{
	uint16_t sum = to_fixed(v, 10000.0);
	if (sum == PW_HISTORY_UNKNOWN)
		return;
	if (sh[second] == PW_HISTORY_UNKNOWN)
		sh[second] = 0;
	sh[first] = sum >= sh[second] ? (uint16_t)(sum - sh[second]) : 0;
}

static int percpu_set(const struct pw_history_series *se, struct pw_history_point *p, uint32_t cpu_cap,
                      double v)
{
	if (se->inst >= cpu_cap || se->inst >= UINT16_MAX)
		return -ENOBUFS;
	struct pw_history_cpu *c = &p->cpus[se->inst];
	if (p->ncpu <= se->inst) {
		for (uint32_t i = p->ncpu; i <= se->inst; i++)
			p->cpus[i] = (struct pw_history_cpu){PW_HISTORY_UNKNOWN,
			                                     PW_HISTORY_UNKNOWN,
			                                     PW_HISTORY_UNKNOWN,
			                                     PW_HISTORY_UNKNOWN,
			                                     PW_HISTORY_UNKNOWN,
			                                     PW_HISTORY_UNKNOWN,
			                                     0};
		p->ncpu = (uint16_t)(se->inst + 1);
	}
	switch (se->signal) {
	case PW_HS_PERCPU_BUSY:
		c->busy = to_fixed(v, 10000.0);
		break;
	case PW_HS_PERCPU_USER:
		c->user = to_fixed(v, 10000.0);
		break;
	case PW_HS_PERCPU_SYSTEM:
		c->system = to_fixed(v, 10000.0);
		break;
	case PW_HS_PERCPU_IRQ:
		c->irq = to_fixed(v, 10000.0);
		break;
	case PW_HS_PERCPU_IOWAIT:
		c->iowait = to_fixed(v, 10000.0);
		break;
	case PW_HS_PERCPU_FREQ:
		c->avg_mhz = isfinite(v) && v > 0 && v / 1e6 < UINT16_MAX ? (uint16_t)nearbyint(v / 1e6) : 0;
		break;
	default:
		c->freq_ratio = to_fixed(v, 10000.0);
		break;
	}
	return 0;
}

static int line_set(const struct pw_history_series *se, struct pw_history_point *p, double v)
{
	int k = line_slot(p, se->irq);
	for (int i = 0; k < 0 && i < PW_HISTORY_LINES; i++)
		if (!p->lines[i].irq[0])
			k = i;
	if (k < 0)
		return -ENOBUFS;
	memcpy(p->lines[k].irq, se->irq, PW_IRQ_NAME_MAX);
	p->lines[k].irq[PW_IRQ_NAME_MAX - 1] = '\0';
	p->lines[k].rate = to_rate(v);
	return 0;
}

int pw_history_series_set(const struct pw_history_series *se, struct pw_history_point *p, uint32_t cpu_cap,
                          double v)
{
	uint16_t *sh = p->share;

	switch (se->signal) {
	case PW_HS_CPU_USER:
		set_mode_sum(sh, PW_MODE_USER, PW_MODE_NICE, v);
		break;
	case PW_HS_CPU_SYSTEM:
		sh[PW_MODE_SYSTEM] = to_fixed(v, 10000.0);
		break;
	case PW_HS_CPU_IOWAIT:
		sh[PW_MODE_IOWAIT] = to_fixed(v, 10000.0);
		break;
	case PW_HS_CPU_IRQ:
		/* Only when the split is not known: the two modes carry it otherwise. */
		if (sh[PW_MODE_IRQ] == PW_HISTORY_UNKNOWN || sh[PW_MODE_SOFTIRQ] == PW_HISTORY_UNKNOWN)
			set_mode_sum(sh, PW_MODE_IRQ, PW_MODE_SOFTIRQ, v);
		break;
	case PW_HS_CPU_HARDIRQ:
		sh[PW_MODE_IRQ] = to_fixed(v, 10000.0);
		break;
	case PW_HS_CPU_SOFTIRQ:
		sh[PW_MODE_SOFTIRQ] = to_fixed(v, 10000.0);
		break;
	case PW_HS_CPU_STEAL:
		sh[PW_MODE_STEAL] = to_fixed(v, 10000.0);
		break;
	case PW_HS_CPU_IDLE:
		sh[PW_MODE_IDLE] = to_fixed(v, 10000.0);
		break;
	case PW_HS_BUSY_CPUS:
		p->busy_cpus = isfinite(v) && v >= 0 && v < UINT16_MAX ? (uint16_t)nearbyint(v) : 0;
		break;
	case PW_HS_RUN_QUEUE:
		p->procs_running =
		        isfinite(v) && v >= 0 && v < UINT32_MAX ? (uint32_t)nearbyint(v) : UINT32_MAX;
		break;
	case PW_HS_INTR:
		p->intr_rate = to_rate(v);
		break;
	case PW_HS_LINE:
		return line_set(se, p, v);
	case PW_HS_SOFTIRQS:
		p->softirq_rate = to_rate(v);
		break;
	case PW_HS_SOFTIRQ_TYPE:
		if (se->inst >= PW_SOFTIRQ_COUNT)
			return -ENOBUFS;
		p->softirq_type_rate[se->inst] = to_rate(v);
		break;
	case PW_HS_CTXT:
		p->ctxt_rate = to_rate(v);
		break;
	case PW_HS_SWAP_IN:
		p->swap_in_rate = to_rate(v);
		break;
	case PW_HS_SWAP_OUT:
		p->swap_out_rate = to_rate(v);
		break;
	case PW_HS_MAJOR_FAULTS:
		p->major_fault_rate = to_rate(v);
		break;
	case PW_HS_MEM_AVAILABLE:
	case PW_HS_PAGE_CACHE: {
		uint64_t kb =
		        isfinite(v) && v >= 0 && v < 1e19 ? (uint64_t)nearbyint(v / 1024.0) : UINT64_MAX;
		*(se->signal == PW_HS_MEM_AVAILABLE ? &p->mem_available_kb : &p->cached_kb) = kb;
		break;
	}
	case PW_HS_PSI_CPU:
	case PW_HS_PSI_MEMORY:
	case PW_HS_PSI_IO:
	case PW_HS_PSI_IRQ:
		p->psi_some_stall[se->signal - PW_HS_PSI_CPU] = to_fixed(v, 100.0);
		break;
	case PW_HS_COUNT:
		return -ENOBUFS;
	default:
		return percpu_set(se, p, cpu_cap, v);
	}
	return 0;
}

void pw_history_point_unknown(struct pw_history_point *p, uint32_t cpu_cap, int64_t real_ns)
{
	memset(p, 0, pw_history_point_size(cpu_cap));
	p->real_ns = real_ns;
	for (int m = 0; m < PW_MODE_GUEST; m++)
		p->share[m] = PW_HISTORY_UNKNOWN;
	for (int r = 0; r < PW_PSI_COUNT; r++)
		p->psi_some_stall[r] = PW_HISTORY_UNKNOWN;
	p->intr_rate = p->ctxt_rate = p->softirq_rate = NAN;
	p->swap_in_rate = p->swap_out_rate = p->major_fault_rate = NAN;
	p->mem_available_kb = p->cached_kb = UINT64_MAX;
	p->procs_running = UINT32_MAX;
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
		p->softirq_type_rate[t] = NAN;
	for (int k = 0; k < PW_HISTORY_LINES; k++)
		p->lines[k].rate = NAN;
}

/* ---- labels ---- */

void pw_history_series_label(const struct pw_history_series *se, char *buf, size_t size)
{
	switch (defs[se->signal].scope) {
	case PW_SCOPE_CPU:
		snprintf(buf, size, "%u", se->inst);
		break;
	case PW_SCOPE_SOFTIRQ:
		snprintf(buf, size, "%s", pw_softirq_name(se->inst));
		break;
	case PW_SCOPE_LINE:
		snprintf(buf, size, "%.*s", PW_IRQ_NAME_MAX, se->irq);
		break;
	default:
		if (size)
			buf[0] = '\0';
	}
}

int pw_history_series_from_label(enum pw_history_signal signal, const char *label, size_t len,
                                 struct pw_history_series *ret)
{
	struct pw_history_series se = {.signal = signal};

	if ((unsigned)signal >= PW_HS_COUNT)
		return -EINVAL;
	switch (defs[signal].scope) {
	case PW_SCOPE_HOST:
		if (len)
			return -EINVAL;
		break;
	case PW_SCOPE_CPU:
		if (len == 0 || len > 5)
			return -EINVAL;
		for (size_t i = 0; i < len; i++) {
			if (label[i] < '0' || label[i] > '9')
				return -EINVAL;
			se.inst = se.inst * 10 + (uint32_t)(label[i] - '0');
		}
		break;
	case PW_SCOPE_SOFTIRQ:
		se.inst = PW_SOFTIRQ_COUNT;
		for (uint32_t t = 0; t < PW_SOFTIRQ_COUNT; t++)
			if (strlen(pw_softirq_name(t)) == len && memcmp(pw_softirq_name(t), label, len) == 0)
				se.inst = t;
		if (se.inst == PW_SOFTIRQ_COUNT)
			return -EINVAL;
		break;
	case PW_SCOPE_LINE:
		if (len == 0 || len >= PW_IRQ_NAME_MAX || memchr(label, '\0', len))
			return -EINVAL;
		memcpy(se.irq, label, len);
		break;
	}
	*ret = se;
	return 0;
}
