/* status_json.c — the /status document: one sample summarised for people with jansson.
 *
 * Shape (docs/metrics.md describes every field): a section per source, null when that source did
 * not parse in this sample; inside a section, a figure derived over the interval (shares, rates,
 * average frequency) is null when the sample does not carry it (the first sample, a counter reset).
 * Rounding: percentages 1 decimal, MiB 1 decimal, MHz integers, rates 1 decimal below 100/s and
 * integers above, PSI and load averages the kernel's 2 decimals (the pw_json_* helpers of
 * alerts_json.h, shared with /alerts). At the end: the detector's active alerts, a diagnosis in
 * plain words built from them (or from the main figures when all is quiet), and the detector's
 * own state. */
#include "status_json.h"

#include "deviation_text.h"

#include "alerts_json.h"
#include "json_util.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOP_N 5

struct doc {
	const struct pw_sample *sample;
	const struct pw_status_self *self;
	const struct pw_cpu_sample *cpus;
	uint32_t ncpu; /* CPU records to look at: min(ncpu, cpu_cap) */
	bool failed;   /* an allocation failed somewhere: the document is dropped */
};

/* obj[key] = value (stolen); any failure, including value == NULL, marks the document failed. */
static bool host_has(const struct doc *d, uint32_t derived)
{
	return (d->sample->derived.valid & derived) == derived;
}

static json_t *sample_section(struct doc *d)
{
	const struct pw_sample *s = d->sample;
	json_t *obj = json_object();
	double age = NAN;

	if (d->self && d->self->now_mono_ns && s->mono_ns)
		age = (double)(d->self->now_mono_ns - s->mono_ns) / 1e9;
	else if (d->self && d->self->now_real_ns)
		age = (double)(d->self->now_real_ns - s->real_ns) / 1e9;
	pw_json_set(&d->failed, obj, "seq", json_integer((json_int_t)s->seq));
	pw_json_set(&d->failed, obj, "time", pw_json_rfc3339(s->real_ns));
	pw_json_set(&d->failed, obj, "age_seconds", pw_json_real(age, 1));
	pw_json_set(&d->failed, obj, "interval_seconds", pw_json_real((double)s->interval_ns / 1e9, 3));
	return obj;
}

/* Mode shares in percent, for the modes the kernel printed. */
static json_t *modes_percent(struct doc *d, const float *share, unsigned nmodes)
{
	json_t *obj = json_object();

	for (unsigned m = 0; m < nmodes && m < PW_MODE_COUNT; m++)
		pw_json_set(&d->failed, obj, pw_cpu_mode_name((enum pw_cpu_mode)m),
		            pw_json_percent(share[m]));
	return obj;
}

/* 100% minus idle and iowait (pw_busy_share). */
static json_t *busy_percent(const float *share)
{
	return pw_json_percent(pw_busy_share(share));
}

static json_t *frequency(struct doc *d, const struct pw_cpu_sample *cpu)
{
	bool derived = cpu->derived_valid & PW_DERIVED_FREQ;
	json_t *obj;

	if (!pw_sample_has(d->sample, PW_SRC_CPUFREQ) || !(cpu->freq_flags & PW_FREQ_HAS_CPUFREQ))
		return json_null();
	obj = json_object();
	pw_json_set(&d->failed, obj, "avg_mhz", derived ? pw_json_mhz(cpu->avg_khz) : json_null());
	pw_json_set(&d->failed, obj, "cur_mhz", pw_json_mhz(cpu->cur_khz));
	pw_json_set(&d->failed, obj, "max_mhz", pw_json_mhz(cpu->max_khz));
	pw_json_set(&d->failed, obj, "percent_of_max",
	            derived ? pw_json_percent(cpu->freq_ratio) : json_null());
	pw_json_set(&d->failed, obj, "governor", pw_json_text(cpu->governor, sizeof(cpu->governor)));
	pw_json_set(&d->failed, obj, "driver", pw_json_text(cpu->driver, sizeof(cpu->driver)));
	pw_json_set(
	        &d->failed, obj, "source",
	        json_string(cpu->freq_flags & PW_FREQ_AVG_FROM_STATS ? "time_in_state" : "scaling_cur_freq"));
	return obj;
}

