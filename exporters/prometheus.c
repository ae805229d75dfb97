/* prometheus.c — one sample as Prometheus text exposition 0.0.4 or OpenMetrics 1.0.0.
 *
 * Families are rows of one table (name, type, unit, help); each section of the sample walks its part
 * of the table and writes series straight into the output buffer. A family's HELP/TYPE banner is
 * written lazily before its first series, so a family with nothing to show is omitted entirely.
 * Kernel units are converted to base units here: ticks / USER_HZ and microseconds are printed as
 * exact decimals, kB and pages become bytes, kHz becomes hertz. When the daemon passes the detector's
 * snapshot, its active alerts (like Prometheus' ALERTS) and its signals' baselines follow the sample.
 *
 * Formats: https://prometheus.io/docs/instrumenting/exposition_formats/ and
 * https://github.com/OpenObservability/OpenMetrics/blob/main/specification/OpenMetrics.md.
 * The two differ only in the banners (prom_family.h) and OpenMetrics' closing "# EOF". */
#define _GNU_SOURCE /* strchrnul */
#include "prometheus.h"

#include "prom_family.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <string.h>

enum fam_id {
	F_CPU_SECONDS,
	F_CPU_GUEST_SECONDS,
	F_INTR,
	F_CONTEXT_SWITCHES,
	F_FORKS,
	F_PROCS_RUNNING,
	F_PROCS_BLOCKED,
	F_BOOT_TIME,
	F_INTERRUPTS,
	F_INTERRUPTS_PER_CPU,
	F_CPU_INTERRUPTS,
	F_SOFTIRQS,
	F_CPU_SOFTIRQS,
	F_FREQ_HERTZ,
	F_FREQ_RATIO,
	F_SCALING_FREQ,
	F_FREQ_MIN,
	F_FREQ_MAX,
	F_FREQ_INFO,
	F_SWAP_IN,
	F_SWAP_OUT,
	F_PAGED_IN,
	F_PAGED_OUT,
	F_PAGE_FAULTS,
	F_MAJOR_FAULTS,
	F_REFAULTS,
	F_ACTIVATIONS,
	F_SCANNED,
	F_RECLAIMED,
	F_OOM_KILLS,
	F_MEM_TOTAL,
	F_MEM_FREE,
	F_MEM_AVAILABLE,
	F_MEM_BUFFERS,
	F_MEM_CACHED,
	F_MEM_SWAP_CACHED,
	F_MEM_ACTIVE_FILE,
	F_MEM_INACTIVE_FILE,
	F_MEM_ACTIVE_ANON,
	F_MEM_INACTIVE_ANON,
	F_MEM_DIRTY,
	F_MEM_WRITEBACK,
	F_MEM_SHMEM,
	F_MEM_SRECLAIMABLE,
	F_SWAP_TOTAL,
	F_SWAP_FREE,
	F_PSI_STALLED,
	F_PSI_RATIO,
	F_LOAD1,
	F_LOAD5,
	F_LOAD15,
	F_THREADS,
	F_SAMPLES,
	F_LAST_SAMPLE_DURATION,
	F_SAMPLE_DURATION_TOTAL,
	F_MISSED_DEADLINES,
	F_COUNTER_RESETS,
	F_PARSE_ERRORS,
	F_SOURCE_UP,
	F_SOURCE_PRESENT,
	F_LINES_DROPPED,
	F_LAST_SAMPLE_TIME,
	F_ALERTS,
	F_BASELINE_MEAN,
	F_BASELINE_SPREAD,
	F_DETECTOR_WARM,
	F_DETECTOR_MISSED,
	F_INTERVAL,
	F_HISTORY_CAPACITY,
	F_HISTORY_BYTES,
	F_SCRAPE_DURATION,
	F_SCRAPES,
	F_BUILD,
	F_COUNT
};

