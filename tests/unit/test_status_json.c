/* test_status_json.c — the /status document of a hand-built sample: golden file
 * (PW_REGENERATE_GOLDEN=1 rewrites it), parsed back with jansson for specific values, nulls where a
 * source is down or a derived figure is missing, the document before the first sample, and the
 * detector's part: alerts, diagnosis and state while learning, when quiet, with alerts, and off. */
#include "alerts_json.h"
#include "fixture_util.h"
#include "json_assert.h"
#include "status_json.h"
#include "status_text.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_CAP 4
#define LINE_CAP 8
#define GOLDEN_STATUS "golden/exporters/status.json"

/* A warm detector with nothing to report: what the daemon usually shows. */
static const struct pw_detector_view quiet_view = {
        .samples_seen = 3600,
        .samples_missed = 2,
        .real_ns = 1700000000123456789,
        .warm = true,
};

static const struct pw_status_self test_self = {
        .version = "0.1.0-test",
        .interval_seconds = 1.0,
        .now_real_ns = 1700000000623456789,
        .now_mono_ns = 5400000000,
        .history_samples = 42,
        .top_n = 3,
        .detector = &quiet_view,
};

static void set_line(struct pw_sample *s, uint32_t i, const char *irq, const char *chip, const char *device,
                     uint64_t total, float rate)
{
	struct pw_line_sample *line = &pw_sample_lines(s)[i];

	snprintf(line->line.irq, sizeof(line->line.irq), "%s", irq);
	snprintf(line->line.chip, sizeof(line->line.chip), "%s", chip);
	snprintf(line->line.device, sizeof(line->line.device), "%s", device);
	line->line.total = total;
	line->rate = rate;
}

/* Two online CPUs and an offline one; cpu0 busy 40% at half its maximum frequency, cpu1 idle. */
static void fill_cpus(struct pw_sample *s)
{
	static const float shares[2][PW_MODE_COUNT] = {
	        {0.30f, 0.0f, 0.10f, 0.55f, 0.05f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f},
	        {0.004f, 0.0f, 0.006f, 0.99f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f},
	};
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);

	s->ncpu = 3;
	for (int c = 0; c < 2; c++) {
		cpus[c].online = cpus[c].times.present = cpus[c].in_interrupts = cpus[c].in_softirqs = true;
		cpus[c].times.nmodes = PW_MODE_COUNT;
		cpus[c].derived_valid = PW_DERIVED_SHARES | PW_DERIVED_RATES;
		memcpy(cpus[c].share, shares[c], sizeof(shares[c]));
		for (int m = 0; m < PW_MODE_COUNT; m++)
			s->derived.share[m] += shares[c][m] / 2;
	}
	cpus[0].interrupt_rate = 1234.4f;
	cpus[1].interrupt_rate = 56.78f;
	cpus[0].freq_flags = PW_FREQ_HAS_CPUFREQ | PW_FREQ_HAS_TIME_IN_STATE | PW_FREQ_AVG_FROM_STATS;
	cpus[0].derived_valid |= PW_DERIVED_FREQ;
	cpus[0].cur_khz = 2400000;
	cpus[0].max_khz = 3600000;
	cpus[0].avg_khz = 1800400;
	cpus[0].freq_ratio = 1800400.0f / 3600000.0f;
	snprintf(cpus[0].governor, sizeof(cpus[0].governor), "schedutil");
	snprintf(cpus[0].driver, sizeof(cpus[0].driver), "acpi-cpufreq");
	s->stat.total.nmodes = PW_MODE_COUNT;
	s->stat.present = 0x7f;
	s->stat.procs_running = 3;
	s->stat.procs_blocked = 1;
	s->derived.intr_rate = 1501.26f; /* /proc/stat intr: what the interrupts total shows */
	s->derived.ctxt_rate = 15000.4f;
	s->derived.fork_rate = 2.25f;
	s->derived.busy_cpus = 0;
}

static void fill_interrupts(struct pw_sample *s)
{
	set_line(s, 0, "0", "IO-APIC", "2-edge timer", 44, 0.0f);
	set_line(s, 1, "24", "PCI-MSIX-0000:00:04.0", "virtio0-\"q\\0\"", 300, 250.0f);
	set_line(s, 2, "25", "PCI-MSI", "eth0", 7, 1.26f);
	set_line(s, 3, "LOC", "", "Local timer interrupts", 50000, 1000.0f);
	set_line(s, 4, "RES", "", "Rescheduling interrupts", 500, 250.0f);
	s->nlines = 5;
	s->interrupts.nlines = 5;
	s->interrupts.dropped = 2;
}