static json_t *per_cpu_entry(struct doc *d, uint32_t id)
{
	const struct pw_cpu_sample *cpu = &d->cpus[id];
	bool shares = cpu->online && cpu->times.present && (cpu->derived_valid & PW_DERIVED_SHARES);
	json_t *obj = json_object();

	pw_json_set(&d->failed, obj, "cpu", json_integer(id));
	pw_json_set(&d->failed, obj, "online", json_boolean(cpu->online));
	pw_json_set(&d->failed, obj, "busy_percent", shares ? busy_percent(cpu->share) : json_null());
	pw_json_set(&d->failed, obj, "modes_percent",
	            shares ? modes_percent(d, cpu->share, cpu->times.nmodes) : json_null());
	pw_json_set(&d->failed, obj, "frequency", frequency(d, cpu));
	return obj;
}

static json_t *cpu_section(struct doc *d)
{
	const struct pw_sample *s = d->sample;
	bool shares = host_has(d, PW_DERIVED_SHARES);
	unsigned nmodes = s->stat.total.nmodes;
	json_t *obj, *list;
	uint32_t online = 0;

	if (!pw_sample_has(s, PW_SRC_STAT))
		return json_null();
	for (uint32_t c = 0; c < d->ncpu; c++)
		online += d->cpus[c].online && d->cpus[c].times.present;
	obj = json_object();
	pw_json_set(&d->failed, obj, "online", json_integer(online));
	pw_json_set(&d->failed, obj, "busy_percent", shares ? busy_percent(s->derived.share) : json_null());
	pw_json_set(&d->failed, obj, "busy_cpus", shares ? json_integer(s->derived.busy_cpus) : json_null());
	pw_json_set(&d->failed, obj, "modes_percent",
	            shares ? modes_percent(d, s->derived.share, nmodes) : json_null());
	list = json_array();
	for (uint32_t c = 0; c < d->ncpu; c++)
		pw_json_push(&d->failed, list, per_cpu_entry(d, c));
	pw_json_set(&d->failed, obj, "per_cpu", list);
	return obj;
}

/* Orders candidates for a top-N list: higher rate first, then lower index. */
static bool ranks_before(float rate_a, uint32_t a, float rate_b, uint32_t b)
{
	return rate_a > rate_b || (rate_a == rate_b && a < b);
}

/* Index of the best-ranked item with a positive rate ranked after (prev_rate, prev), or n when
 * none is left. Selecting N items this way costs N passes and no allocation. */
static uint32_t next_top(const float *rates, size_t stride, uint32_t n, float prev_rate, uint32_t prev)
{
	uint32_t best = n;
	float best_rate = 0;

	for (uint32_t i = 0; i < n; i++) {
		float r = *(const float *)((const char *)rates + i * stride);
		if (!(r > 0) || (prev < n && !ranks_before(prev_rate, prev, r, i)))
			continue;
		if (best == n || ranks_before(r, i, best_rate, best)) {
			best = i;
			best_rate = r;
		}
	}
	return best;
}

static uint32_t top_n(const struct doc *d)
{
	return d->self ? d->self->top_n : DEFAULT_TOP_N;
}

static json_t *top_lines(struct doc *d, const struct pw_line_sample *lines, uint32_t nlines)
{
	json_t *list = json_array();
	uint32_t i = nlines;
	float prev_rate = 0;

	for (uint32_t k = 0; k < top_n(d); k++) {
		i = next_top(&lines[0].rate, sizeof(lines[0]), nlines, prev_rate, i);
		if (i == nlines)
			break;
		prev_rate = lines[i].rate;
		json_t *obj = json_object();
		pw_json_set(&d->failed, obj, "irq", pw_json_text(lines[i].line.irq, PW_IRQ_NAME_MAX));
		pw_json_set(&d->failed, obj, "device", pw_json_text(lines[i].line.device, PW_IRQ_DEVICE_MAX));
		pw_json_set(&d->failed, obj, "chip", pw_json_text(lines[i].line.chip, PW_IRQ_CHIP_MAX));
		pw_json_set(&d->failed, obj, "per_second", pw_json_rate(prev_rate));
		pw_json_push(&d->failed, list, obj);
	}
	return list;
}