/* docs/metrics.md describes every row (tests/e2e/test_metrics_doc.sh checks both ways). */
static const struct pw_prom_family families[F_COUNT] = {
        [F_CPU_SECONDS] = PW_PROM_COUNTER_UNIT("cpu_seconds", "seconds",
                                               "Time each CPU spent in each mode (/proc/stat cpuN)."),
        [F_CPU_GUEST_SECONDS] =
                PW_PROM_COUNTER_UNIT("cpu_guest_seconds", "seconds",
                                     "Time each CPU spent running guests, already included in cpu_seconds "
                                     "user/nice (/proc/stat cpuN guest, guest_nice)."),
        [F_INTR] = PW_PROM_COUNTER("intr", "Interrupts serviced, all sources (/proc/stat intr)."),
        [F_CONTEXT_SWITCHES] = PW_PROM_COUNTER("context_switches", "Context switches (/proc/stat ctxt)."),
        [F_FORKS] = PW_PROM_COUNTER("forks", "Processes and threads created (/proc/stat processes)."),
        [F_PROCS_RUNNING] = PW_PROM_GAUGE("procs_running", "Runnable tasks (/proc/stat procs_running)."),
        [F_PROCS_BLOCKED] =
                PW_PROM_GAUGE("procs_blocked", "Tasks blocked waiting for I/O (/proc/stat procs_blocked)."),
        [F_BOOT_TIME] = PW_PROM_GAUGE_UNIT("boot_time_seconds", "seconds",
                                           "Boot time in seconds since the Unix epoch (/proc/stat btime)."),
        [F_INTERRUPTS] = PW_PROM_COUNTER("interrupts",
                                         "Interrupts per IRQ line, summed over CPUs (/proc/interrupts)."),
        [F_INTERRUPTS_PER_CPU] =
                PW_PROM_COUNTER("interrupts_per_cpu", "Interrupts per IRQ line and CPU (/proc/interrupts)."),
        [F_CPU_INTERRUPTS] = PW_PROM_COUNTER("cpu_interrupts",
                                             "Interrupts per CPU, summed over IRQ lines (/proc/interrupts)."),
        [F_SOFTIRQS] = PW_PROM_COUNTER("softirqs", "Softirqs per type, summed over CPUs (/proc/softirqs)."),
        [F_CPU_SOFTIRQS] = PW_PROM_COUNTER("cpu_softirqs", "Softirqs per CPU and type (/proc/softirqs)."),
        [F_FREQ_HERTZ] = PW_PROM_GAUGE_UNIT("cpu_frequency_hertz", "hertz",
                                            "Average CPU frequency over the last sampling interval (cpufreq "
                                            "stats/time_in_state, else scaling_cur_freq)."),
        [F_FREQ_RATIO] = PW_PROM_GAUGE_UNIT(
                "cpu_frequency_ratio", "ratio",
                "Average CPU frequency over the last interval as a fraction of cpuinfo_max_freq (cpufreq); "
                "CpuFrequencyLow judges against base_frequency instead where the driver has one below it."),
        [F_SCALING_FREQ] = PW_PROM_GAUGE_UNIT(
                "cpu_scaling_frequency_hertz", "hertz",
                "Instantaneous CPU frequency the governor last set (cpufreq scaling_cur_freq)."),
        [F_FREQ_MIN] =
                PW_PROM_GAUGE_UNIT("cpu_frequency_min_hertz", "hertz",
                                   "Lowest CPU frequency the hardware supports (cpufreq cpuinfo_min_freq)."),
        [F_FREQ_MAX] =
                PW_PROM_GAUGE_UNIT("cpu_frequency_max_hertz", "hertz",
                                   "Highest CPU frequency the hardware supports (cpufreq cpuinfo_max_freq)."),
        [F_FREQ_INFO] = PW_PROM_INFO(
                "cpu_frequency",
                "CPU frequency scaling governor and driver, and where the average frequency comes "
                "from (cpufreq scaling_governor, scaling_driver)."),
        [F_SWAP_IN] =
                PW_PROM_COUNTER_UNIT("swap_in_bytes", "bytes", "Bytes swapped in (/proc/vmstat pswpin)."),
        [F_SWAP_OUT] =
                PW_PROM_COUNTER_UNIT("swap_out_bytes", "bytes", "Bytes swapped out (/proc/vmstat pswpout)."),
        [F_PAGED_IN] = PW_PROM_COUNTER_UNIT("paged_in_bytes", "bytes",
                                            "Bytes paged in from block devices (/proc/vmstat pgpgin)."),
        [F_PAGED_OUT] = PW_PROM_COUNTER_UNIT("paged_out_bytes", "bytes",
                                             "Bytes paged out to block devices (/proc/vmstat pgpgout)."),
        [F_PAGE_FAULTS] =
                PW_PROM_COUNTER("page_faults", "Page faults, minor and major (/proc/vmstat pgfault)."),
        [F_MAJOR_FAULTS] = PW_PROM_COUNTER("major_page_faults",
                                           "Page faults that needed I/O (/proc/vmstat pgmajfault)."),
        [F_REFAULTS] = PW_PROM_COUNTER(
                "workingset_refaults",
                "Refaults of recently evicted pages; type all on kernels before 5.9 (/proc/vmstat "
                "workingset_refault*)."),
        [F_ACTIVATIONS] = PW_PROM_COUNTER(
                "workingset_activations",
                "Refaulted pages activated immediately (/proc/vmstat workingset_activate_file)."),
        [F_SCANNED] = PW_PROM_COUNTER("pages_scanned", "Pages scanned by reclaim (/proc/vmstat pgscan_*)."),
        [F_RECLAIMED] = PW_PROM_COUNTER("pages_reclaimed", "Pages reclaimed (/proc/vmstat pgsteal_*)."),
        [F_OOM_KILLS] =
                PW_PROM_COUNTER("oom_kills", "Processes killed by the OOM killer (/proc/vmstat oom_kill)."),
        [F_MEM_TOTAL] =
                PW_PROM_GAUGE_UNIT("memory_total_bytes", "bytes", "Usable RAM (/proc/meminfo MemTotal)."),
        [F_MEM_FREE] =
                PW_PROM_GAUGE_UNIT("memory_free_bytes", "bytes", "Unused RAM (/proc/meminfo MemFree)."),
        [F_MEM_AVAILABLE] = PW_PROM_GAUGE_UNIT(
                "memory_available_bytes", "bytes",
                "RAM available for new work without swapping (/proc/meminfo MemAvailable)."),
        [F_MEM_BUFFERS] = PW_PROM_GAUGE_UNIT("memory_buffers_bytes", "bytes",
                                             "Block device buffers (/proc/meminfo Buffers)."),
        [F_MEM_CACHED] =
                PW_PROM_GAUGE_UNIT("memory_cached_bytes", "bytes", "Page cache (/proc/meminfo Cached)."),
        [F_MEM_SWAP_CACHED] =
                PW_PROM_GAUGE_UNIT("memory_swap_cached_bytes", "bytes",
                                   "Swapped-out memory also in RAM (/proc/meminfo SwapCached)."),
        [F_MEM_ACTIVE_FILE] = PW_PROM_GAUGE_UNIT("memory_active_file_bytes", "bytes",
                                                 "Recently used page cache (/proc/meminfo Active(file))."),
        [F_MEM_INACTIVE_FILE] =
                PW_PROM_GAUGE_UNIT("memory_inactive_file_bytes", "bytes",
                                   "Page cache that is a reclaim candidate (/proc/meminfo Inactive(file))."),
        [F_MEM_ACTIVE_ANON] =
                PW_PROM_GAUGE_UNIT("memory_active_anon_bytes", "bytes",
                                   "Recently used anonymous memory (/proc/meminfo Active(anon))."),
        [F_MEM_INACTIVE_ANON] = PW_PROM_GAUGE_UNIT(
                "memory_inactive_anon_bytes", "bytes",
                "Anonymous memory that is a swap candidate (/proc/meminfo Inactive(anon))."),
        [F_MEM_DIRTY] = PW_PROM_GAUGE_UNIT("memory_dirty_bytes", "bytes",
                                           "Memory waiting to be written back (/proc/meminfo Dirty)."),
        [F_MEM_WRITEBACK] = PW_PROM_GAUGE_UNIT("memory_writeback_bytes", "bytes",
                                               "Memory being written back (/proc/meminfo Writeback)."),
        [F_MEM_SHMEM] = PW_PROM_GAUGE_UNIT("memory_shmem_bytes", "bytes",
                                           "Shared memory and tmpfs (/proc/meminfo Shmem)."),
        [F_MEM_SRECLAIMABLE] =
                PW_PROM_GAUGE_UNIT("memory_slab_reclaimable_bytes", "bytes",
                                   "Reclaimable kernel slab memory (/proc/meminfo SReclaimable)."),
        [F_SWAP_TOTAL] =
                PW_PROM_GAUGE_UNIT("swap_total_bytes", "bytes", "Swap space (/proc/meminfo SwapTotal)."),
        [F_SWAP_FREE] =
                PW_PROM_GAUGE_UNIT("swap_free_bytes", "bytes", "Unused swap space (/proc/meminfo SwapFree)."),
        [F_PSI_STALLED] = PW_PROM_COUNTER_UNIT(
                "pressure_stalled_seconds", "seconds",
                "Time some or all tasks stalled on a resource (/proc/pressure/* total)."),
        [F_PSI_RATIO] = PW_PROM_GAUGE_UNIT(
                "pressure_ratio", "ratio",
                "Share of time some or all tasks stalled on a resource, averaged over a window "
                "(/proc/pressure/* avg10, avg60, avg300)."),
        [F_LOAD1] = PW_PROM_GAUGE("load1", "Load average over 1 minute (/proc/loadavg)."),
        [F_LOAD5] = PW_PROM_GAUGE("load5", "Load average over 5 minutes (/proc/loadavg)."),
        [F_LOAD15] = PW_PROM_GAUGE("load15", "Load average over 15 minutes (/proc/loadavg)."),
        [F_THREADS] = PW_PROM_GAUGE("threads", "Existing scheduling entities (/proc/loadavg)."),
        [F_SAMPLES] = PW_PROM_COUNTER("samples", "Samples taken by the sampler (perfwatch)."),
        [F_LAST_SAMPLE_DURATION] =
                PW_PROM_GAUGE_UNIT("last_sample_duration_seconds", "seconds",
                                   "Time spent reading and deriving the latest sample (perfwatch)."),
        [F_SAMPLE_DURATION_TOTAL] =
                PW_PROM_COUNTER_UNIT("sample_duration_seconds", "seconds",
                                     "Time spent reading and deriving all samples (perfwatch)."),
        [F_MISSED_DEADLINES] =
                PW_PROM_COUNTER("missed_deadlines",
                                "Samples not taken on time because the previous one overran (perfwatch)."),
        [F_COUNTER_RESETS] = PW_PROM_COUNTER(
                "resets_detected", "Kernel counters seen going backwards between samples (perfwatch)."),
        [F_PARSE_ERRORS] =
                PW_PROM_COUNTER("parse_errors", "Reads of a source that did not parse (perfwatch)."),
        [F_SOURCE_UP] =
                PW_PROM_GAUGE("source_up", "1 if the source parsed in the latest sample (perfwatch)."),
        [F_SOURCE_PRESENT] = PW_PROM_GAUGE("source_present", "1 if the source's file exists (perfwatch)."),
        [F_LINES_DROPPED] =
                PW_PROM_GAUGE("interrupt_lines_dropped",
                              "Lines of /proc/interrupts beyond the configured capacity (perfwatch)."),
        [F_LAST_SAMPLE_TIME] = PW_PROM_GAUGE_UNIT(
                "last_sample_timestamp_seconds", "seconds",
                "When the latest sample was read, in seconds since the Unix epoch (perfwatch)."),
        [F_ALERTS] = PW_PROM_GAUGE("alerts", "1 for each pending or firing alert, like the ALERTS series of "
                                             "Prometheus (perfwatch detector)."),
        [F_BASELINE_MEAN] = PW_PROM_GAUGE(
                "baseline_mean", "What a signal normally is: the exponentially weighted mean the "
                                 "detector compares it with, in the signal's unit (perfwatch detector)."),
        [F_BASELINE_SPREAD] = PW_PROM_GAUGE("baseline_spread",
                                            "How much a signal normally varies: the exponentially weighted "
                                            "standard deviation around baseline_mean (perfwatch detector)."),
        [F_DETECTOR_WARM] =
                PW_PROM_GAUGE("detector_warm", "1 once the baselines have learned for the warmup time, "
                                               "so the baseline rules can fire (perfwatch detector)."),
        [F_DETECTOR_MISSED] = PW_PROM_COUNTER(
                "detector_samples_missed", "Samples the detector could not read because it fell behind the "
                                           "sample ring (perfwatch detector)."),
        [F_INTERVAL] = PW_PROM_GAUGE_UNIT("interval_seconds", "seconds",
                                          "Configured sampling interval (perfwatch)."),
        [F_HISTORY_CAPACITY] =
                PW_PROM_GAUGE("history_capacity_samples", "Samples the history ring holds (perfwatch)."),
        [F_HISTORY_BYTES] =
                PW_PROM_GAUGE_UNIT("history_bytes", "bytes", "Memory held by the sample rings (perfwatch)."),
        [F_SCRAPE_DURATION] =
                PW_PROM_GAUGE_UNIT("scrape_duration_seconds", "seconds",
                                   "Time spent rendering the previous /metrics response (perfwatch)."),
        [F_SCRAPES] = PW_PROM_COUNTER("scrapes", "/metrics responses rendered (perfwatch)."),
        [F_BUILD] = PW_PROM_INFO("build", "perfwatch version (perfwatch)."),
};