static void fill_rest(struct pw_sample *s)
{
	s->softirqs.present = (1u << PW_SOFTIRQ_COUNT) - 1;
	s->derived.softirq_rate[PW_SOFTIRQ_TIMER] = 500;
	s->derived.softirq_rate[PW_SOFTIRQ_NET_RX] = 42.42f;
	s->derived.softirq_rate[PW_SOFTIRQ_RCU] = 300;
	s->derived.softirq_rate[PW_SOFTIRQ_SCHED] = 0.05f;
	s->derived.softirq_total_rate = 842.47f;
	s->meminfo.kb[PW_MEM_TOTAL] = 16303428;
	s->meminfo.kb[PW_MEM_AVAILABLE] = 8151714;
	s->meminfo.kb[PW_MEM_FREE] = 1024;
	s->meminfo.kb[PW_MEM_SWAP_TOTAL] = 0;
	s->meminfo.present = ((1u << PW_MEM_COUNT) - 1) & ~(1u << PW_MEM_DIRTY);
	s->vmstat.present = ((1u << PW_VM_COUNT) - 1) & ~(1u << PW_VM_WORKINGSET_REFAULT);
	s->derived.vm_rate[PW_VM_PSWPIN] = 12.5f;
	s->derived.vm_rate[PW_VM_PGPGIN] = 4096;
	s->derived.vm_rate[PW_VM_PGMAJFAULT] = 3;
	s->derived.vm_rate[PW_VM_WORKINGSET_REFAULT_ANON] = 1.5f;
	s->derived.vm_rate[PW_VM_WORKINGSET_REFAULT_FILE] = 2.5f;
	s->derived.vm_rate[PW_VM_WORKINGSET_REFAULT] = 999; /* absent on this kernel: must not count */
	s->psi[PW_PSI_CPU].some =
	        (struct pw_psi_line){.avg10 = 1086, .avg60 = 512, .avg300 = 1, .present = true};
	s->psi[PW_PSI_MEMORY].some = (struct pw_psi_line){.avg10 = 0, .present = true};
	s->psi[PW_PSI_MEMORY].full = (struct pw_psi_line){.avg10 = 250, .present = true};
	s->psi_present = 1u << PW_PSI_CPU | 1u << PW_PSI_MEMORY;
	s->loadavg =
	        (struct pw_loadavg){.load1 = 64, .load5 = 50, .load15 = 5, .runnable = 2, .threads = 812};
}

static struct pw_sample *make_sample(void)
{
	struct pw_sample *s = pw_test_sample_new(CPU_CAP, LINE_CAP, false);

	s->seq = 42;
	s->mono_ns = 5000000000;
	s->real_ns = 1700000000123456789;
	s->interval_ns = 1000200000;
	s->duration_ns = 251234;
	s->user_hz = 100;
	s->page_size = 4096;
	s->source_present = (1u << PW_SRC_COUNT) - 1;
	s->source_up = s->source_present & ~(1u << PW_SRC_PRESSURE); /* present but failing */
	s->parse_errors[PW_SRC_PRESSURE] = 3;
	s->samples_taken = 42;
	s->missed_deadlines = 1;
	s->counter_resets = 2;
	s->derived.valid = PW_DERIVED_SHARES | PW_DERIVED_RATES | PW_DERIVED_FREQ;
	fill_cpus(s);
	fill_interrupts(s);
	fill_rest(s);
	return s;
}

static json_t *render_parsed(const struct pw_sample *s, const struct pw_status_self *self, char **ret_text)
{
	return pw_json_parse_rendered(pw_status_render(s, self), ret_text);
}

START_TEST(test_golden)
{
	struct pw_sample *s = make_sample();
	char *text;
	json_t *root = render_parsed(s, &test_self, &text);

	pw_fixture_check_golden(GOLDEN_STATUS, text);
	json_decref(root);
	free(text);
	free(s);
}
END_TEST