static json_t *interrupts_per_cpu(struct doc *d)
{
	json_t *list = json_array();

	for (uint32_t c = 0; c < d->ncpu; c++) {
		const struct pw_cpu_sample *cpu = &d->cpus[c];
		if (!cpu->in_interrupts)
			continue;
		json_t *obj = json_object();
		pw_json_set(&d->failed, obj, "cpu", json_integer(c));
		pw_json_set(&d->failed, obj, "per_second",
		            cpu->derived_valid & PW_DERIVED_RATES ? pw_json_rate(cpu->interrupt_rate)
		                                                  : json_null());
		pw_json_push(&d->failed, list, obj);
	}
	return list;
}

static json_t *interrupts_section(struct doc *d)
{
	const struct pw_sample *s = d->sample;
	const struct pw_line_sample *lines = pw_sample_lines_const(s);
	uint32_t nlines = s->nlines < s->line_cap ? s->nlines : s->line_cap;
	bool rates = host_has(d, PW_DERIVED_RATES);
	json_t *obj;

	if (!pw_sample_has(s, PW_SRC_INTERRUPTS))
		return json_null();
	obj = json_object();
	/* The total is /proc/stat's intr (vmstat's "in"): summing the lines would count x86 TLB
	 * shootdowns twice (they are inside CAL too). */
	pw_json_set(&d->failed, obj, "per_second",
	            rates && isfinite(s->derived.intr_rate) ? pw_json_rate(s->derived.intr_rate)
	                                                    : json_null());
	pw_json_set(&d->failed, obj, "lines", json_integer(nlines));
	pw_json_set(&d->failed, obj, "lines_dropped", json_integer(s->interrupts.dropped));
	pw_json_set(&d->failed, obj, "top", rates ? top_lines(d, lines, nlines) : json_null());
	pw_json_set(&d->failed, obj, "per_cpu_per_second", rates ? interrupts_per_cpu(d) : json_null());
	return obj;
}

static json_t *softirqs_section(struct doc *d)
{
	const struct pw_sample *s = d->sample;
	bool rates = host_has(d, PW_DERIVED_RATES);
	float rates_present[PW_SOFTIRQ_COUNT];
	json_t *obj, *list;
	uint32_t t = PW_SOFTIRQ_COUNT;
	float prev_rate = 0;

	if (!pw_sample_has(s, PW_SRC_SOFTIRQS))
		return json_null();
	obj = json_object();
	pw_json_set(&d->failed, obj, "per_second",
	            rates ? pw_json_rate(s->derived.softirq_total_rate) : json_null());
	if (!rates) {
		pw_json_set(&d->failed, obj, "top", json_null());
		return obj;
	}
	for (unsigned i = 0; i < PW_SOFTIRQ_COUNT; i++)
		rates_present[i] = s->softirqs.present & (1u << i) ? s->derived.softirq_rate[i] : 0.0f;
	list = json_array();
	for (uint32_t k = 0; k < top_n(d); k++) {
		t = next_top(rates_present, sizeof(float), PW_SOFTIRQ_COUNT, prev_rate, t);
		if (t == PW_SOFTIRQ_COUNT)
			break;
		prev_rate = rates_present[t];
		json_t *item = json_object();
		pw_json_set(&d->failed, item, "type", json_string(pw_softirq_name((enum pw_softirq_type)t)));
		pw_json_set(&d->failed, item, "per_second", pw_json_rate(prev_rate));
		pw_json_push(&d->failed, list, item);
	}
	pw_json_set(&d->failed, obj, "top", list);
	return obj;
}

/* The /proc/stat host figures sit at the top level of the document. */
static void stat_figures(struct doc *d, json_t *root)
{
	const struct pw_sample *s = d->sample;
	bool up = pw_sample_has(s, PW_SRC_STAT);
	bool rates = up && host_has(d, PW_DERIVED_RATES);
	uint32_t present = up ? s->stat.present : 0;

	pw_json_set(&d->failed, root, "context_switches_per_second",
	            rates && (present & PW_PROCSTAT_HAS_CTXT) ? pw_json_rate(s->derived.ctxt_rate)
	                                                      : json_null());
	pw_json_set(&d->failed, root, "forks_per_second",
	            rates && (present & PW_PROCSTAT_HAS_PROCESSES) ? pw_json_rate(s->derived.fork_rate)
	                                                           : json_null());
	pw_json_set(&d->failed, root, "procs_running",
	            present & PW_PROCSTAT_HAS_PROCS_RUNNING ? json_integer((json_int_t)s->stat.procs_running)
	                                                    : json_null());
	pw_json_set(&d->failed, root, "procs_blocked",
	            present & PW_PROCSTAT_HAS_PROCS_BLOCKED ? json_integer((json_int_t)s->stat.procs_blocked)
	                                                    : json_null());
}

