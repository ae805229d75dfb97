/* probes.c — what each active alert gets looked up, the small sysfs/procfs reads (governor
 * tunables, IRQ affinity), and the findings copied into the alerts. The process scan and the disk
 * deltas are in probe_procs.c and probe_disks.c. */
#define _GNU_SOURCE
#include "probes_internal.h"

#include "cpufreq.h"
#include "scan.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPU_DIR "devices/system/cpu"

struct pw_probes *pw_probes_new(const struct pw_probes_config *config)
{
	struct pw_probes *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->procfs = strdup(config->procfs);
	p->sysfs = strdup(config->sysfs);
	if (!p->procfs || !p->sysfs) {
		pw_probes_free(p);
		return NULL;
	}
	/* Opened once: a root that does not exist (yet) just makes its probes unavailable. */
	p->proc_dirfd = open(p->procfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	p->sys_dirfd = open(p->sysfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	p->min_gap_ns = config->min_gap_ns;
	p->procs.cap = config->pids_cap ? config->pids_cap : PW_PROBE_PIDS_DEFAULT;
	return p;
}

void pw_probes_free(struct pw_probes *p)
{
	if (!p)
		return;
	if (p->proc_dirfd >= 0)
		close(p->proc_dirfd);
	if (p->sys_dirfd >= 0)
		close(p->sys_dirfd);
	pw_probe_procs_done(&p->procs);
	pw_probe_disks_done(&p->disks);
	pw_filebuf_done(&p->buf);
	free(p->procfs);
	free(p->sysfs);
	free(p);
}

int pw_probe_read(struct pw_probes *p, int dirfd, const char *path)
{
	return pw_read_at(dirfd, path, &p->buf);
}

/* ---- small reads -------------------------------------------------------------------------- */

static bool read_u32(struct pw_probes *p, const char *path, uint32_t *ret)
{
	uint64_t v;

	if (pw_probe_read(p, p->sys_dirfd, path) < 0 || pw_sysfs_parse_u64(p->buf.data, p->buf.len, &v) < 0 ||
	    v > UINT32_MAX)
		return false;
	*ret = (uint32_t)v;
	return true;
}

/* A tunable of governor gov: per policy (through cpuN/cpufreq, the policy's link, or policyN
 * directly when the link is missing) or global (drivers without per-policy governors). */
static bool read_tunable(struct pw_probes *p, uint32_t cpu, const char *gov, const char *name, uint32_t *ret)
{
	char path[128];

	snprintf(path, sizeof(path), CPU_DIR "/cpu%u/cpufreq/%s/%s", cpu, gov, name);
	if (read_u32(p, path, ret))
		return true;
	snprintf(path, sizeof(path), CPU_DIR "/cpufreq/policy%u/%s/%s", cpu, gov, name);
	if (read_u32(p, path, ret))
		return true;
	snprintf(path, sizeof(path), CPU_DIR "/cpufreq/%s/%s", gov, name);
	return read_u32(p, path, ret);
}

static void probe_governor(struct pw_probes *p, const struct pw_ev_frequency *ev)
{
	struct pw_ev_governor *g = &p->governor;
	uint32_t cpu = ev->ncpus ? ev->cpus[0].cpu : 0;
	char path[128];

	memset(g, 0, sizeof(*g));
	g->up_threshold = g->sampling_rate_us = UINT32_MAX;
	bool found = false;
	/* Only the governors that have these knobs; a name from sysfs never builds a path. */
	if (strcmp(ev->governor, "ondemand") == 0 || strcmp(ev->governor, "conservative") == 0) {
		found |= read_tunable(p, cpu, ev->governor, "up_threshold", &g->up_threshold);
		found |= read_tunable(p, cpu, ev->governor, "sampling_rate", &g->sampling_rate_us);
	}
	snprintf(path, sizeof(path), CPU_DIR "/cpu%u/cpufreq/energy_performance_preference", cpu);
	if (pw_probe_read(p, p->sys_dirfd, path) == 0 &&
	    pw_sysfs_parse_word(p->buf.data, p->buf.len, g->epp, sizeof(g->epp)) == 0)
		found = true;
	g->status = found ? PW_PROBE_OK : PW_PROBE_UNAVAILABLE;
}

/* "0-3,8\n" as it is, if it looks like a CPU list; longer lists end in "...". */
static void copy_cpulist(const char *buf, size_t len, char *out, size_t size)
{
	out[0] = '\0';
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	for (size_t i = 0; i < len; i++)
		if (!((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '-' || buf[i] == ','))
			return;
	if (len < size) {
		pw_copy_label(out, size, buf, len);
		return;
	}
	pw_copy_label(out, size - 3, buf, len);
	strcat(out, "...");
}

static void probe_affinity(struct pw_probes *p, const struct pw_ev_interrupt_time *ev)
{
	p->naffinity = 0;
	for (uint32_t i = 0; i < ev->nlines && i < PW_EV_LINES; i++) {
		const char *irq = ev->lines[i].irq;
		char path[PW_IRQ_NAME_MAX + 32];
		bool numbered = irq[0] >= '0' && irq[0] <= '9' && strspn(irq, "0123456789") == strlen(irq);

		snprintf(p->affinity[i].irq, sizeof(p->affinity[i].irq), "%s", irq);
		p->affinity[i].list[0] = '\0';
		p->naffinity = i + 1;
		if (!numbered) /* LOC, NMI, ...: per-CPU by nature, no /proc/irq entry */
			continue;
		snprintf(path, sizeof(path), "irq/%s/smp_affinity_list", irq);
		if (pw_probe_read(p, p->proc_dirfd, path) == 0)
			copy_cpulist(p->buf.data, p->buf.len, p->affinity[i].list,
			             sizeof(p->affinity[i].list));
	}
}

/* ---- the update ---------------------------------------------------------------------------- */

static bool soon(const struct pw_probes *p, int64_t last_ns, int64_t now_ns)
{
	return last_ns && now_ns - last_ns < p->min_gap_ns;
}

/* The host's busy and handler time in CPUs over the sample's interval. */
static void host_time(const struct pw_sample *s, float *ret_busy, float *ret_handlers)
{
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	double busy = 0, handlers = 0;
	bool any = false;

	for (uint32_t id = 0; id < s->ncpu && id < s->cpu_cap; id++) {
		const float *sh = cpus[id].share;
		if (!(cpus[id].derived_valid & PW_DERIVED_SHARES))
			continue;
		any = true;
		busy += pw_busy_share(sh);
		handlers += sh[PW_MODE_IRQ] + sh[PW_MODE_SOFTIRQ];
	}
	*ret_busy = any ? (float)busy : NAN;
	*ret_handlers = any ? (float)handlers : NAN;
}

void pw_probes_update(struct pw_probes *p, const struct pw_alert *alerts, size_t n,
                      const struct pw_sample *sample, int64_t now_ns)
{
	bool procs = false, disks = false;

	for (size_t i = 0; i < n; i++) {
		const struct pw_alert *a = &alerts[i];
		if (a->state == PW_ALERT_INACTIVE)
			continue;
		switch (a->name) {
		case PW_ALERT_SYSTEM_TIME_HIGH:
			procs = true;
			break;
		case PW_ALERT_INTERRUPT_TIME_HIGH:
			procs = true;
			probe_affinity(p, &a->evidence.interrupt_time);
			break;
		case PW_ALERT_CPU_FREQUENCY_LOW:
			probe_governor(p, &a->evidence.frequency);
			break;
		case PW_ALERT_MEMORY_SWAPPING:
		case PW_ALERT_IOWAIT_HIGH:
			disks = true;
			break;
		default:
			break;
		}
	}
	if (!procs) {
		pw_probe_procs_forget(&p->procs);
		p->procs_ns = 0;
	} else if (!soon(p, p->procs_ns, now_ns)) {
		pw_probe_procs(p, sample->user_hz, now_ns);
		p->procs_ns = now_ns;
		host_time(sample, &p->procs.by_total.host_busy, &p->procs.by_total.host_handlers);
		p->procs.by_system.host_busy = p->procs.by_total.host_busy;
		p->procs.by_system.host_handlers = p->procs.by_total.host_handlers;
	}
	if (!disks) {
		pw_probe_disks_forget(&p->disks);
		p->disks_ns = 0;
	} else if (!soon(p, p->disks_ns, now_ns)) {
		pw_probe_disks(p, now_ns);
		p->disks_ns = now_ns;
	}
}

/* ---- apply ---------------------------------------------------------------------------------- */

/* Add a sentence to the description only if all of it fits: a cut sentence misleads. */
__attribute__((format(printf, 2, 3))) static void append(struct pw_alert *a, const char *fmt, ...)
{
	char more[256];
	va_list ap;
	size_t used = strnlen(a->description, sizeof(a->description));

	va_start(ap, fmt);
	int len = vsnprintf(more, sizeof(more), fmt, ap);
	va_end(ap);
	if (len > 0 && (size_t)len < sizeof(more) && used + (size_t)len < sizeof(a->description))
		memcpy(a->description + used, more, (size_t)len + 1);
}

static void apply_interrupt_time(const struct pw_probes *p, struct pw_alert *a)
{
	struct pw_ev_interrupt_time *ev = &a->evidence.interrupt_time;
	const struct pw_ev_processes *procs = &p->procs.by_total;

	for (uint32_t i = 0; i < ev->nlines && i < PW_EV_LINES; i++)
		for (uint32_t k = 0; k < p->naffinity; k++)
			if (strcmp(p->affinity[k].irq, ev->lines[i].irq) == 0)
				memcpy(ev->affinity[i], p->affinity[k].list, sizeof(ev->affinity[i]));
	ev->processes = *procs;
	if (procs->status == PW_PROBE_OK)
		append(a,
		       " Processes account for %.2f CPUs of user+system time over the last %.1f s while "
		       "interrupt handlers took %.2f CPUs (host busy %.2f CPUs).",
		       procs->system + procs->user, procs->window_s, procs->host_handlers, procs->host_busy);
}

static void apply_system_time(const struct pw_probes *p, struct pw_alert *a)
{
	const struct pw_ev_processes *procs = &p->procs.by_system;

	a->evidence.system_time.processes = *procs;
	if (procs->status == PW_PROBE_OK && procs->n > 0)
		append(a, " Most system time: %s (pid %d), %.0f%% of a CPU.", procs->top[0].comm,
		       procs->top[0].pid, 100.0 * procs->top[0].system);
}

static void apply_frequency(const struct pw_probes *p, struct pw_alert *a)
{
	const struct pw_ev_governor *g = &p->governor;

	a->evidence.frequency.tunables = *g;
	if (g->status != PW_PROBE_OK)
		return;
	if (g->up_threshold != UINT32_MAX)
		append(a, " Here %s's up_threshold is %u%%%s.", a->evidence.frequency.governor,
		       g->up_threshold,
		       g->up_threshold > 80 ? ": a CPU less busy than that stays slow (lower it in "
		                              "cpufreq/ondemand/up_threshold)"
		                            : "");
	if (g->epp[0])
		append(a, " energy_performance_preference is %s%s.", g->epp,
		       strstr(g->epp, "power") && !strstr(g->epp, "performance")
		               ? ": the hardware favours saving power (balance_performance or performance "
		                 "favours speed)"
		               : "");
}

static void apply_disks(const struct pw_probes *p, struct pw_alert *a)
{
	const struct pw_ev_disks *d = &p->disks.found;

	a->evidence.memory.disks = *d;
	if (d->status == PW_PROBE_OK && d->n > 0)
		append(a, " Busiest disk: %s, %.0f%% busy, %.0f reads/s, %.0f writes/s.", d->top[0].name,
		       100.0 * d->top[0].utilization, d->top[0].reads, d->top[0].writes);
}

void pw_probes_apply(const struct pw_probes *p, struct pw_alert *a)
{
	if (a->state == PW_ALERT_INACTIVE)
		return;
	switch (a->name) {
	case PW_ALERT_INTERRUPT_TIME_HIGH:
		apply_interrupt_time(p, a);
		break;
	case PW_ALERT_SYSTEM_TIME_HIGH:
		apply_system_time(p, a);
		break;
	case PW_ALERT_CPU_FREQUENCY_LOW:
		apply_frequency(p, a);
		break;
	case PW_ALERT_MEMORY_SWAPPING:
	case PW_ALERT_IOWAIT_HIGH:
		apply_disks(p, a);
		break;
	default:
		break;
	}
}