START_TEST(test_values)
{
	struct pw_sample *s = make_sample();
	json_t *root = render_parsed(s, &test_self, NULL);

	pw_assert_json_string(root, "status", "ok");
	pw_assert_json_string(root, "version", "0.1.0-test");
	pw_assert_json_number(root, "sample.seq", 42);
	pw_assert_json_string(root, "sample.time", "2023-11-14T22:13:20.123Z");
	pw_assert_json_number(root, "sample.age_seconds", 0.4); /* monotonic clocks: 5.4 s - 5.0 s */
	pw_assert_json_number(root, "sample.interval_seconds", 1.0);
	pw_assert_json_number(root, "cpu.online", 2);
	pw_assert_json_number(root, "cpu.busy_percent", 20.5); /* 100 - (55 + 99) / 2 - 5 / 2 */
	pw_assert_json_number(root, "cpu.modes_percent.user", 15.2);
	pw_assert_json_number(root, "cpu.per_cpu.0.busy_percent", 40.0);
	pw_assert_json_number(root, "cpu.per_cpu.1.busy_percent", 1.0);
	pw_assert_json_number(root, "cpu.per_cpu.0.modes_percent.iowait", 5.0);
	ck_assert(json_is_false(pw_json_at(root, "cpu.per_cpu.2.online")));
	pw_assert_json_null(root, "cpu.per_cpu.2.busy_percent");
	pw_assert_json_number(root, "cpu.per_cpu.0.frequency.avg_mhz", 1800);
	pw_assert_json_number(root, "cpu.per_cpu.0.frequency.max_mhz", 3600);
	pw_assert_json_number(root, "cpu.per_cpu.0.frequency.percent_of_max", 50.0);
	pw_assert_json_string(root, "cpu.per_cpu.0.frequency.governor", "schedutil");
	pw_assert_json_string(root, "cpu.per_cpu.0.frequency.source", "time_in_state");
	pw_assert_json_null(root, "cpu.per_cpu.1.frequency");
	pw_assert_json_number(root, "interrupts.per_second", 1501); /* 1501.26 >= 100: integer */
	pw_assert_json_number(root, "interrupts.lines_dropped", 2);
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "interrupts.top")), 3);
	pw_assert_json_string(root, "interrupts.top.0.irq", "LOC");
	pw_assert_json_string(root, "interrupts.top.1.irq", "24"); /* ties keep /proc/interrupts order */
	pw_assert_json_string(root, "interrupts.top.1.device", "virtio0-\"q\\0\"");
	pw_assert_json_string(root, "interrupts.top.2.irq", "RES");
	pw_assert_json_null(root, "interrupts.top.0.chip");
	pw_assert_json_number(root, "interrupts.per_cpu_per_second.0.per_second", 1234);
	pw_assert_json_number(root, "interrupts.per_cpu_per_second.1.per_second", 56.8);
	pw_assert_json_number(root, "softirqs.per_second", 842);
	pw_assert_json_string(root, "softirqs.top.0.type", "TIMER");
	pw_assert_json_string(root, "softirqs.top.2.type", "NET_RX");
	pw_assert_json_number(root, "softirqs.top.2.per_second", 42.4);
	pw_assert_json_number(root, "context_switches_per_second", 15000);
	pw_assert_json_number(root, "forks_per_second", 2.3);
	pw_assert_json_number(root, "procs_running", 3);
	pw_assert_json_number(root, "memory.total_mib", 15921.3);
	pw_assert_json_number(root, "memory.available_mib", 7960.7);
	pw_assert_json_number(root, "memory.free_mib", 1.0);
	pw_assert_json_null(root, "memory.dirty_mib");
	pw_assert_json_number(root, "memory.swap_total_mib", 0);
	pw_assert_json_number(root, "paging.swap_in_pages_per_second", 12.5);
	pw_assert_json_number(root, "paging.paged_in_kib_per_second", 4096);
	pw_assert_json_number(root, "paging.refaults_per_second", 4.0);
	pw_assert_json_null(root, "pressure");
	pw_assert_json_number(root, "load.load1", 0.64);
	pw_assert_json_number(root, "load.load15", 0.05);
	pw_assert_json_number(root, "sampler.last_duration_ms", 0.25);
	pw_assert_json_number(root, "sampler.history_samples", 42);
	pw_assert_json_string(root, "sampler.sources.pressure", "failing");
	pw_assert_json_string(root, "sampler.sources.stat", "up");
	pw_assert_json_number(root, "sampler.parse_errors.pressure", 3);
	ck_assert(json_is_array(pw_json_at(root, "alerts")));
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "alerts")), 0);
	pw_assert_json_string(root, "diagnosis", "nothing unusual: CPUs 20.5% busy, 1501 interrupts/s");
	ck_assert(json_is_true(pw_json_at(root, "detector.warm")));
	pw_assert_json_number(root, "detector.samples_seen", 3600);
	pw_assert_json_number(root, "detector.samples_missed", 2);
	json_decref(root);
	free(s);
}
END_TEST