static json_t *memory_section(struct doc *d)
{
	static const struct {
		const char *key;
		enum pw_meminfo_field field;
	} rows[] = {
	        {"total_mib", PW_MEM_TOTAL},
	        {"available_mib", PW_MEM_AVAILABLE},
	        {"free_mib", PW_MEM_FREE},
	        {"buffers_mib", PW_MEM_BUFFERS},
	        {"cached_mib", PW_MEM_CACHED},
	        {"dirty_mib", PW_MEM_DIRTY},
	        {"swap_total_mib", PW_MEM_SWAP_TOTAL},
	        {"swap_free_mib", PW_MEM_SWAP_FREE},
	};
	const struct pw_meminfo *mem = &d->sample->meminfo;
	json_t *obj;

	if (!pw_sample_has(d->sample, PW_SRC_MEMINFO))
		return json_null();
	obj = json_object();
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		pw_json_set(&d->failed, obj, rows[i].key,
		            mem->present & (1u << rows[i].field)
		                    ? pw_json_real((double)mem->kb[rows[i].field] / 1024.0, 1)
		                    : json_null());
	return obj;
}

/* Sum of the per-second rates of the vmstat fields in mask that the file had, or null. */
static json_t *vm_rate(struct doc *d, uint32_t mask)
{
	const struct pw_vmstat *vm = &d->sample->vmstat;
	double sum = 0;

	if (!(vm->present & mask) || !host_has(d, PW_DERIVED_RATES))
		return json_null();
	for (unsigned f = 0; f < PW_VM_COUNT; f++)
		if (vm->present & mask & (1u << f))
			sum += d->sample->derived.vm_rate[f];
	return pw_json_rate(sum);
}

static json_t *paging_section(struct doc *d)
{
	json_t *obj;

	if (!pw_sample_has(d->sample, PW_SRC_VMSTAT))
		return json_null();
	obj = json_object();
	pw_json_set(&d->failed, obj, "swap_in_pages_per_second", vm_rate(d, 1u << PW_VM_PSWPIN));
	pw_json_set(&d->failed, obj, "swap_out_pages_per_second", vm_rate(d, 1u << PW_VM_PSWPOUT));
	pw_json_set(&d->failed, obj, "paged_in_kib_per_second", vm_rate(d, 1u << PW_VM_PGPGIN));
	pw_json_set(&d->failed, obj, "paged_out_kib_per_second", vm_rate(d, 1u << PW_VM_PGPGOUT));
	pw_json_set(&d->failed, obj, "major_faults_per_second", vm_rate(d, 1u << PW_VM_PGMAJFAULT));
	pw_json_set(&d->failed, obj, "refaults_per_second",
	            vm_rate(d, 1u << PW_VM_WORKINGSET_REFAULT | 1u << PW_VM_WORKINGSET_REFAULT_ANON |
	                               1u << PW_VM_WORKINGSET_REFAULT_FILE));
	return obj;
}

static void psi_kind(struct doc *d, json_t *obj, const char *kind, const struct pw_psi_line *line)
{
	static const char *const windows[] = {"avg10", "avg60", "avg300"};
	const uint32_t avg[] = {line->avg10, line->avg60, line->avg300};
	char key[16];

	for (unsigned w = 0; w < 3; w++) {
		snprintf(key, sizeof(key), "%s_%s", kind, windows[w]);
		pw_json_set(&d->failed, obj, key, line->present ? json_real(avg[w] / 100.0) : json_null());
	}
}