/* Label names with the '="' that follows them, so writing one is a single fixed-size copy. */
enum label_name {
	L_CPU,
	L_MODE,
	L_IRQ,
	L_CHIP,
	L_DEVICE,
	L_TYPE,
	L_GOVERNOR,
	L_DRIVER,
	L_SOURCE,
	L_RESOURCE,
	L_KIND,
	L_WINDOW,
	L_BY,
	L_VERSION,
	L_ALERTNAME,
	L_ALERTSTATE,
	L_SEVERITY,
	L_SIGNAL,
	L_NONE
};

#define LABEL_NAME(name)                                                                                     \
	{                                                                                                    \
		name "=\"", sizeof(name "=\"") - 1                                                           \
	}

static const struct {
	const char *text;
	size_t len;
} label_names[L_NONE] = {
        [L_CPU] = LABEL_NAME("cpu"),
        [L_MODE] = LABEL_NAME("mode"),
        [L_IRQ] = LABEL_NAME("irq"),
        [L_CHIP] = LABEL_NAME("chip"),
        [L_DEVICE] = LABEL_NAME("device"),
        [L_TYPE] = LABEL_NAME("type"),
        [L_GOVERNOR] = LABEL_NAME("governor"),
        [L_DRIVER] = LABEL_NAME("driver"),
        [L_SOURCE] = LABEL_NAME("source"),
        [L_RESOURCE] = LABEL_NAME("resource"),
        [L_KIND] = LABEL_NAME("kind"),
        [L_WINDOW] = LABEL_NAME("window"),
        [L_BY] = LABEL_NAME("by"),
        [L_VERSION] = LABEL_NAME("version"),
        [L_ALERTNAME] = LABEL_NAME("alertname"),
        [L_ALERTSTATE] = LABEL_NAME("alertstate"),
        [L_SEVERITY] = LABEL_NAME("severity"),
        [L_SIGNAL] = LABEL_NAME("signal"),
};