START_TEST(test_pressure)
{
	struct pw_sample *s = make_sample();
	s->source_up |= 1u << PW_SRC_PRESSURE;
	json_t *root = render_parsed(s, &test_self, NULL);

	pw_assert_json_number(root, "pressure.cpu.some_avg10", 10.86);
	pw_assert_json_number(root, "pressure.cpu.some_avg60", 5.12);
	pw_assert_json_null(root, "pressure.cpu.full_avg10");
	pw_assert_json_number(root, "pressure.memory.full_avg10", 2.5);
	pw_assert_json_null(root, "pressure.io");
	json_decref(root);
	free(s);
}
END_TEST

/* The first sample has no interval: every derived figure is null, the raw ones stay. */
START_TEST(test_first_sample)
{
	struct pw_sample *s = make_sample();
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);

	s->derived.valid = 0;
	s->interval_ns = 0;
	cpus[0].derived_valid = cpus[1].derived_valid = 0;
	json_t *root = render_parsed(s, &test_self, NULL);
	pw_assert_json_null(root, "cpu.busy_percent");
	pw_assert_json_null(root, "cpu.modes_percent");
	pw_assert_json_null(root, "cpu.per_cpu.0.busy_percent");
	pw_assert_json_null(root, "cpu.per_cpu.0.frequency.avg_mhz");
	pw_assert_json_number(root, "cpu.per_cpu.0.frequency.cur_mhz", 2400);
	pw_assert_json_null(root, "interrupts.per_second");
	pw_assert_json_null(root, "interrupts.top");
	pw_assert_json_null(root, "softirqs.top");
	pw_assert_json_null(root, "context_switches_per_second");
	pw_assert_json_null(root, "paging.swap_in_pages_per_second");
	pw_assert_json_number(root, "procs_running", 3);
	pw_assert_json_number(root, "memory.total_mib", 15921.3);
	json_decref(root);
	free(s);
}
END_TEST

START_TEST(test_sources_down)
{
	struct pw_sample *s = make_sample();

	s->source_up = 0;
	s->source_present = 1u << PW_SRC_STAT;
	json_t *root = render_parsed(s, NULL, NULL);
	pw_assert_json_null(root, "cpu");
	pw_assert_json_null(root, "interrupts");
	pw_assert_json_null(root, "softirqs");
	pw_assert_json_null(root, "memory");
	pw_assert_json_null(root, "paging");
	pw_assert_json_null(root, "load");
	pw_assert_json_null(root, "context_switches_per_second");
	pw_assert_json_null(root, "procs_running");
	pw_assert_json_null(root, "version");
	pw_assert_json_null(root, "sample.age_seconds"); /* no clock given */
	pw_assert_json_string(root, "sampler.sources.stat", "failing");
	pw_assert_json_string(root, "sampler.sources.cpufreq", "absent");
	json_decref(root);
	free(s);
}
END_TEST

START_TEST(test_starting)
{
	char *text = pw_status_render(NULL, &test_self);

	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, "{\n  \"status\": \"starting\",\n  \"alerts\": []\n}\n");
	free(text);
	text = pw_status_render(NULL, NULL);
	ck_assert_ptr_nonnull(text);
	free(text);
}
END_TEST

