/* status_json.c — the /status document: one sample summarised for people with jansson.
 *
 * Shape (docs/metrics.md describes every field): a section per source, null when that source did
 * not parse in this sample; inside a section, a figure derived over the interval (shares, rates,
 * average frequency) is null when the sample does not carry it (the first sample, a counter reset).
 * Rounding: percentages 1 decimal, MiB 1 decimal, MHz integers, rates 1 decimal below 100/s and
 * integers above, PSI and load averages the kernel's 2 decimals. */
#include "status_json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_TOP_N 5

struct doc {
	const struct pw_sample *sample;
	const struct pw_status_self *self;
	const struct pw_cpu_sample *cpus;
	uint32_t ncpu; /* CPU records to look at: min(ncpu, cpu_cap) */
	bool failed;   /* an allocation failed somewhere: the document is dropped */
};

/* obj[key] = value (stolen); any failure, including value == NULL, marks the document failed. */
static void set(struct doc *d, json_t *obj, const char *key, json_t *value)
{
	if (!value || json_object_set_new(obj, key, value) < 0)
		d->failed = true;
}

static void push(struct doc *d, json_t *array, json_t *value)
{
	if (!value || json_array_append_new(array, value) < 0)
		d->failed = true;
}

static double round_to(double value, int decimals)
{
	double scale = decimals == 0 ? 1 : decimals == 1 ? 10 : decimals == 2 ? 100 : 1000;

	return round(value * scale) / scale;
}

static json_t *real(double value, int decimals)
{
	return isfinite(value) ? json_real(round_to(value, decimals)) : json_null();
}

static json_t *percent(double fraction)
{
	return real(fraction * 100.0, 1);
}

static json_t *rate(double per_second)
{
	return real(per_second, fabs(per_second) >= 100 ? 0 : 1);
}

static json_t *mhz(uint32_t khz)
{
	return khz ? json_integer((khz + 500) / 1000) : json_null();
}

static json_t *string_or_null(const char *str, size_t max)
{
	size_t n = strnlen(str, max);

	return n ? json_stringn(str, n) : json_null();
}

static bool host_has(const struct doc *d, uint32_t derived)
{
	return (d->sample->derived.valid & derived) == derived;
}