/* Render state: the family being written and whether its banner and label set are open. */
struct render {
	struct pw_outbuf *out;
	const struct pw_sample *sample;
	const struct pw_cpu_sample *cpus;
	uint32_t ncpu; /* CPU records to look at: min(ncpu, cpu_cap) */
	bool om;
	bool per_cpu;
	const struct pw_prom_family *fam;
	bool banner_done;
	bool in_labels;
};

/* Appends that reserve and copy in line. After an allocation failure the output is incomplete and
 * the render reports -ENOMEM at the end. out->data is never NULL during a render. */
static inline void put(struct pw_outbuf *out, const char *bytes, size_t n)
{
	if (out->cap - out->len < n && pw_outbuf_reserve(out, n) < 0)
		return;
	memcpy(out->data + out->len, bytes, n);
	out->len += n;
}

#define PUT_LIT(out, lit) put(out, lit, sizeof(lit) - 1)

static inline void put_str(struct pw_outbuf *out, const char *str)
{
	put(out, str, strlen(str));
}

/* Length of the valid UTF-8 sequence at s[0..n) (RFC 3629), or 0 if it is not one. */
static size_t utf8_length(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t len;

	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xE0)
		lo = 0xA0; /* overlong */
	else if (s[0] == 0xED)
		hi = 0x9F; /* surrogates */
	else if (s[0] == 0xF0)
		lo = 0x90; /* overlong */
	else if (s[0] == 0xF4)
		hi = 0x8F; /* above U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

/* The slow path of put_label_value: escape \ " and newline, and replace bytes that are not UTF-8
 * (a label truncated inside a character) with U+FFFD, which Prometheus requires. */
static void put_escaped(struct pw_outbuf *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n;) {
		if (s[i] == '\\') {
			PUT_LIT(out, "\\\\");
		} else if (s[i] == '"') {
			PUT_LIT(out, "\\\"");
		} else if (s[i] == '\n') {
			PUT_LIT(out, "\\n");
		} else if (s[i] >= 0x80) {
			size_t len = utf8_length(s + i, n - i);
			if (len == 0)
				PUT_LIT(out, "\xEF\xBF\xBD");
			else
				put(out, str + i, len);
			i += len ? len : 1;
			continue;
		} else {
			put(out, str + i, 1);
		}
		i++;
	}
}

/* Bytes that end the fast path of put_label_value: the end of the string, or one needing care. */
static const uint8_t label_stop[256] = {
        [0] = 1, ['\\'] = 1, ['"'] = 1, ['\n'] = 1, [0x80 ... 0xFF] = 1,
};

/* A label value from the kernel: at most max bytes, escaped only when it needs it. One pass finds
 * the end and whether anything needs escaping. */
static void put_label_value(struct pw_outbuf *out, const char *str, size_t max)
{
	size_t n = 0;

	while (n < max && !label_stop[(unsigned char)str[n]])
		n++;
	if (n == max || str[n] == '\0') {
		put(out, str, n);
		return;
	}
	put_escaped(out, str, n + strnlen(str + n, max - n));
}

/* Start family id; its banner waits for the first series. */
static void family(struct render *r, enum fam_id id)
{
	assert(families[id].sample != NULL); /* every id has a row */
	r->fam = &families[id];
	r->banner_done = false;
}

/* Start a series of the current family: banner if first, then the sample name. */
static void series(struct render *r)
{
	if (!r->banner_done) {
		pw_prom_banner(r->out, r->om, r->fam);
		r->banner_done = true;
	}
	put(r->out, r->fam->sample, r->fam->sample_len);
	r->in_labels = false;
}

static void label_key(struct render *r, enum label_name key)
{
	put(r->out, r->in_labels ? "," : "{", 1);
	put(r->out, label_names[key].text, label_names[key].len);
	r->in_labels = true;
}

/* A label whose value we wrote ourselves (mode and type names): never needs escaping. */
static void label(struct render *r, enum label_name key, const char *value)
{
	label_key(r, key);
	put_str(r->out, value);
	put(r->out, "\"", 1);
}

/* A label whose value came from the kernel or the configuration. */
static void label_text(struct render *r, enum label_name key, const char *value, size_t max)
{
	label_key(r, key);
	put_label_value(r->out, value, max);
	put(r->out, "\"", 1);
}

static void label_u32(struct render *r, enum label_name key, uint32_t value)
{
	label_key(r, key);
	pw_outbuf_u64(r->out, value);
	put(r->out, "\"", 1);
}

static void value_begin(struct render *r)
{
	if (r->in_labels)
		PUT_LIT(r->out, "} ");
	else
		put(r->out, " ", 1);
}

static void value_u64(struct render *r, uint64_t value)
{
	value_begin(r);
	pw_outbuf_u64(r->out, value);
	put(r->out, "\n", 1);
}

static void value_ratio(struct render *r, uint64_t value, uint64_t divisor)
{
	value_begin(r);
	pw_outbuf_ratio(r->out, value, divisor);
	put(r->out, "\n", 1);
}