/* Values that would make invalid JSON (NaN rates, labels without NUL) are contained. */
START_TEST(test_hostile_values)
{
	struct pw_sample *s = make_sample();
	struct pw_line_sample *lines = pw_sample_lines(s);

	s->derived.share[PW_MODE_IDLE] = NAN;
	s->derived.ctxt_rate = INFINITY;
	lines[3].rate = NAN; /* never ranks */
	memset(lines[1].line.device, 'x', sizeof(lines[1].line.device));
	memset(lines[1].line.irq, '9', sizeof(lines[1].line.irq));
	s->ncpu = 1000; /* more than cpu_cap */
	json_t *root = render_parsed(s, &test_self, NULL);
	pw_assert_json_null(root, "cpu.busy_percent");
	pw_assert_json_null(root, "context_switches_per_second");
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "cpu.per_cpu")), CPU_CAP);
	ck_assert_uint_eq(strlen(json_string_value(pw_json_at(root, "interrupts.top.0.device"))),
	                  PW_IRQ_DEVICE_MAX);
	ck_assert_uint_eq(strlen(json_string_value(pw_json_at(root, "interrupts.top.0.irq"))),
	                  PW_IRQ_NAME_MAX);
	json_decref(root);
	free(s);
}
END_TEST

static void set_alert(struct pw_alert *a, enum pw_alert_name name, enum pw_alert_state state,
                      enum pw_severity severity, const char *summary)
{
	memset(a, 0, sizeof(*a));
	a->name = name;
	a->state = state;
	a->severity = severity;
	a->started_real_ns = 1700000000123456789 - 60000000000;
	a->fired_real_ns = state == PW_ALERT_FIRING ? 1700000000123456789 - 30000000000 : 0;
	a->value = a->baseline = a->spread = NAN; /* the figures are alerts_json's to test */
	snprintf(a->scope, sizeof(a->scope), "the host");
	snprintf(a->summary, sizeof(a->summary), "%s", summary);
}

/* The case the diagnosis tests share: system time at 38% of the CPUs against 2%, named with
 * evidence (NULL: none), and the SystemTimeHigh alert it raised. */
#define SYSTEM_TIME_SUMMARY "Kernel time is 38% of the CPUs against 20.0% user time (normally 2% system)"

static struct pw_deviation system_time_far(const char *evidence)
{
	struct pw_deviation dev = {.what = "system time",
	                           .cpu = -1,
	                           .unit = PW_UNIT_SHARE,
	                           .value = 0.38,
	                           .baseline = 0.02,
	                           .spread = 0.01,
	                           .score = 36,
	                           .signal = PW_SIG_SYSTEM};

	snprintf(dev.evidence, sizeof(dev.evidence), "%s", evidence ? evidence : "");
	return dev;
}

static void set_system_time_alert(struct pw_detector_view *view)
{
	set_alert(&view->alerts[0], PW_ALERT_SYSTEM_TIME_HIGH, PW_ALERT_FIRING, PW_SEVERITY_WARNING,
	          SYSTEM_TIME_SUMMARY);
	view->nalerts = 1;
}

/* o holds exactly the bytes of string (malloc'd); both are released. */
static void assert_same_bytes(struct pw_outbuf *o, char *string)
{
	ck_assert_ptr_nonnull(string);
	ck_assert_uint_eq(o->len, strlen(string));
	ck_assert_mem_eq(o->data, string, o->len);
	pw_outbuf_done(o);
	free(string);
}

/* /status as text into o (NUL-terminated): how many lines it has. */
static int render_text_lines(struct pw_outbuf *o, const struct pw_sample *s,
                             const struct pw_status_self *self)
{
	int lines = 0;

	pw_outbuf_init(o);
	ck_assert_int_eq(pw_status_render_text(o, s, self), 0);
	pw_outbuf_putc(o, '\0');
	for (const char *p = o->data; *p; p++)
		lines += *p == '\n';
	return lines;
}

/* Without a detector: no alerts, and the diagnosis says why. */
START_TEST(test_detector_off)
{
	struct pw_sample *s = make_sample();
	struct pw_status_self self = test_self;

	self.detector = NULL;
	json_t *root = render_parsed(s, &self, NULL);
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "alerts")), 0);
	pw_assert_json_string(root, "diagnosis",
	                      "the detector is off: perfwatch samples, but no incident rules run");
	pw_assert_json_null(root, "detector");
	json_decref(root);
	free(s);
}
END_TEST