/* RFC 3339 UTC with milliseconds: 2024-05-01T12:00:00.123Z. */
static json_t *rfc3339(int64_t real_ns)
{
	time_t secs = (time_t)(real_ns / 1000000000);
	long ms = (long)(real_ns % 1000000000 / 1000000);
	struct tm tm;
	char buf[40];

	if (ms < 0) {
		secs--;
		ms += 1000;
	}
	if (!gmtime_r(&secs, &tm) || strftime(buf, 24, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return json_null();
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%03ldZ", ms);
	return json_string(buf);
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
	set(d, obj, "seq", json_integer((json_int_t)s->seq));
	set(d, obj, "time", rfc3339(s->real_ns));
	set(d, obj, "age_seconds", real(age, 1));
	set(d, obj, "interval_seconds", real((double)s->interval_ns / 1e9, 3));
	return obj;
}

/* Mode shares in percent, for the modes the kernel printed. */
static json_t *modes_percent(struct doc *d, const float *share, unsigned nmodes)
{
	json_t *obj = json_object();

	for (unsigned m = 0; m < nmodes && m < PW_MODE_COUNT; m++)
		set(d, obj, pw_cpu_mode_name((enum pw_cpu_mode)m), percent(share[m]));
	return obj;
}

/* 100% minus idle and iowait. */
static json_t *busy_percent(const float *share, unsigned nmodes)
{
	double idle = share[PW_MODE_IDLE] + (nmodes > PW_MODE_IOWAIT ? share[PW_MODE_IOWAIT] : 0.0f);

	return percent(1.0 - idle);
}

static json_t *frequency(struct doc *d, const struct pw_cpu_sample *cpu)
{
	bool derived = cpu->derived_valid & PW_DERIVED_FREQ;
	json_t *obj;

	if (!pw_sample_has(d->sample, PW_SRC_CPUFREQ) || !(cpu->freq_flags & PW_FREQ_HAS_CPUFREQ))
		return json_null();
	obj = json_object();
	set(d, obj, "avg_mhz", derived ? mhz(cpu->avg_khz) : json_null());
	set(d, obj, "cur_mhz", mhz(cpu->cur_khz));
	set(d, obj, "max_mhz", mhz(cpu->max_khz));
	set(d, obj, "percent_of_max", derived ? percent(cpu->freq_ratio) : json_null());
	set(d, obj, "governor", string_or_null(cpu->governor, sizeof(cpu->governor)));
	set(d, obj, "driver", string_or_null(cpu->driver, sizeof(cpu->driver)));
	set(d, obj, "source",
	    json_string(cpu->freq_flags & PW_FREQ_AVG_FROM_STATS ? "time_in_state" : "scaling_cur_freq"));
	return obj;
}

static json_t *per_cpu_entry(struct doc *d, uint32_t id)
{
	const struct pw_cpu_sample *cpu = &d->cpus[id];
	bool shares = cpu->online && cpu->times.present && (cpu->derived_valid & PW_DERIVED_SHARES);
	json_t *obj = json_object();

	set(d, obj, "cpu", json_integer(id));
	set(d, obj, "online", json_boolean(cpu->online));
	set(d, obj, "busy_percent", shares ? busy_percent(cpu->share, cpu->times.nmodes) : json_null());
	set(d, obj, "modes_percent", shares ? modes_percent(d, cpu->share, cpu->times.nmodes) : json_null());
	set(d, obj, "frequency", frequency(d, cpu));
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
	set(d, obj, "online", json_integer(online));
	set(d, obj, "busy_percent", shares ? busy_percent(s->derived.share, nmodes) : json_null());
	set(d, obj, "busy_cpus", shares ? json_integer(s->derived.busy_cpus) : json_null());
	set(d, obj, "modes_percent", shares ? modes_percent(d, s->derived.share, nmodes) : json_null());
	list = json_array();
	for (uint32_t c = 0; c < d->ncpu; c++)
		push(d, list, per_cpu_entry(d, c));
	set(d, obj, "per_cpu", list);
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
		set(d, obj, "irq",
		    json_stringn(lines[i].line.irq, strnlen(lines[i].line.irq, PW_IRQ_NAME_MAX)));
		set(d, obj, "device", string_or_null(lines[i].line.device, PW_IRQ_DEVICE_MAX));
		set(d, obj, "chip", string_or_null(lines[i].line.chip, PW_IRQ_CHIP_MAX));
		set(d, obj, "per_second", rate(prev_rate));
		push(d, list, obj);
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
		set(d, obj, "cpu", json_integer(c));
		set(d, obj, "per_second",
		    cpu->derived_valid & PW_DERIVED_RATES ? rate(cpu->interrupt_rate) : json_null());
		push(d, list, obj);
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
	set(d, obj, "per_second",
	    rates && isfinite(s->derived.intr_rate) ? rate(s->derived.intr_rate) : json_null());
	set(d, obj, "lines", json_integer(nlines));
	set(d, obj, "lines_dropped", json_integer(s->interrupts.dropped));
	set(d, obj, "top", rates ? top_lines(d, lines, nlines) : json_null());
	set(d, obj, "per_cpu_per_second", rates ? interrupts_per_cpu(d) : json_null());
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
	set(d, obj, "per_second", rates ? rate(s->derived.softirq_total_rate) : json_null());
	if (!rates) {
		set(d, obj, "top", json_null());
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
		set(d, item, "type", json_string(pw_softirq_name((enum pw_softirq_type)t)));
		set(d, item, "per_second", rate(prev_rate));
		push(d, list, item);
	}
	set(d, obj, "top", list);
	return obj;
}

/* The /proc/stat host figures sit at the top level of the document. */
static void stat_figures(struct doc *d, json_t *root)
{
	const struct pw_sample *s = d->sample;
	bool up = pw_sample_has(s, PW_SRC_STAT);
	bool rates = up && host_has(d, PW_DERIVED_RATES);
	uint32_t present = up ? s->stat.present : 0;

	set(d, root, "context_switches_per_second",
	    rates && (present & PW_PROCSTAT_HAS_CTXT) ? rate(s->derived.ctxt_rate) : json_null());
	set(d, root, "forks_per_second",
	    rates && (present & PW_PROCSTAT_HAS_PROCESSES) ? rate(s->derived.fork_rate) : json_null());
	set(d, root, "procs_running",
	    present & PW_PROCSTAT_HAS_PROCS_RUNNING ? json_integer((json_int_t)s->stat.procs_running)
	                                            : json_null());
	set(d, root, "procs_blocked",
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
		set(d, obj, rows[i].key,
		    mem->present & (1u << rows[i].field) ? real((double)mem->kb[rows[i].field] / 1024.0, 1)
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
	return rate(sum);
}

static json_t *paging_section(struct doc *d)
{
	json_t *obj;

	if (!pw_sample_has(d->sample, PW_SRC_VMSTAT))
		return json_null();
	obj = json_object();
	set(d, obj, "swap_in_per_second", vm_rate(d, 1u << PW_VM_PSWPIN));
	set(d, obj, "swap_out_per_second", vm_rate(d, 1u << PW_VM_PSWPOUT));
	set(d, obj, "paged_in_kib_per_second", vm_rate(d, 1u << PW_VM_PGPGIN));
	set(d, obj, "paged_out_kib_per_second", vm_rate(d, 1u << PW_VM_PGPGOUT));
	set(d, obj, "major_faults_per_second", vm_rate(d, 1u << PW_VM_PGMAJFAULT));
	set(d, obj, "refaults_per_second",
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
		set(d, obj, key, line->present ? json_real(avg[w] / 100.0) : json_null());
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
			set(d, obj, name, json_null());
			continue;
		}
		json_t *res = json_object();
		psi_kind(d, res, "some", &s->psi[r].some);
		psi_kind(d, res, "full", &s->psi[r].full);
		set(d, obj, name, res);
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
	set(d, obj, "load1", json_real(la->load1 / 100.0));
	set(d, obj, "load5", json_real(la->load5 / 100.0));
	set(d, obj, "load15", json_real(la->load15 / 100.0));
	set(d, obj, "runnable", json_integer(la->runnable));
	set(d, obj, "threads", json_integer(la->threads));
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

	set(d, obj, "samples_taken", json_integer((json_int_t)s->samples_taken));
	set(d, obj, "missed_deadlines", json_integer((json_int_t)s->missed_deadlines));
	set(d, obj, "last_duration_ms", real((double)s->duration_ns / 1e6, 2));
	set(d, obj, "counter_resets", json_integer((json_int_t)s->counter_resets));
	set(d, obj, "history_samples", d->self ? json_integer(d->self->history_samples) : json_null());
	for (unsigned i = 0; i < PW_SRC_COUNT; i++) {
		const char *name = pw_source_name((enum pw_source)i);
		set(d, sources, name, json_string(source_state(s, (enum pw_source)i)));
		set(d, errors, name, json_integer((json_int_t)s->parse_errors[i]));
	}
	set(d, obj, "sources", sources);
	set(d, obj, "parse_errors", errors);
	return obj;
}

static json_t *window_stat(struct doc *d, const struct pw_history_stat *stat, int decimals)
{
	json_t *obj;

	if (!isfinite(stat->avg))
		return json_null();
	obj = json_object();
	set(d, obj, "min", real(stat->min, decimals));
	set(d, obj, "avg", real(stat->avg, decimals));
	set(d, obj, "max", real(stat->max, decimals));
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
	set(d, obj, "samples", json_integer(h->points));
	set(d, obj, "span_seconds", real(h->span_seconds, 1));
	set(d, obj, "busy_percent", window_stat(d, &h->busy_percent, 1));
	set(d, obj, "interrupts_per_second", window_stat(d, &h->intr_rate, 0));
	set(d, obj, "context_switches_per_second", window_stat(d, &h->ctxt_rate, 0));
	set(d, obj, "swap_out_pages_per_second", window_stat(d, &h->swap_out_rate, 1));
	return obj;
}

static void build(struct doc *d, json_t *root)
{
	set(d, root, "status", json_string("ok"));
	set(d, root, "version", d->self && d->self->version ? json_string(d->self->version) : json_null());
	set(d, root, "sample", sample_section(d));
	set(d, root, "cpu", cpu_section(d));
	set(d, root, "interrupts", interrupts_section(d));
	set(d, root, "softirqs", softirqs_section(d));
	stat_figures(d, root);
	set(d, root, "memory", memory_section(d));
	set(d, root, "paging", paging_section(d));
	set(d, root, "pressure", pressure_section(d));
	set(d, root, "load", load_section(d));
	set(d, root, "recent", recent_section(d));
	set(d, root, "sampler", sampler_section(d));
}

/* json_dumps plus the trailing newline the contract promises. */
static char *dump(json_t *root)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	size_t len;
	char *grown;

	if (!text)
		return NULL;
	len = strlen(text);
	grown = realloc(text, len + 2);
	if (!grown) {
		free(text);
		return NULL;
	}
	grown[len] = '\n';
	grown[len + 1] = '\0';
	return grown;
}

char *pw_status_render(const struct pw_sample *sample, const struct pw_status_self *self)
{
	struct doc d = {.sample = sample, .self = self};
	json_t *root = json_object();
	char *text = NULL;

	if (!root)
		return NULL;
	if (sample) {
		d.cpus = pw_sample_cpus_const(sample);
		d.ncpu = sample->ncpu < sample->cpu_cap ? sample->ncpu : sample->cpu_cap;
		build(&d, root);
	} else {
		set(&d, root, "status", json_string("starting"));
	}
	set(&d, root, "alerts", json_array());
	if (!d.failed)
		text = dump(root);
	json_decref(root);
	return text;
}