static void value_double(struct render *r, double value)
{
	value_begin(r);
	pw_outbuf_double(r->out, value);
	put(r->out, "\n", 1);
}

/* value * scale as an integer when it fits 64 bits (it always does for real counters). */
static void value_scaled(struct render *r, uint64_t value, uint64_t scale)
{
	if (scale != 0 && value > UINT64_MAX / scale)
		value_double(r, (double)value * (double)scale);
	else
		value_u64(r, value * scale);
}

/* A float from the derived figures, rounded to 6 decimals: floats carry about 7 digits, and
 * printing the double they widen to would show noise like 0.60000002384185791. */
static void value_float6(struct render *r, float value)
{
	if (!isfinite(value) || fabsf(value) >= 1e12f) {
		value_double(r, value);
		return;
	}
	int64_t micro = llround((double)value * 1e6);
	value_begin(r);
	if (micro < 0)
		put(r->out, "-", 1);
	pw_outbuf_ratio(r->out, (uint64_t)(micro < 0 ? -micro : micro), 1000000);
	put(r->out, "\n", 1);
}

/* One series with no labels. */
static void scalar_u64(struct render *r, enum fam_id id, uint64_t value)
{
	family(r, id);
	series(r);
	value_u64(r, value);
}

static void scalar_ratio(struct render *r, enum fam_id id, uint64_t value, uint64_t divisor)
{
	family(r, id);
	series(r);
	value_ratio(r, value, divisor);
}

static void scalar_double(struct render *r, enum fam_id id, double value)
{
	family(r, id);
	series(r);
	value_double(r, value);
}

static bool cpu_in_stat(const struct pw_cpu_sample *cpu)
{
	return cpu->online && cpu->times.present;
}

/* /proc/stat: mode times per CPU, then the host-wide counters. */
static void render_cpu_times(struct render *r)
{
	uint32_t hz = r->sample->user_hz;

	if (hz == 0) /* no unit to convert ticks with */
		return;
	family(r, F_CPU_SECONDS);
	for (uint32_t c = 0; c < r->ncpu; c++) {
		const struct pw_cpu_times *t = &r->cpus[c].times;
		unsigned nmodes = t->nmodes < PW_MODE_GUEST ? t->nmodes : PW_MODE_GUEST;
		if (!cpu_in_stat(&r->cpus[c]))
			continue;
		for (unsigned m = 0; m < nmodes; m++) {
			series(r);
			label_u32(r, L_CPU, c);
			label(r, L_MODE, pw_cpu_mode_name((enum pw_cpu_mode)m));
			value_ratio(r, t->ticks[m], hz);
		}
	}
	family(r, F_CPU_GUEST_SECONDS);
	for (uint32_t c = 0; c < r->ncpu; c++) {
		const struct pw_cpu_times *t = &r->cpus[c].times;
		if (!cpu_in_stat(&r->cpus[c]))
			continue;
		for (unsigned m = PW_MODE_GUEST; m < t->nmodes && m < PW_MODE_COUNT; m++) {
			series(r);
			label_u32(r, L_CPU, c);
			label(r, L_MODE, m == PW_MODE_GUEST ? "user" : "nice");
			value_ratio(r, t->ticks[m], hz);
		}
	}
}

static void render_stat(struct render *r)
{
	const struct pw_procstat *st = &r->sample->stat;

	if (!pw_sample_has(r->sample, PW_SRC_STAT))
		return;
	render_cpu_times(r);
	if (st->present & PW_PROCSTAT_HAS_INTR)
		scalar_u64(r, F_INTR, st->intr_total);
	if (st->present & PW_PROCSTAT_HAS_CTXT)
		scalar_u64(r, F_CONTEXT_SWITCHES, st->ctxt);
	if (st->present & PW_PROCSTAT_HAS_PROCESSES)
		scalar_u64(r, F_FORKS, st->processes);
	if (st->present & PW_PROCSTAT_HAS_PROCS_RUNNING)
		scalar_u64(r, F_PROCS_RUNNING, st->procs_running);
	if (st->present & PW_PROCSTAT_HAS_PROCS_BLOCKED)
		scalar_u64(r, F_PROCS_BLOCKED, st->procs_blocked);
	if (st->present & PW_PROCSTAT_HAS_BTIME)
		scalar_u64(r, F_BOOT_TIME, st->btime);
}

static void render_interrupts_per_cpu(struct render *r, const struct pw_line_sample *lines, uint32_t nlines)
{
	const uint64_t *matrix = pw_sample_matrix_const(r->sample);

	if (!r->per_cpu || !matrix)
		return;
	family(r, F_INTERRUPTS_PER_CPU);
	for (uint32_t l = 0; l < nlines; l++) {
		const struct pw_irq_line *line = &lines[l].line;
		const uint64_t *row = matrix + (size_t)l * r->sample->cpu_cap;
		/* ERR and MIS carry one host-wide count and no per-CPU columns. */
		if (line->flags & PW_IRQ_LINE_SINGLE_TOTAL)
			continue;
		for (uint32_t c = 0; c < r->ncpu; c++) {
			if (!r->cpus[c].in_interrupts)
				continue;
			series(r);
			label_text(r, L_IRQ, line->irq, sizeof(line->irq));
			label_text(r, L_DEVICE, line->device, sizeof(line->device));
			label_u32(r, L_CPU, c);
			value_u64(r, row[c]);
		}
	}
}

static void render_interrupts(struct render *r)
{
	const struct pw_line_sample *lines = pw_sample_lines_const(r->sample);
	uint32_t nlines = r->sample->nlines < r->sample->line_cap ? r->sample->nlines : r->sample->line_cap;

	if (!pw_sample_has(r->sample, PW_SRC_INTERRUPTS))
		return;
	family(r, F_INTERRUPTS);
	for (uint32_t l = 0; l < nlines; l++) {
		const struct pw_irq_line *line = &lines[l].line;
		series(r);
		label_text(r, L_IRQ, line->irq, sizeof(line->irq));
		label_text(r, L_CHIP, line->chip, sizeof(line->chip));
		label_text(r, L_DEVICE, line->device, sizeof(line->device));
		value_u64(r, line->total);
	}
	render_interrupts_per_cpu(r, lines, nlines);
	family(r, F_CPU_INTERRUPTS);
	for (uint32_t c = 0; c < r->ncpu; c++) {
		if (!r->cpus[c].in_interrupts)
			continue;
		series(r);
		label_u32(r, L_CPU, c);
		value_u64(r, r->cpus[c].interrupts);
	}
}

