/* history_points.c — see history_points.h. */
#include "history_points.h"
#include "history_signals.h"

#include <math.h>
#include <stdio.h>

#define SEC INT64_C(1000000000)
#define MS INT64_C(1000000)

void pw_test_set_line(struct pw_history_point *p, int k, const char *irq, float rate)
{
	snprintf(p->lines[k].irq, sizeof(p->lines[k].irq), "%s", irq);
	p->lines[k].rate = rate;
}

/* What pw_history_point_from() leaves (history_points.h). */
void pw_test_history_point(struct pw_history_point *p, uint32_t cpu_cap, uint32_t i, int64_t t0)
{
	static const char *const names[] = {"LOC", "25", "NMI", "123456789012345", "CAL", "eth0"};

	pw_history_point_unknown(p, cpu_cap, t0 + (int64_t)i * SEC + (int64_t)(i % 3) * 7 * MS);
	p->mono_ns = (int64_t)(i + 7) * SEC;
	p->seq = 1000 + i;
	p->flags = i == 0 || i == 4 ? PW_HISTORY_RUN_START : 0;
	p->share[PW_MODE_USER] = (uint16_t)(2500 + 13 * i);
	p->share[PW_MODE_NICE] = 100;
	p->share[PW_MODE_SYSTEM] = (uint16_t)(800 - 3 * i);
	p->share[PW_MODE_IDLE] = (uint16_t)(6000 - 10 * i);
	p->share[PW_MODE_IOWAIT] = i == 2 ? PW_HISTORY_UNKNOWN : 300;
	p->share[PW_MODE_IRQ] = 50;
	p->share[PW_MODE_SOFTIRQ] = i == 3 ? PW_HISTORY_UNKNOWN : (uint16_t)(120 + i);
	p->share[PW_MODE_STEAL] = i == 1 ? PW_HISTORY_UNKNOWN : 7;
	p->busy_cpus = (uint16_t)(1 + i % 2);
	p->psi_some_stall[PW_PSI_CPU] = (uint16_t)(1086 + 50 * i);
	p->psi_some_stall[PW_PSI_IO] = 55;
	p->psi_some_stall[PW_PSI_IRQ] = i == 5 ? PW_HISTORY_UNKNOWN : 12; /* PSI memory: file absent */
	p->intr_rate = 4012.37f + 1.5f * (float)i;
	p->ctxt_rate = 123456.78f - (float)i;
	p->softirq_rate = i == 1 ? NAN : 901.25f;
	p->swap_in_rate = 0.0f;
	p->swap_out_rate = 1.5f * (float)i;
	p->major_fault_rate = i == 0 ? NAN : 0.33f;
	p->mem_available_kb = UINT64_C(24120980) - 4 * i;
	p->cached_kb = i == 2 ? UINT64_MAX : UINT64_C(1234567) + i;
	p->procs_running = i == 1 ? UINT32_MAX : 3 + i;
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
		p->softirq_type_rate[t] = t == PW_SOFTIRQ_HI ? NAN : 10.25f * (float)t + (float)i;
	pw_test_set_line(p, 0, names[0], 2000.5f - (float)i);
	pw_test_set_line(p, 1, i < 3 ? names[1] : names[4], 33.33f);
	pw_test_set_line(p, 2, names[2], NAN); /* a line kept whose rate is not known yet */
	pw_test_set_line(p, 3, names[3], 0.01f);
	if (i == 5)
		pw_test_set_line(p, 5, names[5], 1.0e6f + 0.25f);
	p->ncpu = (uint16_t)(i == 0 ? 2 : cpu_cap < 4 ? cpu_cap : 4);
	for (uint32_t c = 0; c < p->ncpu; c++) {
		p->cpus[c] = (struct pw_history_cpu){
		        .busy = (uint16_t)(2000 + 100 * c + i),
		        .user = (uint16_t)(1500 + c),
		        .system = (uint16_t)(400 + i),
		        .irq = (uint16_t)(10 * c),
		        .iowait = c == 1 ? PW_HISTORY_UNKNOWN : (uint16_t)(90 + c),
		        .freq_ratio = c == 1 ? PW_HISTORY_UNKNOWN : (uint16_t)(6500 + 10 * i),
		        .avg_mhz = c == 1 ? 0 : (uint16_t)(1800 + 25 * c),
		};
	}
}