static json_t *pressure_section(struct doc *d)
{
	const struct pw_sample *s = d->sample;
	json_t *obj;

	if (!pw_sample_has(s, PW_SRC_PRESSURE))
		return json_null();
	obj = json_object();
	for (unsigned r = 0; r < PW_PSI_COUNT; r++) {
		const char *name = pw_psi_resource_name((enum pw_psi_resource)r);
		if (!(s->psi_present & (1u << r))) {
			pw_json_set(&d->failed, obj, name, json_null());
			continue;
		}
		json_t *res = json_object();
		psi_kind(d, res, "some", &s->psi[r].some);
		psi_kind(d, res, "full", &s->psi[r].full);
		pw_json_set(&d->failed, obj, name, res);
	}
	return obj;
}

static json_t *load_section(struct doc *d)
{
	const struct pw_loadavg *la = &d->sample->loadavg;
	json_t *obj;

	if (!pw_sample_has(d->sample, PW_SRC_LOADAVG))
		return json_null();
	obj = json_object();
	pw_json_set(&d->failed, obj, "load1", json_real(la->load1 / 100.0));
	pw_json_set(&d->failed, obj, "load5", json_real(la->load5 / 100.0));
	pw_json_set(&d->failed, obj, "load15", json_real(la->load15 / 100.0));
	pw_json_set(&d->failed, obj, "runnable", json_integer(la->runnable));
	pw_json_set(&d->failed, obj, "threads", json_integer(la->threads));
	return obj;
}

static const char *source_state(const struct pw_sample *s, enum pw_source src)
{
	if (pw_sample_has(s, src))
		return "up";
	return (s->source_present >> src) & 1u ? "failing" : "absent";
}

static json_t *sampler_section(struct doc *d)
{
	const struct pw_sample *s = d->sample;
	json_t *obj = json_object(), *sources = json_object(), *errors = json_object();

	pw_json_set(&d->failed, obj, "samples_taken", json_integer((json_int_t)s->samples_taken));
	pw_json_set(&d->failed, obj, "missed_deadlines", json_integer((json_int_t)s->missed_deadlines));
	pw_json_set(&d->failed, obj, "last_duration_ms", pw_json_real((double)s->duration_ns / 1e6, 2));
	pw_json_set(&d->failed, obj, "counter_resets", json_integer((json_int_t)s->counter_resets));
	pw_json_set(&d->failed, obj, "history_samples",
	            d->self ? json_integer(d->self->history_samples) : json_null());
	for (unsigned i = 0; i < PW_SRC_COUNT; i++) {
		const char *name = pw_source_name((enum pw_source)i);
		pw_json_set(&d->failed, sources, name, json_string(source_state(s, (enum pw_source)i)));
		pw_json_set(&d->failed, errors, name, json_integer((json_int_t)s->parse_errors[i]));
	}
	pw_json_set(&d->failed, obj, "sources", sources);
	pw_json_set(&d->failed, obj, "parse_errors", errors);
	return obj;
}

static json_t *window_stat(struct doc *d, const struct pw_history_stat *stat, int decimals)
{
	json_t *obj;

	if (!isfinite(stat->avg))
		return json_null();
	obj = json_object();
	pw_json_set(&d->failed, obj, "min", pw_json_real(stat->min, decimals));
	pw_json_set(&d->failed, obj, "avg", pw_json_real(stat->avg, decimals));
	pw_json_set(&d->failed, obj, "max", pw_json_real(stat->max, decimals));
	return obj;
}

/* The last minute from the history: a collapse or a burst shorter than a scrape interval shows in
 * its min or max even when the newest sample looks normal. */
static json_t *recent_section(struct doc *d)
{
	const struct pw_history_summary *h = d->self ? d->self->recent : NULL;
	json_t *obj;

	if (!h || h->points == 0)
		return json_null();
	obj = json_object();
	pw_json_set(&d->failed, obj, "samples", json_integer(h->points));
	pw_json_set(&d->failed, obj, "span_seconds", pw_json_real(h->span_seconds, 1));
	pw_json_set(&d->failed, obj, "busy_percent", window_stat(d, &h->busy_percent, 1));
	pw_json_set(&d->failed, obj, "interrupts_per_second", window_stat(d, &h->intr_rate, 0));
	pw_json_set(&d->failed, obj, "context_switches_per_second", window_stat(d, &h->ctxt_rate, 0));
	pw_json_set(&d->failed, obj, "swap_out_pages_per_second", window_stat(d, &h->swap_out_rate, 1));
	return obj;
}