static void render_softirqs(struct render *r)
{
	const struct pw_softirqs *si = &r->sample->softirqs;

	if (!pw_sample_has(r->sample, PW_SRC_SOFTIRQS))
		return;
	family(r, F_SOFTIRQS);
	for (unsigned t = 0; t < PW_SOFTIRQ_COUNT; t++) {
		if (!(si->present & (1u << t)))
			continue;
		series(r);
		label(r, L_TYPE, pw_softirq_name((enum pw_softirq_type)t));
		value_u64(r, si->total[t]);
	}
	if (!r->per_cpu)
		return;
	family(r, F_CPU_SOFTIRQS);
	for (uint32_t c = 0; c < r->ncpu; c++) {
		if (!r->cpus[c].in_softirqs)
			continue;
		for (unsigned t = 0; t < PW_SOFTIRQ_COUNT; t++) {
			if (!(si->present & (1u << t)))
				continue;
			series(r);
			label_u32(r, L_CPU, c);
			label(r, L_TYPE, pw_softirq_name((enum pw_softirq_type)t));
			value_u64(r, r->cpus[c].softirq[t]);
		}
	}
}

enum freq_field { FREQ_AVG, FREQ_RATIO, FREQ_CUR, FREQ_MIN, FREQ_MAX };

/* One per-CPU cpufreq gauge family. Zero kHz means "not read": no CPU runs at 0 Hz. */
static void render_freq_family(struct render *r, enum fam_id id, enum freq_field field)
{
	family(r, id);
	for (uint32_t c = 0; c < r->ncpu; c++) {
		const struct pw_cpu_sample *cpu = &r->cpus[c];
		bool derived = cpu->derived_valid & PW_DERIVED_FREQ;
		uint32_t khz = field == FREQ_AVG   ? cpu->avg_khz
		               : field == FREQ_CUR ? cpu->cur_khz
		               : field == FREQ_MIN ? cpu->min_khz
		                                   : cpu->max_khz;
		if (!(cpu->freq_flags & PW_FREQ_HAS_CPUFREQ))
			continue;
		if ((field == FREQ_AVG || field == FREQ_RATIO) && !derived)
			continue;
		if (field != FREQ_RATIO && khz == 0)
			continue;
		series(r);
		label_u32(r, L_CPU, c);
		if (field == FREQ_RATIO)
			value_float6(r, cpu->freq_ratio);
		else
			value_u64(r, (uint64_t)khz * 1000);
	}
}

static void render_cpufreq(struct render *r)
{
	if (!pw_sample_has(r->sample, PW_SRC_CPUFREQ))
		return;
	render_freq_family(r, F_FREQ_HERTZ, FREQ_AVG);
	render_freq_family(r, F_FREQ_RATIO, FREQ_RATIO);
	render_freq_family(r, F_SCALING_FREQ, FREQ_CUR);
	render_freq_family(r, F_FREQ_MIN, FREQ_MIN);
	render_freq_family(r, F_FREQ_MAX, FREQ_MAX);
	family(r, F_FREQ_INFO);
	for (uint32_t c = 0; c < r->ncpu; c++) {
		const struct pw_cpu_sample *cpu = &r->cpus[c];
		if (!(cpu->freq_flags & PW_FREQ_HAS_CPUFREQ))
			continue;
		series(r);
		label_u32(r, L_CPU, c);
		label_text(r, L_GOVERNOR, cpu->governor, sizeof(cpu->governor));
		label_text(r, L_DRIVER, cpu->driver, sizeof(cpu->driver));
		label(r, L_SOURCE,
		      cpu->freq_flags & PW_FREQ_AVG_FROM_STATS ? "time_in_state" : "scaling_cur_freq");
		value_u64(r, 1);
	}
}

enum scale { SCALE_ONE, SCALE_PAGE, SCALE_KIB };

/* One kernel counter or gauge as one series; rows of the same family are adjacent. */
struct table_row {
	uint8_t field;
	uint8_t family;
	uint8_t scale;
	uint8_t label; /* enum label_name; L_NONE: no label */
	const char *label_value;
};

static const struct table_row vmstat_rows[] = {
        {PW_VM_PSWPIN, F_SWAP_IN, SCALE_PAGE, L_NONE, NULL},
        {PW_VM_PSWPOUT, F_SWAP_OUT, SCALE_PAGE, L_NONE, NULL},
        {PW_VM_PGPGIN, F_PAGED_IN, SCALE_KIB, L_NONE, NULL},
        {PW_VM_PGPGOUT, F_PAGED_OUT, SCALE_KIB, L_NONE, NULL},
        {PW_VM_PGFAULT, F_PAGE_FAULTS, SCALE_ONE, L_NONE, NULL},
        {PW_VM_PGMAJFAULT, F_MAJOR_FAULTS, SCALE_ONE, L_NONE, NULL},
        {PW_VM_WORKINGSET_REFAULT_ANON, F_REFAULTS, SCALE_ONE, L_TYPE, "anon"},
        {PW_VM_WORKINGSET_REFAULT_FILE, F_REFAULTS, SCALE_ONE, L_TYPE, "file"},
        {PW_VM_WORKINGSET_REFAULT, F_REFAULTS, SCALE_ONE, L_TYPE, "all"},
        {PW_VM_WORKINGSET_ACTIVATE_FILE, F_ACTIVATIONS, SCALE_ONE, L_TYPE, "file"},
        {PW_VM_PGSCAN_KSWAPD, F_SCANNED, SCALE_ONE, L_BY, "kswapd"},
        {PW_VM_PGSCAN_DIRECT, F_SCANNED, SCALE_ONE, L_BY, "direct"},
        {PW_VM_PGSTEAL_KSWAPD, F_RECLAIMED, SCALE_ONE, L_BY, "kswapd"},
        {PW_VM_PGSTEAL_DIRECT, F_RECLAIMED, SCALE_ONE, L_BY, "direct"},
        {PW_VM_OOM_KILL, F_OOM_KILLS, SCALE_ONE, L_NONE, NULL},
};