START_TEST(test_detector_learning)
{
	struct pw_sample *s = make_sample();
	struct pw_detector_view view = {.samples_seen = 30, .warm = false};
	struct pw_status_self self = test_self;

	self.detector = &view;
	json_t *root = render_parsed(s, &self, NULL);
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "alerts")), 0);
	pw_assert_json_string(
	        root, "diagnosis",
	        "learning baselines; incident rules that compare with them start after the warmup");
	ck_assert(json_is_false(pw_json_at(root, "detector.warm")));
	pw_assert_json_number(root, "detector.samples_seen", 30);
	json_decref(root);
	free(s);
}
END_TEST

/* Quiet, with figures the sample lacks: only what it has is said. */
START_TEST(test_detector_quiet)
{
	struct pw_sample *s = make_sample();

	s->derived.intr_rate = 42.04f;
	json_t *root = render_parsed(s, &test_self, NULL);
	pw_assert_json_string(root, "diagnosis", "nothing unusual: CPUs 20.5% busy, 42.0 interrupts/s");
	json_decref(root);
	s->derived.valid = 0; /* the first sample */
	root = render_parsed(s, &test_self, NULL);
	pw_assert_json_string(root, "diagnosis", "nothing unusual");
	json_decref(root);
	free(s);
}
END_TEST

/* Signals far from their baselines with no alert: named with figure, baseline and who took the
 * system time, never "nothing unusual"; after an alert's summary they follow as "Also". */
START_TEST(test_detector_deviations)
{
	static struct pw_detector_view view = {.samples_seen = 7200, .warm = true, .ndeviations = 2};
	struct pw_sample *s = make_sample();
	struct pw_status_self self = test_self;

	view.deviations[0] = system_time_far("most system time: dd (pid 4321) 62% of a CPU");
	view.deviations[1] = (struct pw_deviation){.what = "NET_RX softirqs",
	                                           .cpu = -1,
	                                           .unit = PW_UNIT_RATE,
	                                           .value = 190000,
	                                           .baseline = 3,
	                                           .spread = 1,
	                                           .score = 1e5,
	                                           .signal = PW_SIG_COUNT};
	view.irq_accounting = PW_IRQ_ACCOUNTING_TICKS;
	self.detector = &view;
	json_t *root = render_parsed(s, &self, NULL);
	pw_assert_json_string(
	        root, "diagnosis",
	        "No alert, but far from normal: system time 38% of the CPUs, normally 2.0% (most "
	        "system time: dd (pid 4321) 62% of a CPU); NET_RX softirqs 190000/s, normally "
	        "3.0/s.");
	pw_assert_json_string(root, "detector.deviations.0.what", "system time");
	pw_assert_json_string(root, "detector.deviations.0.unit", "ratio");
	pw_assert_json_number(root, "detector.deviations.0.value", 0.38);
	pw_assert_json_number(root, "detector.deviations.1.score", 1e5);
	pw_assert_json_null(root, "detector.deviations.1.cpu");
	pw_assert_json_string(root, "detector.handler_time",
	                      "estimated from timer ticks (no CONFIG_IRQ_TIME_ACCOUNTING)");
	json_decref(root);

	set_system_time_alert(&view);
	view.ndeviations = 1;
	root = render_parsed(s, &self, NULL);
	pw_assert_json_string(
	        root, "diagnosis",
	        SYSTEM_TIME_SUMMARY
	        ". Also far from normal: system time 38% of the CPUs, normally 2.0% (most system time: dd "
	        "(pid 4321) 62% of a CPU).");
	json_decref(root);
	free(s);
}
END_TEST

/* The text rendering for people: one screenful, the diagnosis first, then the alerts, values beside
 * their baselines; a diagnosis too long for its lines is cut with "...". */