static const struct pw_detector_view *detector(const struct doc *d)
{
	return d->self ? d->self->detector : NULL;
}

/* Room for a sentence per rule, the deviations and the closing remark. */
#define DEVIATIONS_TEXT_MAX (PW_DEVIATIONS_MAX * 360)
#define DIAGNOSIS_MAX                                                                                        \
	(PW_ALERT_COUNT * (sizeof(((struct pw_alert *)0)->summary) + 16) + DEVIATIONS_TEXT_MAX + 256)

struct text {
	char buf[DIAGNOSIS_MAX];
	size_t len;
};

/* Append to t, cutting what does not fit (it always fits: DIAGNOSIS_MAX). */
__attribute__((format(printf, 2, 3))) static void append(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n < sizeof(t->buf) - t->len ? (size_t)n : sizeof(t->buf) - t->len - 1;
}

/* The figures a quiet host is summed up by: how busy, how many interrupts. */
static void quiet_figures(const struct doc *d, struct text *t)
{
	const struct pw_sample *s = d->sample;
	const char *sep = ": ";

	append(t, "nothing unusual");
	if (pw_sample_has(s, PW_SRC_STAT) && host_has(d, PW_DERIVED_SHARES)) {
		double busy = pw_busy_share(s->derived.share);
		if (isfinite(busy)) {
			append(t, "%sCPUs %.1f%% busy", sep, 100.0 * busy);
			sep = ", ";
		}
	}
	if (pw_sample_has(s, PW_SRC_STAT) && host_has(d, PW_DERIVED_RATES) && isfinite(s->derived.intr_rate))
		append(t, "%s%.*f interrupts/s", sep, s->derived.intr_rate >= 100 ? 0 : 1,
		       s->derived.intr_rate);
}

/* One sentence per active alert, most urgent first; then every signal far from its baseline, so
 * an incident no rule fires on is still named; "nothing unusual" only when nothing is. */
static json_t *diagnosis(const struct doc *d)
{
	const struct pw_detector_view *view = detector(d);
	const struct pw_alert *alerts[PW_ALERT_COUNT];
	struct text t = {.len = 0};
	char unusual[DEVIATIONS_TEXT_MAX];
	size_t n;

	if (!view)
		return json_string("the detector is off: perfwatch samples, but no incident rules run");
	t.buf[0] = '\0';
	n = pw_alerts_by_urgency(view, alerts, PW_ALERT_COUNT);
	for (size_t i = 0; i < n; i++)
		append(&t, "%s%s%.*s.", i ? " " : "", alerts[i]->state == PW_ALERT_PENDING ? "Pending: " : "",
		       (int)strnlen(alerts[i]->summary, sizeof(alerts[i]->summary)), alerts[i]->summary);
	/* CpuFrequencyLow needs no baseline, so an alert can be active while the others still learn. */
	if (!view->warm)
		append(&t, "%s",
		       n ? " Still learning baselines; incident rules that compare with them start "
		           "after the warmup."
		         : "learning baselines; incident rules that compare with them start after the "
		           "warmup");
	else if (pw_deviations_text(view, unusual, sizeof(unusual)) > 0)
		append(&t, "%s%s: %s.", n ? " " : "",
		       n ? "Also far from normal" : "No alert, but far from normal", unusual);
	else if (n == 0)
		quiet_figures(d, &t);
	return pw_json_text(t.buf, t.len);
}

static const char *unit_name(enum pw_deviation_unit unit)
{
	static const char *const names[] = {"ratio", "per_second", "percent", "tasks"};
	return (unsigned)unit <= PW_UNIT_TASKS ? names[unit] : "unknown";
}