static const struct table_row meminfo_rows[] = {
        {PW_MEM_TOTAL, F_MEM_TOTAL, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_FREE, F_MEM_FREE, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_AVAILABLE, F_MEM_AVAILABLE, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_BUFFERS, F_MEM_BUFFERS, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_CACHED, F_MEM_CACHED, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_SWAP_CACHED, F_MEM_SWAP_CACHED, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_ACTIVE_FILE, F_MEM_ACTIVE_FILE, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_INACTIVE_FILE, F_MEM_INACTIVE_FILE, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_ACTIVE_ANON, F_MEM_ACTIVE_ANON, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_INACTIVE_ANON, F_MEM_INACTIVE_ANON, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_DIRTY, F_MEM_DIRTY, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_WRITEBACK, F_MEM_WRITEBACK, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_SHMEM, F_MEM_SHMEM, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_SRECLAIMABLE, F_MEM_SRECLAIMABLE, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_SWAP_TOTAL, F_SWAP_TOTAL, SCALE_KIB, L_NONE, NULL},
        {PW_MEM_SWAP_FREE, F_SWAP_FREE, SCALE_KIB, L_NONE, NULL},
};

/* Rows whose present bit is set; a row that needs the page size is skipped without one. */
static void render_table(struct render *r, const struct table_row *rows, size_t nrows, const uint64_t *values,
                         uint32_t present)
{
	int current = -1;

	for (size_t i = 0; i < nrows; i++) {
		const struct table_row *row = &rows[i];
		uint64_t scale = row->scale == SCALE_PAGE  ? r->sample->page_size
		                 : row->scale == SCALE_KIB ? 1024
		                                           : 1;
		if (!(present & (1u << row->field)) || scale == 0)
			continue;
		if (row->family != current) {
			family(r, (enum fam_id)row->family);
			current = row->family;
		}
		series(r);
		if (row->label != L_NONE)
			label(r, (enum label_name)row->label, row->label_value);
		value_scaled(r, values[row->field], scale);
	}
}

static void render_vmstat(struct render *r)
{
	const struct pw_vmstat *vm = &r->sample->vmstat;

	if (pw_sample_has(r->sample, PW_SRC_VMSTAT))
		render_table(r, vmstat_rows, sizeof(vmstat_rows) / sizeof(vmstat_rows[0]), vm->value,
		             vm->present);
}

static void render_meminfo(struct render *r)
{
	const struct pw_meminfo *mem = &r->sample->meminfo;

	if (pw_sample_has(r->sample, PW_SRC_MEMINFO))
		render_table(r, meminfo_rows, sizeof(meminfo_rows) / sizeof(meminfo_rows[0]), mem->kb,
		             mem->present);
}

/* The some/full line of a resource, or NULL when the file had none. */
static const struct pw_psi_line *psi_line(const struct pw_sample *sample, unsigned res, unsigned kind)
{
	const struct pw_psi_line *line = kind == 0 ? &sample->psi[res].some : &sample->psi[res].full;

	return (sample->psi_present & (1u << res)) && line->present ? line : NULL;
}

static void render_pressure(struct render *r)
{
	static const char *const kinds[] = {"some", "full"};
	static const char *const windows[] = {"10s", "60s", "300s"};

	if (!pw_sample_has(r->sample, PW_SRC_PRESSURE))
		return;
	family(r, F_PSI_STALLED);
	for (unsigned res = 0; res < PW_PSI_COUNT; res++)
		for (unsigned k = 0; k < 2; k++) {
			const struct pw_psi_line *line = psi_line(r->sample, res, k);
			if (!line)
				continue;
			series(r);
			label(r, L_RESOURCE, pw_psi_resource_name((enum pw_psi_resource)res));
			label(r, L_KIND, kinds[k]);
			value_ratio(r, line->total_us, 1000000);
		}
	family(r, F_PSI_RATIO);
	for (unsigned res = 0; res < PW_PSI_COUNT; res++)
		for (unsigned k = 0; k < 2; k++) {
			const struct pw_psi_line *line = psi_line(r->sample, res, k);
			const uint32_t avg[] = {line ? line->avg10 : 0, line ? line->avg60 : 0,
			                        line ? line->avg300 : 0};
			for (unsigned w = 0; line && w < 3; w++) {
				series(r);
				label(r, L_RESOURCE, pw_psi_resource_name((enum pw_psi_resource)res));
				label(r, L_KIND, kinds[k]);
				label(r, L_WINDOW, windows[w]);
				value_ratio(r, avg[w], 10000); /* hundredths of a percent */
			}
		}
}

static void render_loadavg(struct render *r)
{
	const struct pw_loadavg *la = &r->sample->loadavg;

	if (!pw_sample_has(r->sample, PW_SRC_LOADAVG))
		return;
	scalar_ratio(r, F_LOAD1, la->load1, 100);
	scalar_ratio(r, F_LOAD5, la->load5, 100);
	scalar_ratio(r, F_LOAD15, la->load15, 100);
	scalar_u64(r, F_THREADS, la->threads);
}

/* One series per source, labelled source="stat" etc. */
static void render_per_source(struct render *r, enum fam_id id, const uint64_t *values, uint32_t bits)
{
	family(r, id);
	for (unsigned s = 0; s < PW_SRC_COUNT; s++) {
		series(r);
		label(r, L_SOURCE, pw_source_name((enum pw_source)s));
		value_u64(r, values ? values[s] : (bits >> s) & 1u);
	}
}

static uint64_t nonneg(int64_t value)
{
	return value > 0 ? (uint64_t)value : 0;
}