START_TEST(test_text)
{
	static struct pw_detector_view view = {.samples_seen = 7200, .warm = true, .ndeviations = 1};
	struct pw_sample *s = make_sample();
	struct pw_status_self self = test_self;
	struct pw_outbuf o;

	view.deviations[0] = system_time_far(NULL);
	view.baselines[PW_SIG_SYSTEM] = (struct pw_baseline){.mean = 0.02, .var = 1e-4, .learned_s = 600};
	set_system_time_alert(&view);
	self.detector = &view;
	ck_assert_int_le(render_text_lines(&o, s, &self), 24);
	const char *text = o.data;
	const char *diag = strstr(text, "\nDIAGNOSIS  Kernel time is 38%");
	const char *alerts = strstr(text, "\nALERTS     firing SystemTimeHigh (warning)");
	const char *cpu = strstr(text, "\nCPU        busy");
	ck_assert_msg(diag && alerts && cpu && diag < alerts && alerts < cpu, "%s", text);
	ck_assert_msg(strstr(text, "(normally 2.0%)"), "%s", text);
	ck_assert_msg(strstr(text, "from normal: system time 38% of the CPUs"), "%s", text);
	pw_outbuf_done(&o);

	/* A diagnosis of every deviation at full length stays within its lines. */
	view.ndeviations = PW_DEVIATIONS_MAX;
	for (int i = 0; i < PW_DEVIATIONS_MAX; i++) {
		view.deviations[i] = view.deviations[0];
		snprintf(view.deviations[i].evidence, sizeof(view.deviations[i].evidence),
		         "most system time: a-process-name (pid 123456) 99%% of a CPU");
	}
	ck_assert_int_le(render_text_lines(&o, s, &self), 24);
	ck_assert_msg(strstr(o.data, " ...\n"), "%s", o.data);
	pw_outbuf_done(&o);

	/* The HTTP path renders straight into its buffer: the same bytes as the string. */
	pw_outbuf_init(&o);
	ck_assert_int_eq(pw_status_render_into(s, &self, &o), 0);
	assert_same_bytes(&o, pw_status_render(s, &self));
	pw_outbuf_init(&o);
	ck_assert_int_eq(pw_alerts_render_into(&view, &o), 0);
	assert_same_bytes(&o, pw_alerts_render(&view));
	free(s);
}
END_TEST

/* perfwatchd's own files: left out when it writes none; each one written with how it fares, a
 * write waiting past PW_FILE_STUCK_NS named under "stuck" and in the text as STUCK. */
START_TEST(test_files)
{
	struct pw_files_stats files = {.file = {
	                                       [PW_FILE_BASELINES] = {.configured = true, .dropped = 12},
	                                       [PW_FILE_RECORDING] = {.configured = true,
	                                                              .stuck = true,
	                                                              .blocked_ns = 3040000000,
	                                                              .waiting = 61},
	                               }};
	struct pw_files_stats none = {0};
	struct pw_sample *s = make_sample();
	struct pw_status_self self = test_self;
	struct pw_outbuf o;
	json_t *root;

	self.files = &none;
	root = render_parsed(s, &self, NULL);
	ck_assert_ptr_null(json_object_get(root, "files"));
	json_decref(root);
	self.files = &files;
	root = render_parsed(s, &self, NULL);
	ck_assert_int_eq(json_array_size(pw_json_at(root, "files.stuck")), 1);
	pw_assert_json_string(root, "files.stuck.0", "recording");
	pw_assert_json_number(root, "files.recording.blocked_seconds", 3.0);
	pw_assert_json_number(root, "files.recording.waiting", 61);
	ck_assert(json_is_true(pw_json_at(root, "files.recording.stuck")));
	pw_assert_json_number(root, "files.baselines.dropped", 12);
	ck_assert(json_is_false(pw_json_at(root, "files.baselines.stuck")));
	ck_assert_ptr_null(json_object_get(pw_json_at(root, "files"), "notifications"));
	json_decref(root);
	render_text_lines(&o, s, &self);
	ck_assert_msg(strstr(o.data, "\nFILES      baselines ok, 12 writes dropped; recording STUCK: a write "
	                             "waiting 3.0 s"),
	              "%s", o.data);
	pw_outbuf_done(&o);
	free(s);
}
END_TEST

/* One pending critical alert listed before one firing warning: the list keeps rule order, the
 * diagnosis puts the firing one first. */