/* The same deviations as figures: [{"what", "cpu", "unit", "value", "baseline", "spread", "score"}]. */
static json_t *deviations_section(struct doc *d, const struct pw_detector_view *view)
{
	json_t *arr = json_array();

	for (uint32_t i = 0; arr && i < view->ndeviations && i < PW_DEVIATIONS_MAX; i++) {
		const struct pw_deviation *dev = &view->deviations[i];
		json_t *obj = json_object();
		char words[256];
		pw_deviation_text(dev, words, sizeof(words));
		pw_json_set(&d->failed, obj, "what", pw_json_text(dev->what, sizeof(dev->what)));
		pw_json_set(&d->failed, obj, "cpu", dev->cpu >= 0 ? json_integer(dev->cpu) : json_null());
		pw_json_set(&d->failed, obj, "unit", json_string(unit_name(dev->unit)));
		pw_json_set(&d->failed, obj, "value", pw_json_real(dev->value, 4));
		pw_json_set(&d->failed, obj, "baseline", pw_json_real(dev->baseline, 4));
		pw_json_set(&d->failed, obj, "spread", pw_json_real(dev->spread, 4));
		pw_json_set(&d->failed, obj, "score", pw_json_real(dev->score, 1));
		pw_json_set(&d->failed, obj, "words", pw_json_text(words, sizeof(words)));
		if (dev->evidence[0])
			pw_json_set(&d->failed, obj, "evidence",
			            pw_json_text(dev->evidence, sizeof(dev->evidence)));
		if (json_array_append_new(arr, obj) < 0)
			d->failed = true;
	}
	return arr ? arr : json_null();
}

/* Each rule's settings in effect, so a reload can be checked: {"InterruptTimeHigh": {"enabled": true,
 * "for_seconds": 30, "resolve_seconds": 3, "threshold": 0.1, "critical": 0.25, "sigmas": 4}, ...}. */
static json_t *rules_section(struct doc *d, const struct pw_detector_view *view)
{
	json_t *obj = json_object();

	for (int i = 0; i < PW_ALERT_COUNT; i++) {
		const struct pw_rule_config *rc = &view->rules[i];
		json_t *rule = json_object();
		pw_json_set(&d->failed, rule, "enabled", json_boolean(rc->enabled));
		pw_json_set(&d->failed, rule, "for_seconds", pw_json_real((double)rc->for_ns / 1e9, 3));
		pw_json_set(&d->failed, rule, "resolve_seconds",
		            pw_json_real((double)rc->resolve_ns / 1e9, 3));
		pw_json_set(&d->failed, rule, "threshold", json_real(rc->threshold));
		pw_json_set(&d->failed, rule, "critical", json_real(rc->critical));
		pw_json_set(&d->failed, rule, "sigmas", json_real(rc->sigmas));
		if (rc->adopt_ns > 0)
			pw_json_set(&d->failed, rule, "adopt_seconds",
			            pw_json_real((double)rc->adopt_ns / 1e9, 3));
		pw_json_set(&d->failed, obj, pw_alert_name_str((enum pw_alert_name)i), rule);
	}
	return obj;
}

static json_t *detector_section(struct doc *d)
{
	const struct pw_detector_view *view = detector(d);
	json_t *obj;

	if (!view)
		return json_null();
	obj = json_object();
	pw_json_set(&d->failed, obj, "warm", json_boolean(view->warm));
	pw_json_set(&d->failed, obj, "samples_seen", json_integer((json_int_t)view->samples_seen));
	pw_json_set(&d->failed, obj, "samples_missed", json_integer((json_int_t)view->samples_missed));
	pw_json_set(&d->failed, obj, "rules", rules_section(d, view));
	pw_json_set(&d->failed, obj, "deviations", deviations_section(d, view));
	/* Without CONFIG_IRQ_TIME_ACCOUNTING (no /proc/pressure/irq) the kernel charges a whole tick to
	 * whatever it interrupted: irq and softirq shares are then estimates. */
	pw_json_set(&d->failed, obj, "handler_time",
	            json_string(view->irq_accounting == PW_IRQ_ACCOUNTING_MEASURED ? "measured"
	                        : view->irq_accounting == PW_IRQ_ACCOUNTING_TICKS
	                                ? "estimated from timer ticks (no CONFIG_IRQ_TIME_ACCOUNTING)"
	                                : "unknown"));
	return obj;
}

/* The files perfwatchd writes, each with how its writes fare; "stuck" names those whose write in
 * progress has waited PW_FILE_STUCK_NS or more (a hanging disk: detection goes on meanwhile). NULL
 * when it writes none. */