/* The sampler's own counters, carried by the sample. */
static void render_sampler(struct render *r)
{
	const struct pw_sample *s = r->sample;

	scalar_u64(r, F_SAMPLES, s->samples_taken);
	scalar_ratio(r, F_LAST_SAMPLE_DURATION, nonneg(s->duration_ns), 1000000000);
	scalar_ratio(r, F_SAMPLE_DURATION_TOTAL, s->duration_total_ns, 1000000000);
	scalar_u64(r, F_MISSED_DEADLINES, s->missed_deadlines);
	scalar_u64(r, F_COUNTER_RESETS, s->counter_resets);
	render_per_source(r, F_PARSE_ERRORS, s->parse_errors, 0);
	render_per_source(r, F_SOURCE_UP, NULL, s->source_up);
	render_per_source(r, F_SOURCE_PRESENT, NULL, s->source_present);
	if (pw_sample_has(s, PW_SRC_INTERRUPTS))
		scalar_u64(r, F_LINES_DROPPED, s->interrupts.dropped);
	scalar_ratio(r, F_LAST_SAMPLE_TIME, nonneg(s->real_ns), 1000000000);
}

/* The detector: its active alerts as Prometheus' ALERTS would show them, then the band each
 * signal normally moves in, so a dashboard can draw the live value inside it. */
static void render_detector(struct render *r, const struct pw_detector_view *view)
{
	uint32_t nalerts = view->nalerts < PW_ALERT_COUNT ? view->nalerts : PW_ALERT_COUNT;

	family(r, F_ALERTS);
	for (uint32_t i = 0; i < nalerts; i++) {
		const struct pw_alert *a = &view->alerts[i];
		if (a->state != PW_ALERT_PENDING && a->state != PW_ALERT_FIRING)
			continue;
		series(r);
		label(r, L_ALERTNAME, pw_alert_name_str(a->name));
		label(r, L_ALERTSTATE, pw_alert_state_str(a->state));
		label(r, L_SEVERITY, pw_severity_str(a->severity));
		value_u64(r, 1);
	}
	for (int spread = 0; spread <= 1; spread++) {
		family(r, spread ? F_BASELINE_SPREAD : F_BASELINE_MEAN);
		for (unsigned sig = 0; sig < PW_SIG_COUNT; sig++) {
			const struct pw_baseline *b = &view->baselines[sig];
			if (!(b->learned_s > 0)) /* nothing learned yet: no band to draw */
				continue;
			series(r);
			label(r, L_SIGNAL, pw_signal_name((enum pw_signal)sig));
			value_double(r, spread ? sqrt(b->var > 0 ? b->var : 0) : b->mean);
		}
	}
	scalar_u64(r, F_DETECTOR_WARM, view->warm);
	scalar_u64(r, F_DETECTOR_MISSED, view->samples_missed);
}

/* What the daemon knows about itself. */
static void render_self(struct render *r, const struct pw_prom_self *self)
{
	scalar_double(r, F_INTERVAL, self->interval_seconds);
	scalar_u64(r, F_HISTORY_CAPACITY, self->history_capacity);
	scalar_u64(r, F_HISTORY_BYTES, self->history_bytes);
	if (self->last_scrape_seconds >= 0)
		scalar_double(r, F_SCRAPE_DURATION, self->last_scrape_seconds);
	scalar_u64(r, F_SCRAPES, self->scrapes_total);
	family(r, F_BUILD);
	series(r);
	label_text(r, L_VERSION, self->version ? self->version : "unknown", SIZE_MAX);
	value_u64(r, 1);
}

const char *pw_prom_content_type(enum pw_prom_format format)
{
	return format == PW_PROM_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
	                                     : "text/plain; version=0.0.4; charset=utf-8";
}

/* True when the media range at s (up to the next comma) has a q parameter equal to zero. */
static bool range_refused(const char *s)
{
	const char *end = strchr(s, ',');

	if (!end)
		end = s + strlen(s);
	for (const char *p = s; p < end; p++) {
		if (*p != ';')
			continue;
		p++;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p + 1 < end && (*p == 'q' || *p == 'Q') && p[1] == '=') {
			p += 2;
			if (p >= end || *p != '0')
				return false;
			for (p++; p < end && (*p == '.' || *p == '0'); p++)
				;
			return p == end || *p == ' ' || *p == '\t' || *p == ';';
		}
	}
	return false;
}

enum pw_prom_format pw_prom_negotiate(const char *accept)
{
	static const char media[] = "application/openmetrics-text";
	const size_t n = sizeof(media) - 1;

	/* One pass over the media ranges, each read up to its comma: linear in the header's length. (A
	 * search for the type from each match on rescanned the rest of the header: 32 KB of refused
	 * ranges took 6.7 ms of the one HTTP thread.) */
	for (const char *p = accept; p && *p;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		const char *end = strchrnul(p, ',');
		if ((size_t)(end - p) >= n && strncasecmp(p, media, n) == 0 &&
		    (p + n == end || p[n] == ';' || p[n] == ' ' || p[n] == '\t') && !range_refused(p + n))
			return PW_PROM_OPENMETRICS;
		p = end;
	}
	return PW_PROM_TEXT;
}

int pw_prom_render(struct pw_outbuf *out, const struct pw_sample *sample,
                   const struct pw_prom_options *options, const struct pw_prom_self *self)
{
	struct render r = {.out = out, .sample = sample};

	if (pw_outbuf_reserve(out, sample ? 16384 : 2048) < 0)
		return -ENOMEM;
	r.om = options && options->format == PW_PROM_OPENMETRICS;
	r.per_cpu = options && options->interrupts_per_cpu;
	if (sample) {
		r.cpus = pw_sample_cpus_const(sample);
		r.ncpu = sample->ncpu < sample->cpu_cap ? sample->ncpu : sample->cpu_cap;
		render_stat(&r);
		render_interrupts(&r);
		render_softirqs(&r);
		render_cpufreq(&r);
		render_vmstat(&r);
		render_meminfo(&r);
		render_pressure(&r);
		render_loadavg(&r);
		render_sampler(&r);
	}
	if (self && self->detector)
		render_detector(&r, self->detector);
	if (self)
		render_self(&r, self);
	if (self && self->http)
		pw_http_prom_render(out, r.om, self->http);
	if (self && self->notify)
		pw_notify_prom_render(out, r.om, self->notify);
	if (self && self->files)
		pw_files_prom_render(out, r.om, self->files);
	if (r.om)
		PUT_LIT(out, "# EOF\n");
	return pw_outbuf_ok(out) ? 0 : -ENOMEM;
}