START_TEST(test_detector_alerts)
{
	static struct pw_detector_view view = {.samples_seen = 7200, .warm = true};
	struct pw_sample *s = make_sample();
	struct pw_status_self self = test_self;

	set_alert(&view.alerts[0], PW_ALERT_CPU_FREQUENCY_LOW, PW_ALERT_PENDING, PW_SEVERITY_CRITICAL,
	          "2 busy CPUs run at 62% of their maximum frequency on average (lowest 60%, governor "
	          "ondemand)");
	set_alert(&view.alerts[1], PW_ALERT_MEMORY_SWAPPING, PW_ALERT_FIRING, PW_SEVERITY_WARNING,
	          "The host is swapping: 250.4 pages/s out, 80.1/s in (normally 0.0, 0.5)");
	view.nalerts = 2;
	self.detector = &view;
	json_t *root = render_parsed(s, &self, NULL);
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "alerts")), 2);
	pw_assert_json_string(root, "alerts.0.name", "CpuFrequencyLow");
	pw_assert_json_string(root, "alerts.0.state", "pending");
	pw_assert_json_string(root, "alerts.0.started_at", "2023-11-14T22:12:20.123Z");
	pw_assert_json_null(root, "alerts.0.value");
	pw_assert_json_string(root, "alerts.1.name", "MemorySwapping");
	pw_assert_json_string(root, "alerts.1.state", "firing");
	pw_assert_json_string(root, "alerts.1.fired_at", "2023-11-14T22:12:50.123Z");
	ck_assert(json_is_object(pw_json_at(root, "alerts.1.evidence")));
	pw_assert_json_string(
	        root, "diagnosis",
	        "The host is swapping: 250.4 pages/s out, 80.1/s in (normally 0.0, 0.5). Pending: 2 busy "
	        "CPUs run at 62% of their maximum frequency on average (lowest 60%, governor ondemand).");
	json_decref(root);

	/* CpuFrequencyLow needs no baseline: it can be active while the others still learn. */
	view.warm = false;
	view.nalerts = 1;
	root = render_parsed(s, &self, NULL);
	pw_assert_json_string(
	        root, "diagnosis",
	        "Pending: 2 busy CPUs run at 62% of their maximum frequency on average (lowest 60%, "
	        "governor ondemand). Still learning baselines; incident rules that compare with them "
	        "start after the warmup.");
	json_decref(root);

	/* Before the first sample the document stays short, with whatever the detector lists. */
	char *text = pw_status_render(NULL, &self);
	root = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(root);
	pw_assert_json_string(root, "status", "starting");
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "alerts")), 1);
	ck_assert_ptr_null(json_object_get(root, "diagnosis"));
	json_decref(root);
	free(text);
	free(s);
}
END_TEST

/* Every rule active at once, each summary as long as it can be: the diagnosis holds them all. */
START_TEST(test_detector_long_diagnosis)
{
	static struct pw_detector_view view = {.warm = true};
	struct pw_sample *s = make_sample();
	struct pw_status_self self = test_self;
	char summary[sizeof(view.alerts[0].summary)];

	memset(summary, 'x', sizeof(summary) - 1);
	summary[sizeof(summary) - 1] = '\0';
	for (int i = 0; i < PW_ALERT_COUNT; i++)
		set_alert(&view.alerts[i], (enum pw_alert_name)i, PW_ALERT_PENDING, PW_SEVERITY_WARNING,
		          summary);
	memset(view.alerts[3].summary, 'y', sizeof(view.alerts[3].summary)); /* no NUL */
	view.nalerts = PW_ALERT_COUNT;
	self.detector = &view;
	json_t *root = render_parsed(s, &self, NULL);
	const char *text = json_string_value(pw_json_at(root, "diagnosis"));
	/* Seven "Pending: <summary>." joined by spaces; the summary without a NUL is one byte longer. */
	ck_assert_uint_eq(strlen(text), PW_ALERT_COUNT * (strlen("Pending: ") + strlen(summary) + 1) +
	                                        (PW_ALERT_COUNT - 1) + 1);
	ck_assert_ptr_nonnull(strstr(text, "Pending: yyyy"));
	json_decref(root);
	free(s);
}
END_TEST

static Suite *status_json_suite(void)
{
	Suite *s = suite_create("status_json");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_golden);
	tcase_add_test(core, test_values);
	tcase_add_test(core, test_pressure);
	tcase_add_test(core, test_first_sample);
	tcase_add_test(core, test_sources_down);
	tcase_add_test(core, test_starting);
	tcase_add_test(core, test_detector_off);
	tcase_add_test(core, test_detector_learning);
	tcase_add_test(core, test_detector_quiet);
	tcase_add_test(core, test_detector_alerts);
	tcase_add_test(core, test_detector_deviations);
	tcase_add_test(core, test_text);
	tcase_add_test(core, test_files);
	tcase_add_test(malformed, test_hostile_values);
	tcase_add_test(malformed, test_detector_long_diagnosis);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(status_json_suite());
}
