/* make_store.c — a history store of a busy host, for bench/history_latency.sh: SECONDS of points at
 * 1 s for NCPU CPUs, ending now, written through the daemon's own store code (both tiers), so
 * /history can be timed on a day on disk without waiting a day.
 *
 * The figures move like a busy host's (a seeded random walk per CPU, rates jittered a few percent,
 * six interrupt lines, free memory drifting), so they print with as many digits as a real store's;
 * a fixture tree's static counters would print zeros.
 *
 * Usage: make_store DIR NCPU [SECONDS]  (DIR: the --state-dir; the store goes to DIR/history) */
#include "history.h"
#include "history_signals.h"
#include "history_store.h"
#include "log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define SEC INT64_C(1000000000)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void) /* [0, 1) */
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double jitter(double v, double spread)
{
	return v * (1 + spread * (uniform() * 2 - 1));
}

static uint16_t walk(uint16_t v, int lo, int hi, int step)
{
	int n = v + (int)((uniform() * 2 - 1) * step);
	return (uint16_t)(n < lo ? lo : n > hi ? hi : n);
}

static void next_point(struct pw_history_point *p, uint32_t ncpu, int64_t real_ns, uint64_t seq)
{
	static const char *lines[PW_HISTORY_LINES] = {"LOC", "CAL", "25", "26", "RES", "TLB"};
	static const double line_rates[PW_HISTORY_LINES] = {2400, 900, 15000, 8000, 300, 40};
	uint32_t busy_sum = 0;

	p->mono_ns = real_ns;
	p->real_ns = real_ns;
	p->seq = seq;
	p->flags = seq == 1 ? PW_HISTORY_RUN_START : 0;
	p->ncpu = (uint16_t)ncpu;
	for (uint32_t c = 0; c < ncpu; c++) {
		struct pw_history_cpu *cpu = &p->cpus[c];
		cpu->user = walk(cpu->user, 200, 7000, 150);
		cpu->system = walk(cpu->system, 50, 2000, 60);
		cpu->irq = walk(cpu->irq, 0, 500, 20);
		cpu->iowait = walk(cpu->iowait, 0, 800, 30);
		cpu->busy = (uint16_t)(cpu->user + cpu->system + cpu->irq);
		cpu->freq_ratio = walk(cpu->freq_ratio, 3000, 10000, 400);
		cpu->avg_mhz = (uint16_t)(cpu->freq_ratio * 3600 / 10000);
		busy_sum += cpu->busy;
	}
	uint32_t n = ncpu ? ncpu : 1;
	p->share[PW_MODE_USER] = (uint16_t)(busy_sum * 6 / 10 / n);
	p->share[PW_MODE_NICE] = (uint16_t)(uniform() * 20);
	p->share[PW_MODE_SYSTEM] = (uint16_t)(busy_sum * 3 / 10 / n);
	p->share[PW_MODE_IRQ] = (uint16_t)(busy_sum / 20 / n);
	p->share[PW_MODE_SOFTIRQ] = (uint16_t)(busy_sum / 20 / n);
	p->share[PW_MODE_IOWAIT] = walk(p->share[PW_MODE_IOWAIT], 0, 800, 30);
	p->share[PW_MODE_STEAL] = (uint16_t)(uniform() * 30);
	p->share[PW_MODE_IDLE] = (uint16_t)(10000 - busy_sum / n - p->share[PW_MODE_IOWAIT]);
	p->busy_cpus = (uint16_t)(busy_sum / 10000);
	p->procs_running = (uint32_t)(1 + uniform() * ncpu);
	p->intr_rate = (float)jitter(26000.0 * ncpu / 2, 0.05);
	p->ctxt_rate = (float)jitter(41000.0 * ncpu / 2, 0.08);
	p->softirq_rate = (float)jitter(9000.0 * ncpu / 2, 0.05);
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
		p->softirq_type_rate[t] = (float)jitter(900.0 * (t + 1), 0.1);
	p->swap_in_rate = (float)(uniform() < 0.9 ? 0 : jitter(40, 0.5));
	p->swap_out_rate = (float)(uniform() < 0.9 ? 0 : jitter(60, 0.5));
	p->major_fault_rate = (float)jitter(3, 0.9);
	p->mem_available_kb = (uint64_t)((double)p->mem_available_kb + (uniform() * 2 - 1) * 4096);
	p->cached_kb = (uint64_t)((double)p->cached_kb + (uniform() * 2 - 1) * 2048);
	for (int k = 0; k < PW_PSI_COUNT; k++)
		p->psi_some_stall[k] = (uint16_t)(uniform() * 300);
	for (int k = 0; k < PW_HISTORY_LINES; k++) {
		snprintf(p->lines[k].irq, sizeof(p->lines[k].irq), "%s", lines[k]);
		p->lines[k].rate = (float)jitter(line_rates[k], 0.1);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s STATE_DIR NCPU [SECONDS]\n", argv[0]);
		return 2;
	}
	char dir[4096];
	uint32_t ncpu = (uint32_t)strtoul(argv[2], NULL, 10);
	long seconds = argc > 3 ? strtol(argv[3], NULL, 10) : 86400;
	if (ncpu == 0 || ncpu > 4096 || seconds <= 0) {
		fprintf(stderr, "make_store: NCPU 1..4096 and SECONDS > 0\n");
		return 2;
	}
	pw_log_init(4);
	pw_history_store_dir(argv[1], dir, sizeof(dir));
	mkdir(argv[1], 0700);

	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t end_ns = (int64_t)now.tv_sec * SEC, start_ns = end_ns - (int64_t)seconds * SEC;
	struct pw_history_store_config cfg = {.dir = dir,
	                                      .interval_ns = SEC,
	                                      .cpu_cap = ncpu,
	                                      .retention_ns = 7 * 86400 * SEC,
	                                      .retention_size = UINT64_C(1) << 30};
	struct pw_history_store *st = pw_history_store_new(&cfg);
	struct pw_history_point *p = calloc(1, pw_history_point_size(ncpu));
	if (!st || !p)
		return 1;
	pw_history_point_unknown(p, ncpu, start_ns);
	p->mem_available_kb = 6u << 20;
	p->cached_kb = 2u << 20;
	for (uint32_t c = 0; c < ncpu; c++)
		p->cpus[c] = (struct pw_history_cpu){3000, 2000, 800, 100, 100, 7000, 2520};
	for (long i = 0; i < seconds; i++) {
		/* the sampler's few ms of lateness */
		next_point(p, ncpu, start_ns + i * SEC + (int64_t)(uniform() * 3e6), (uint64_t)i + 1);
		pw_history_store_append(st, p, i * SEC);
	}
	pw_history_store_close(st);
	pw_history_store_free(st);
	free(p);
	printf("make_store: %ld points of %u CPUs in %s\n", seconds, ncpu, dir);
	return 0;
}