static json_t *files_section(struct doc *d)
{
	const struct pw_files_stats *fs = d->self ? d->self->files : NULL;
	json_t *obj, *stuck;
	bool any = false;

	for (int f = 0; fs && f < PW_FILE_COUNT; f++)
		any |= fs->file[f].configured;
	if (!any)
		return NULL;
	obj = json_object();
	stuck = json_array();
	pw_json_set(&d->failed, obj, "stuck", stuck);
	for (int f = 0; f < PW_FILE_COUNT; f++) {
		const struct pw_file_stats *s = &fs->file[f];
		const char *name = pw_own_file_str((enum pw_own_file)f);
		json_t *o;

		if (!s->configured)
			continue;
		o = json_object();
		pw_json_set(&d->failed, o, "write_errors", json_integer((json_int_t)s->errors));
		pw_json_set(&d->failed, o, "failing", json_boolean(s->failing));
		pw_json_set(&d->failed, o, "dropped", json_integer((json_int_t)s->dropped));
		if (f == PW_FILE_RECORDING)
			pw_json_set(&d->failed, o, "waiting", json_integer((json_int_t)s->waiting));
		pw_json_set(&d->failed, o, "blocked_seconds", pw_json_real((double)s->blocked_ns / 1e9, 1));
		pw_json_set(&d->failed, o, "stuck", json_boolean(s->stuck));
		pw_json_set(&d->failed, obj, name, o);
		if (s->stuck && stuck)
			pw_json_push(&d->failed, stuck, json_string(name));
	}
	return obj;
}

static void build(struct doc *d, json_t *root)
{
	json_t *files;

	pw_json_set(&d->failed, root, "status", json_string("ok"));
	pw_json_set(&d->failed, root, "version",
	            d->self && d->self->version ? json_string(d->self->version) : json_null());
	pw_json_set(&d->failed, root, "sample", sample_section(d));
	pw_json_set(&d->failed, root, "cpu", cpu_section(d));
	pw_json_set(&d->failed, root, "interrupts", interrupts_section(d));
	pw_json_set(&d->failed, root, "softirqs", softirqs_section(d));
	stat_figures(d, root);
	pw_json_set(&d->failed, root, "memory", memory_section(d));
	pw_json_set(&d->failed, root, "paging", paging_section(d));
	pw_json_set(&d->failed, root, "pressure", pressure_section(d));
	pw_json_set(&d->failed, root, "load", load_section(d));
	pw_json_set(&d->failed, root, "recent", recent_section(d));
	pw_json_set(&d->failed, root, "sampler", sampler_section(d));
	pw_json_set(&d->failed, root, "alerts", pw_alerts_json_array(detector(d)));
	pw_json_set(&d->failed, root, "diagnosis", diagnosis(d));
	pw_json_set(&d->failed, root, "detector", detector_section(d));
	if ((files = files_section(d)))
		pw_json_set(&d->failed, root, "files", files);
}

json_t *pw_status_document(const struct pw_sample *sample, const struct pw_status_self *self)
{
	struct doc d = {.sample = sample, .self = self};
	json_t *root = json_object();

	if (!root)
		return NULL;
	if (sample) {
		d.cpus = pw_sample_cpus_const(sample);
		d.ncpu = sample->ncpu < sample->cpu_cap ? sample->ncpu : sample->cpu_cap;
		build(&d, root);
	} else {
		/* Before the first sample there is nothing to diagnose. */
		pw_json_set(&d.failed, root, "status", json_string("starting"));
		pw_json_set(&d.failed, root, "alerts", pw_alerts_json_array(detector(&d)));
	}
	if (d.failed) {
		json_decref(root);
		return NULL;
	}
	return root;
}

int pw_status_render_into(const struct pw_sample *sample, const struct pw_status_self *self,
                          struct pw_outbuf *out)
{
	json_t *root = pw_status_document(sample, self);
	int r = root ? pw_json_dump_into(root, out) : -1;

	json_decref(root);
	return r;
}

char *pw_status_render(const struct pw_sample *sample, const struct pw_status_self *self)
{
	json_t *root = pw_status_document(sample, self);
	char *text = root ? pw_json_dump(root) : NULL;

	json_decref(root);
	return text;
}
