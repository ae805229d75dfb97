/* test_prometheus.c — the /metrics exposition of a hand-built sample: the whole text in both formats
 * against golden files (PW_REGENERATE_GOLDEN=1 rewrites them), specific series and unit conversions,
 * omission of what the sample does not have, label escaping, content negotiation, the detector's
 * alerts and baselines, and promtool's verdict on the output when promtool is installed. */
#include "fixture_util.h"
#include "prometheus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CPU_CAP 4
#define LINE_CAP 8
#define GOLDEN_TEXT "golden/exporters/metrics.prom"
#define GOLDEN_OM "golden/exporters/metrics.om"
#define GOLDEN_TEXT_PER_CPU "golden/exporters/metrics-per-cpu.prom"

/* A warm detector with a firing and a pending alert, and some baselines learned (the PSI io one
 * not yet: no series). */
static const struct pw_detector_view test_view = {
        .samples_seen = 3600,
        .samples_missed = 3,
        .real_ns = 1700000000123456789,
        .warm = true,
        .nalerts = 2,
        .alerts =
                {
                        {.name = PW_ALERT_INTERRUPT_TIME_HIGH,
                         .state = PW_ALERT_FIRING,
                         .severity = PW_SEVERITY_CRITICAL,
                         .scope = "cpu3"},
                        {.name = PW_ALERT_CPU_FREQUENCY_LOW,
                         .state = PW_ALERT_PENDING,
                         .severity = PW_SEVERITY_WARNING,
                         .scope = "the host"},
                },
        .baselines =
                {
                        [PW_SIG_USER] = {.mean = 0.25, .var = 0.0004, .learned_s = 3600},
                        [PW_SIG_IRQ] = {.mean = 0.0125, .var = 0.0001, .learned_s = 3600},
                        [PW_SIG_INTR_RATE] = {.mean = 1500.5, .var = 2500, .learned_s = 3600},
                        [PW_SIG_SWAP_OUT] = {.mean = 0, .var = 0, .learned_s = 3600},
                        [PW_SIG_PSI_MEMORY] = {.mean = 1.5, .var = 0.25, .learned_s = 30},
                },
};

/* The HTTP server's counters: distinct values, to see each lands in its own series. */
static const struct pw_http_stats test_http = {
        .cut_deadline = 3,
        .cut_shed = 5,
        .auth_bad_credentials = 11,
        .auth_throttled = 2,
};

static const struct pw_prom_self test_self = {
        .version = "0.1.0-test",
        .interval_seconds = 1.0,
        .last_scrape_seconds = 0.000042,
        .scrapes_total = 7,
        .history_capacity = 3600,
        .history_bytes = 12345678,
        .detector = &test_view,
        .http = &test_http,
};

static void set_line(struct pw_sample *s, uint32_t i, const char *irq, const char *chip, const char *device,
                     uint64_t cpu0, uint64_t cpu1, uint64_t total)
{
	struct pw_line_sample *line = &pw_sample_lines(s)[i];
	uint64_t *row = pw_sample_matrix(s) + (size_t)i * s->cpu_cap;

	snprintf(line->line.irq, sizeof(line->line.irq), "%s", irq);
	snprintf(line->line.chip, sizeof(line->line.chip), "%s", chip);
	snprintf(line->line.device, sizeof(line->line.device), "%s", device);
	line->line.total = total;
	line->line.flags = (irq[0] >= 'A' && irq[0] <= 'Z') ? PW_IRQ_LINE_NAMED : 0;
	line->rate = (float)(cpu0 + cpu1) / 100.0f;
	row[0] = cpu0;
	row[1] = cpu1;
	pw_sample_cpus(s)[0].interrupts += cpu0;
	pw_sample_cpus(s)[1].interrupts += cpu1;
}

static void fill_cpu_times(struct pw_sample *s)
{
	static const uint64_t ticks[2][PW_MODE_COUNT] = {
	        {1001, 2, 303, 10000, 45, 6, 7, 0, 50, 0},
	        {2500, 0, 250, 9000, 12, 3, 20, 1, 0, 0},
	};
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);

	s->ncpu = 3; /* cpu2 is offline: no /proc/stat line, no interrupt columns */
	for (int c = 0; c < 2; c++) {
		memcpy(cpus[c].times.ticks, ticks[c], sizeof(ticks[c]));
		cpus[c].times.nmodes = PW_MODE_COUNT;
		cpus[c].times.present = true;
		cpus[c].online = cpus[c].in_interrupts = cpus[c].in_softirqs = true;
		for (int m = 0; m < PW_MODE_COUNT; m++)
			s->stat.total.ticks[m] += ticks[c][m];
	}
	s->stat.total.nmodes = PW_MODE_COUNT;
	s->stat.total.present = true;
	s->stat.intr_total = 123456;
	s->stat.ctxt = 987654321;
	s->stat.btime = 1700000000;
	s->stat.processes = 4242;
	s->stat.procs_running = 3;
	s->stat.procs_blocked = 1;
	s->stat.present = 0x7f;
	s->stat.cpu_seen = 2;
}

static void fill_interrupts(struct pw_sample *s)
{
	set_line(s, 0, "0", "IO-APIC", "2-edge timer", 44, 0, 44);
	set_line(s, 1, "24", "PCI-MSIX-0000:00:04.0", "virtio0-\"q\\0\"", 100, 200, 300);
	set_line(s, 2, "25", "PCI-MSI", "ehci_hcd:usb1, eth0", 3, 4, 7);
	set_line(s, 3, "LOC", "", "Local timer interrupts", 25000, 25000, 50000);
	set_line(s, 4, "ERR", "", "", 0, 0, 3); /* one total, no per-CPU columns */
	pw_sample_lines(s)[4].line.flags |= PW_IRQ_LINE_SINGLE_TOTAL;
	s->nlines = 5;
	s->interrupts.nlines = 5;
	s->interrupts.ncolumns = 2;
	s->interrupts.cpu_seen = 2;
}

static void fill_softirqs(struct pw_sample *s)
{
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);

	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++) {
		cpus[0].softirq[t] = 10u * (uint64_t)t + 1;
		cpus[1].softirq[t] = 100u * (uint64_t)t + 2;
		s->softirqs.total[t] = cpus[0].softirq[t] + cpus[1].softirq[t];
		s->derived.softirq_rate[t] = (float)t * 1.5f;
		s->derived.softirq_total_rate += s->derived.softirq_rate[t];
	}
	s->softirqs.present = (1u << PW_SOFTIRQ_COUNT) - 1;
	s->softirqs.cpu_seen = 2;
}

static void fill_cpufreq(struct pw_sample *s)
{
	struct pw_cpu_sample *cpu = &pw_sample_cpus(s)[0];

	cpu->freq_flags = PW_FREQ_HAS_CPUFREQ | PW_FREQ_HAS_TIME_IN_STATE | PW_FREQ_AVG_FROM_STATS;
	cpu->cur_khz = 2400000;
	cpu->min_khz = 800000;
	cpu->max_khz = 3600000;
	cpu->tis = (struct pw_time_in_state){
	        .khz_time = 36000000000u, .time = 20000, .nstates = 3, .min_khz = 800000, .max_khz = 3600000};
	snprintf(cpu->governor, sizeof(cpu->governor), "schedutil");
	snprintf(cpu->driver, sizeof(cpu->driver), "acpi-cpufreq");
	cpu->derived_valid |= PW_DERIVED_FREQ;
	cpu->avg_khz = 1800000;
	cpu->freq_ratio = 0.5f;
	/* cpu1 has no cpufreq directory at all (a VM). */
}

static void fill_memory(struct pw_sample *s)
{
	for (int f = 0; f < PW_VM_COUNT; f++)
		s->vmstat.value[f] = 1000u + (uint64_t)f;
	s->vmstat.present = ((1u << PW_VM_COUNT) - 1) & ~(1u << PW_VM_WORKINGSET_REFAULT); /* a 5.9+ kernel */
	for (int f = 0; f < PW_MEM_COUNT; f++)
		s->meminfo.kb[f] = 1024u * (uint64_t)(f + 1);
	s->meminfo.kb[PW_MEM_TOTAL] = 16303428;
	s->meminfo.present = (1u << PW_MEM_COUNT) - 1;
}

static void fill_pressure_load(struct pw_sample *s)
{
	for (int r = 0; r < PW_PSI_IRQ; r++) { /* irq: a kernel before 6.1 */
		s->psi[r].some = (struct pw_psi_line){.avg10 = 1086,
		                                      .avg60 = 5,
		                                      .avg300 = 0,
		                                      .total_us = 12345678u + (uint64_t)r,
		                                      .present = true};
		s->psi[r].full = (struct pw_psi_line){
		        .avg10 = 100, .avg60 = 0, .avg300 = 1, .total_us = 1000000, .present = true};
		s->psi_present |= 1u << r;
	}
	s->loadavg = (struct pw_loadavg){
	        .load1 = 64, .load5 = 50, .load15 = 5, .runnable = 2, .threads = 812, .last_pid = 4242};
}

/* The sample every test starts from: 2 online CPUs and an offline one, all sources up. */
static struct pw_sample *make_sample(void)
{
	struct pw_sample *s = pw_test_sample_new(CPU_CAP, LINE_CAP, true);

	s->seq = 42;
	s->mono_ns = 5000000000;
	s->real_ns = 1700000000123456789;
	s->interval_ns = 1000000000;
	s->duration_ns = 250000;
	s->user_hz = 100;
	s->page_size = 4096;
	s->source_present = s->source_up = (1u << PW_SRC_COUNT) - 1;
	s->parse_errors[PW_SRC_SOFTIRQS] = 2;
	s->counter_resets = 1;
	s->samples_taken = 42;
	s->missed_deadlines = 1;
	s->duration_total_ns = 10500000;
	fill_cpu_times(s);
	fill_interrupts(s);
	fill_softirqs(s);
	fill_cpufreq(s);
	fill_memory(s);
	fill_pressure_load(s);
	return s;
}

/* Render into a fresh NUL-terminated malloc'd string. */
static char *render(const struct pw_sample *s, enum pw_prom_format format, bool per_cpu)
{
	struct pw_prom_options options = {.format = format, .interrupts_per_cpu = per_cpu};
	struct pw_outbuf out;

	pw_outbuf_init(&out);
	ck_assert_int_eq(pw_prom_render(&out, s, &options, &test_self), 0);
	pw_outbuf_putc(&out, '\0');
	ck_assert(pw_outbuf_ok(&out));
	return out.data;
}

static void assert_has_line(const char *text, const char *line)
{
	const char *p = text;
	size_t n = strlen(line);

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
		p += n;
	}
	ck_abort_msg("missing line: %s", line);
}

START_TEST(test_golden_text)
{
	struct pw_sample *s = make_sample();
	char *text = render(s, PW_PROM_TEXT, false);

	pw_fixture_check_golden(GOLDEN_TEXT, text);
	free(text);
	text = render(s, PW_PROM_TEXT, true);
	pw_fixture_check_golden(GOLDEN_TEXT_PER_CPU, text);
	free(text);
	free(s);
}
END_TEST

START_TEST(test_golden_openmetrics)
{
	struct pw_sample *s = make_sample();
	char *text = render(s, PW_PROM_OPENMETRICS, false);

	pw_fixture_check_golden(GOLDEN_OM, text);
	free(text);
	free(s);
}
END_TEST

START_TEST(test_units)
{
	struct pw_sample *s = make_sample();
	char *text = render(s, PW_PROM_TEXT, false);

	assert_has_line(text, "perfwatch_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 10.01");
	assert_has_line(text, "perfwatch_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 100");
	assert_has_line(text, "perfwatch_cpu_seconds_total{cpu=\"1\",mode=\"steal\"} 0.01");
	assert_has_line(text, "perfwatch_cpu_guest_seconds_total{cpu=\"0\",mode=\"user\"} 0.5");
	assert_has_line(text, "perfwatch_cpu_frequency_hertz{cpu=\"0\"} 1800000000");
	assert_has_line(text, "perfwatch_cpu_frequency_ratio{cpu=\"0\"} 0.5");
	assert_has_line(text, "perfwatch_cpu_scaling_frequency_hertz{cpu=\"0\"} 2400000000");
	assert_has_line(
	        text, "perfwatch_cpu_frequency_info{cpu=\"0\",governor=\"schedutil\",driver=\"acpi-cpufreq\","
	              "source=\"time_in_state\"} 1");
	assert_has_line(text, "perfwatch_swap_in_bytes_total 4096000");    /* 1000 pages */
	assert_has_line(text, "perfwatch_paged_in_bytes_total 1026048");   /* 1002 kB */
	assert_has_line(text, "perfwatch_memory_total_bytes 16694710272"); /* 16303428 kB */
	assert_has_line(text,
	                "perfwatch_pressure_stalled_seconds_total{resource=\"cpu\",kind=\"some\"} 12.345678");
	assert_has_line(text,
	                "perfwatch_pressure_ratio{resource=\"cpu\",kind=\"some\",window=\"10s\"} 0.1086");
	assert_has_line(text, "perfwatch_load1 0.64");
	assert_has_line(text, "perfwatch_load15 0.05");
	assert_has_line(text, "perfwatch_last_sample_timestamp_seconds 1700000000.123456789");
	assert_has_line(text, "perfwatch_last_sample_duration_seconds 0.00025");
	assert_has_line(text, "perfwatch_scrape_duration_seconds 4.2e-05");
	assert_has_line(text, "perfwatch_parse_errors_total{source=\"softirqs\"} 2");
	assert_has_line(text, "perfwatch_build_info{version=\"0.1.0-test\"} 1");
	assert_has_line(text, "# TYPE perfwatch_cpu_seconds_total counter");
	/* Offline cpu2 and cpu1's missing cpufreq leave no series. */
	ck_assert_ptr_null(strstr(text, "cpu=\"2\""));
	ck_assert_ptr_null(strstr(text, "perfwatch_cpu_frequency_hertz{cpu=\"1\"}"));
	ck_assert_ptr_null(strstr(text, "resource=\"irq\""));
	ck_assert_ptr_null(strstr(text, "type=\"all\""));
	/* Per-CPU matrices only on request. */
	ck_assert_ptr_null(strstr(text, "perfwatch_interrupts_per_cpu_total"));
	ck_assert_ptr_null(strstr(text, "perfwatch_cpu_softirqs_total"));
	free(text);
	free(s);
}
END_TEST

START_TEST(test_openmetrics_names)
{
	struct pw_sample *s = make_sample();
	char *text = render(s, PW_PROM_OPENMETRICS, false);
	size_t len = strlen(text);

	assert_has_line(text, "# TYPE perfwatch_cpu_seconds counter");
	assert_has_line(text, "# UNIT perfwatch_cpu_seconds seconds");
	assert_has_line(text, "perfwatch_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 10.01");
	assert_has_line(text, "# TYPE perfwatch_build info");
	assert_has_line(text, "perfwatch_build_info{version=\"0.1.0-test\"} 1");
	assert_has_line(text, "# TYPE perfwatch_load1 gauge");
	ck_assert_ptr_null(strstr(text, "# UNIT perfwatch_load1"));
	ck_assert_uint_gt(len, 6);
	ck_assert_str_eq(text + len - 6, "# EOF\n");
	free(text);
	free(s);
}
END_TEST

START_TEST(test_escaping)
{
	struct pw_sample *s = make_sample();
	char *text = render(s, PW_PROM_TEXT, true);

	assert_has_line(text, "perfwatch_interrupts_total{irq=\"24\",chip=\"PCI-MSIX-0000:00:04.0\","
	                      "device=\"virtio0-\\\"q\\\\0\\\"\"} 300");
	assert_has_line(text,
	                "perfwatch_interrupts_total{irq=\"LOC\",chip=\"\",device=\"Local timer interrupts\"} "
	                "50000");
	assert_has_line(text,
	                "perfwatch_interrupts_per_cpu_total{irq=\"24\",device=\"virtio0-\\\"q\\\\0\\\"\","
	                "cpu=\"1\"} 200");
	assert_has_line(text, "perfwatch_cpu_interrupts_total{cpu=\"0\"} 25147");
	/* ERR has a total but no per-CPU columns. */
	assert_has_line(text, "perfwatch_interrupts_total{irq=\"ERR\",chip=\"\",device=\"\"} 3");
	ck_assert_ptr_null(strstr(text, "perfwatch_interrupts_per_cpu_total{irq=\"ERR\""));
	assert_has_line(text, "perfwatch_cpu_softirqs_total{cpu=\"1\",type=\"NET_RX\"} 302");
	free(text);

	/* A newline, and a device name the parser cut inside a UTF-8 character. */
	struct pw_line_sample *line = &pw_sample_lines(s)[2];
	snprintf(line->line.device, sizeof(line->line.device), "a\nb\xC3\xA9\xC3");
	text = render(s, PW_PROM_TEXT, false);
	assert_has_line(text, "perfwatch_interrupts_total{irq=\"25\",chip=\"PCI-MSI\",device="
	                      "\"a\\nb\xC3\xA9\xEF\xBF\xBD\"} 7");
	free(text);
	/* A label buffer without a NUL is read only up to its size. */
	memset(line->line.device, 'x', sizeof(line->line.device));
	text = render(s, PW_PROM_TEXT, false);
	ck_assert_ptr_nonnull(strstr(text, "device=\"xxxxxxxx"));
	free(text);
	free(s);
}
END_TEST

/* A single-total line has no per-CPU series even when its count is 0 (as on most hosts), where an
 * all-zero matrix row cannot tell it from a quiet line with columns. */
START_TEST(test_single_total_line)
{
	struct pw_sample *s = make_sample();
	struct pw_line_sample *err = &pw_sample_lines(s)[4];
	char *text;

	err->line.total = 0;
	text = render(s, PW_PROM_TEXT, true);
	assert_has_line(text, "perfwatch_interrupts_total{irq=\"ERR\",chip=\"\",device=\"\"} 0");
	ck_assert_ptr_null(strstr(text, "perfwatch_interrupts_per_cpu_total{irq=\"ERR\""));
	free(text);
	/* A quiet line with columns keeps its zero series. */
	err->line.flags &= ~(uint32_t)PW_IRQ_LINE_SINGLE_TOTAL;
	text = render(s, PW_PROM_TEXT, true);
	assert_has_line(text, "perfwatch_interrupts_per_cpu_total{irq=\"ERR\",device=\"\",cpu=\"1\"} 0");
	free(text);
	free(s);
}
END_TEST

static bool has_prefix_line(const char *text, const char *prefix)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

/* A source that is not up leaves none of its families behind, banners included. */
START_TEST(test_absent_sources)
{
	static const struct {
		enum pw_source source;
		const char *prefix;
	} cases[] = {
	        {PW_SRC_STAT, "perfwatch_cpu_seconds"},
	        {PW_SRC_STAT, "# HELP perfwatch_context_switches"},
	        {PW_SRC_INTERRUPTS, "perfwatch_interrupts"},
	        {PW_SRC_INTERRUPTS, "perfwatch_interrupt_lines_dropped"},
	        {PW_SRC_SOFTIRQS, "perfwatch_softirqs"},
	        {PW_SRC_CPUFREQ, "perfwatch_cpu_frequency"},
	        {PW_SRC_VMSTAT, "perfwatch_swap_in"},
	        {PW_SRC_VMSTAT, "perfwatch_oom_kills"},
	        {PW_SRC_MEMINFO, "perfwatch_memory_"},
	        {PW_SRC_PRESSURE, "perfwatch_pressure"},
	        {PW_SRC_LOADAVG, "perfwatch_load1"},
	        {PW_SRC_LOADAVG, "# TYPE perfwatch_threads"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pw_sample *s = make_sample();
		s->source_up &= ~(1u << cases[i].source);
		char *text = render(s, PW_PROM_TEXT, true);
		ck_assert_msg(!has_prefix_line(text, cases[i].prefix), "%s still emitted with %s down",
		              cases[i].prefix, pw_source_name(cases[i].source));
		char want[128];
		snprintf(want, sizeof(want), "perfwatch_source_up{source=\"%s\"} 0",
		         pw_source_name(cases[i].source));
		assert_has_line(text, want);
		free(text);
		free(s);
	}
}
END_TEST

/* Fields an older kernel lacks: modes past nmodes, pre-5.9 refaults, missing meminfo keys, no PSI. */
START_TEST(test_old_kernel)
{
	struct pw_sample *s = make_sample();
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);

	cpus[0].times.nmodes = cpus[1].times.nmodes = 4;
	s->vmstat.present &= ~(1u << PW_VM_WORKINGSET_REFAULT_ANON | 1u << PW_VM_WORKINGSET_REFAULT_FILE);
	s->vmstat.present |= 1u << PW_VM_WORKINGSET_REFAULT;
	s->meminfo.present &= ~(1u << PW_MEM_AVAILABLE);
	s->psi_present = 0;
	s->stat.present &= ~PW_PROCSTAT_HAS_PROCS_BLOCKED;
	char *text = render(s, PW_PROM_TEXT, false);
	assert_has_line(text, "perfwatch_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 90");
	ck_assert_ptr_null(strstr(text, "mode=\"iowait\""));
	ck_assert_ptr_null(strstr(text, "perfwatch_cpu_guest_seconds"));
	assert_has_line(text, "perfwatch_workingset_refaults_total{type=\"all\"} 1006");
	ck_assert_ptr_null(strstr(text, "type=\"anon\""));
	ck_assert_ptr_null(strstr(text, "perfwatch_memory_available_bytes"));
	ck_assert_ptr_null(strstr(text, "perfwatch_pressure"));
	ck_assert_ptr_null(strstr(text, "perfwatch_procs_blocked"));
	free(text);

	/* No derived frequency yet (first sample): no average, ratio, but the rest stays. */
	cpus[0].derived_valid = 0;
	cpus[0].freq_flags &= ~(uint32_t)PW_FREQ_AVG_FROM_STATS;
	text = render(s, PW_PROM_TEXT, false);
	ck_assert_ptr_null(strstr(text, "perfwatch_cpu_frequency_hertz"));
	ck_assert_ptr_null(strstr(text, "perfwatch_cpu_frequency_ratio"));
	assert_has_line(text, "perfwatch_cpu_frequency_max_hertz{cpu=\"0\"} 3600000000");
	ck_assert_ptr_nonnull(strstr(text, "source=\"scaling_cur_freq\""));
	free(text);
	free(s);
}
END_TEST

START_TEST(test_no_sample)
{
	struct pw_prom_options options = {.format = PW_PROM_OPENMETRICS};
	struct pw_prom_self self = test_self;
	struct pw_outbuf out;

	self.last_scrape_seconds = -1;
	self.version = "1.0 \"beta\"";
	self.detector = NULL; /* detector off: no detector families */
	self.http = NULL;     /* no HTTP server (tools): no HTTP families */
	pw_outbuf_init(&out);
	pw_outbuf_puts(&out, "kept\n"); /* render appends */
	ck_assert_int_eq(pw_prom_render(&out, NULL, &options, &self), 0);
	pw_outbuf_putc(&out, '\0');
	ck_assert_str_eq(out.data,
	                 "kept\n"
	                 "# TYPE perfwatch_interval_seconds gauge\n"
	                 "# UNIT perfwatch_interval_seconds seconds\n"
	                 "# HELP perfwatch_interval_seconds Configured sampling interval (perfwatch).\n"
	                 "perfwatch_interval_seconds 1\n"
	                 "# TYPE perfwatch_history_capacity_samples gauge\n"
	                 "# HELP perfwatch_history_capacity_samples Samples the history ring holds "
	                 "(perfwatch).\n"
	                 "perfwatch_history_capacity_samples 3600\n"
	                 "# TYPE perfwatch_history_bytes gauge\n"
	                 "# UNIT perfwatch_history_bytes bytes\n"
	                 "# HELP perfwatch_history_bytes Memory held by the sample rings (perfwatch).\n"
	                 "perfwatch_history_bytes 12345678\n"
	                 "# TYPE perfwatch_scrapes counter\n"
	                 "# HELP perfwatch_scrapes /metrics responses rendered (perfwatch).\n"
	                 "perfwatch_scrapes_total 7\n"
	                 "# TYPE perfwatch_build info\n"
	                 "# HELP perfwatch_build perfwatch version (perfwatch).\n"
	                 "perfwatch_build_info{version=\"1.0 \\\"beta\\\"\"} 1\n"
	                 "# EOF\n");
	/* Without options or self: the text format and nothing at all. */
	pw_outbuf_reset(&out);
	ck_assert_int_eq(pw_prom_render(&out, NULL, NULL, NULL), 0);
	ck_assert_uint_eq(out.len, 0);
	pw_outbuf_done(&out);
}
END_TEST

START_TEST(test_negotiate)
{
	ck_assert_int_eq(pw_prom_negotiate(NULL), PW_PROM_TEXT);
	ck_assert_int_eq(pw_prom_negotiate(""), PW_PROM_TEXT);
	ck_assert_int_eq(pw_prom_negotiate("*/*"), PW_PROM_TEXT);
	ck_assert_int_eq(pw_prom_negotiate("text/plain;version=0.0.4"), PW_PROM_TEXT);
	/* What Prometheus 2.x sends. */
	ck_assert_int_eq(pw_prom_negotiate("application/openmetrics-text;version=1.0.0,application/"
	                                   "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
	                                   "q=0.5,*/*;q=0.1"),
	                 PW_PROM_OPENMETRICS);
	ck_assert_int_eq(pw_prom_negotiate("Application/OpenMetrics-Text"), PW_PROM_OPENMETRICS);
	ck_assert_int_eq(pw_prom_negotiate("text/plain, application/openmetrics-text; q=0.3"),
	                 PW_PROM_OPENMETRICS);
	ck_assert_int_eq(pw_prom_negotiate("application/openmetrics-text;q=0"), PW_PROM_TEXT);
	ck_assert_int_eq(
	        pw_prom_negotiate("application/openmetrics-text; version=1.0.0; q=0.000, text/plain"),
	        PW_PROM_TEXT);
	ck_assert_int_eq(pw_prom_negotiate("application/openmetrics-text;q=0.01"), PW_PROM_OPENMETRICS);
	ck_assert_int_eq(pw_prom_negotiate("application/openmetrics-textual"), PW_PROM_TEXT);
}
END_TEST

/* Issue 10: a 32 KB header of refused OpenMetrics ranges (scanned quadratically before: 6.7 ms on the
 * one HTTP thread), then the same with an accepted range at its very end. */
START_TEST(test_negotiate_long)
{
	static const char refused[] = "application/openmetrics-text;q=0,";
	size_t cap = 32 * 1024, len = 0;
	char *header = malloc(cap + 64);

	ck_assert_ptr_nonnull(header);
	while (len + sizeof(refused) - 1 <= cap) {
		memcpy(header + len, refused, sizeof(refused) - 1);
		len += sizeof(refused) - 1;
	}
	header[len] = '\0';
	ck_assert_int_eq(pw_prom_negotiate(header), PW_PROM_TEXT);
	strcpy(header + len, " Application/OpenMetrics-Text; q=0.5");
	ck_assert_int_eq(pw_prom_negotiate(header), PW_PROM_OPENMETRICS);
	free(header);
	ck_assert_str_eq(pw_prom_content_type(PW_PROM_TEXT), "text/plain; version=0.0.4; charset=utf-8");
	ck_assert_str_eq(pw_prom_content_type(PW_PROM_OPENMETRICS),
	                 "application/openmetrics-text; version=1.0.0; charset=utf-8");
}
END_TEST

START_TEST(test_out_of_memory)
{
	struct pw_sample *s = make_sample();
	struct pw_prom_options options = {.format = PW_PROM_TEXT};
	struct pw_outbuf out;

	pw_outbuf_init(&out);
	out.failed = true; /* as after a failed allocation */
	ck_assert_int_eq(pw_prom_render(&out, s, &options, &test_self), -ENOMEM);
	pw_outbuf_done(&out);
	free(s);
}
END_TEST

/* Render with self and no sample, into a fresh NUL-terminated string. */
static char *render_self_only(const struct pw_prom_self *self, enum pw_prom_format format)
{
	struct pw_prom_options options = {.format = format};
	struct pw_outbuf out;

	pw_outbuf_init(&out);
	ck_assert_int_eq(pw_prom_render(&out, NULL, &options, self), 0);
	pw_outbuf_putc(&out, '\0');
	ck_assert(pw_outbuf_ok(&out));
	return out.data;
}

/* Both formats of the HTTP families, whole: a fixed set of four series, zeros included. */
START_TEST(test_http_stats)
{
	struct pw_prom_self self = {.version = "1", .http = &test_http};
	struct pw_http_stats zero = {0};
	char *text = render_self_only(&self, PW_PROM_TEXT);
	const char *series = "perfwatch_http_connections_cut_total{reason=\"deadline\"} 3\n"
	                     "perfwatch_http_connections_cut_total{reason=\"shed\"} 5\n";
	const char *auth = "perfwatch_http_auth_failures_total{reason=\"bad_credentials\"} 11\n"
	                   "perfwatch_http_auth_failures_total{reason=\"throttled\"} 2\n";
	struct pw_outbuf out;

	ck_assert_ptr_nonnull(strstr(text, "# HELP perfwatch_http_connections_cut_total Connections closed"));
	ck_assert_ptr_nonnull(strstr(text, "# TYPE perfwatch_http_connections_cut_total counter\n"));
	ck_assert_ptr_nonnull(strstr(text, series));
	ck_assert_ptr_nonnull(strstr(text, "# TYPE perfwatch_http_auth_failures_total counter\n"));
	ck_assert_ptr_nonnull(strstr(text, auth));
	free(text);
	text = render_self_only(&self, PW_PROM_OPENMETRICS);
	ck_assert_ptr_nonnull(strstr(text, "# TYPE perfwatch_http_connections_cut counter\n"
	                                   "# HELP perfwatch_http_connections_cut Connections closed"));
	ck_assert_ptr_nonnull(strstr(text, series));
	ck_assert_ptr_nonnull(strstr(text, "# TYPE perfwatch_http_auth_failures counter\n"
	                                   "# HELP perfwatch_http_auth_failures Requests to protected"));
	ck_assert_ptr_nonnull(strstr(text, auth));
	free(text);
	/* Zeros are series too; the renderer alone appends and skips NULL. */
	pw_outbuf_init(&out);
	pw_http_prom_render(&out, false, NULL);
	ck_assert_uint_eq(out.len, 0);
	pw_http_prom_render(&out, false, &zero);
	pw_outbuf_putc(&out, '\0');
	ck_assert_ptr_nonnull(strstr(out.data, "perfwatch_http_connections_cut_total{reason=\"shed\"} 0\n"));
	ck_assert_ptr_nonnull(
	        strstr(out.data, "perfwatch_http_auth_failures_total{reason=\"throttled\"} 0\n"));
	pw_outbuf_done(&out);
}
END_TEST

/* The own-files families: series only for the configured files, failing as 0/1, both formats. */
START_TEST(test_files_stats)
{
	struct pw_files_stats files = {.file = {
	                                       [PW_FILE_BASELINES] = {.configured = true, .errors = 4},
	                                       [PW_FILE_RECORDING] = {.configured = true,
	                                                              .failing = true,
	                                                              .errors = 17,
	                                                              .dropped = 5,
	                                                              .blocked_ns = 3250000000},
	                               }};
	struct pw_prom_self self = {.version = "1", .files = &files};
	struct pw_files_stats none = {0};
	char *text = render_self_only(&self, PW_PROM_TEXT);
	struct pw_outbuf out;

	ck_assert_ptr_nonnull(strstr(text, "# TYPE perfwatch_file_write_errors_total counter\n"
	                                   "perfwatch_file_write_errors_total{file=\"baselines\"} 4\n"
	                                   "perfwatch_file_write_errors_total{file=\"recording\"} 17\n"));
	ck_assert_ptr_nonnull(strstr(text, "# TYPE perfwatch_file_write_failing gauge\n"
	                                   "perfwatch_file_write_failing{file=\"baselines\"} 0\n"
	                                   "perfwatch_file_write_failing{file=\"recording\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "# TYPE perfwatch_file_writes_dropped_total counter\n"
	                                   "perfwatch_file_writes_dropped_total{file=\"baselines\"} 0\n"
	                                   "perfwatch_file_writes_dropped_total{file=\"recording\"} 5\n"));
	ck_assert_ptr_nonnull(strstr(text,
	                             "# TYPE perfwatch_file_write_blocked_seconds gauge\n"
	                             "perfwatch_file_write_blocked_seconds{file=\"baselines\"} 0.000\n"
	                             "perfwatch_file_write_blocked_seconds{file=\"recording\"} 3.250\n"));
	ck_assert_ptr_null(strstr(text, "notifications"));
	free(text);
	text = render_self_only(&self, PW_PROM_OPENMETRICS);
	ck_assert_ptr_nonnull(strstr(text, "# UNIT perfwatch_file_write_blocked_seconds seconds\n"));
	ck_assert_ptr_nonnull(strstr(text, "# TYPE perfwatch_file_write_errors counter\n"));
	ck_assert_ptr_nonnull(strstr(text, "perfwatch_file_write_errors_total{file=\"recording\"} 17\n"));
	free(text);
	/* No file configured: no banner either. */
	pw_outbuf_init(&out);
	pw_files_prom_render(&out, false, &none);
	pw_files_prom_render(&out, false, NULL);
	ck_assert_uint_eq(out.len, 0);
	pw_outbuf_done(&out);
	ck_assert_str_eq(pw_own_file_str(PW_FILE_NOTIFICATIONS), "notifications");
}
END_TEST

START_TEST(test_detector)
{
	struct pw_sample *s = make_sample();
	char *text = render(s, PW_PROM_TEXT, false);

	assert_has_line(text, "# HELP perfwatch_alerts 1 for each pending or firing alert, like the ALERTS "
	                      "series of Prometheus (perfwatch detector).");
	assert_has_line(text, "# TYPE perfwatch_alerts gauge");
	assert_has_line(text, "perfwatch_alerts{alertname=\"InterruptTimeHigh\",alertstate=\"firing\","
	                      "severity=\"critical\"} 1");
	assert_has_line(text, "perfwatch_alerts{alertname=\"CpuFrequencyLow\",alertstate=\"pending\","
	                      "severity=\"warning\"} 1");
	assert_has_line(text, "perfwatch_baseline_mean{signal=\"cpu_user_ratio\"} 0.25");
	assert_has_line(text, "perfwatch_baseline_spread{signal=\"cpu_user_ratio\"} 0.02");
	assert_has_line(text, "perfwatch_baseline_mean{signal=\"interrupts_per_second\"} 1500.5");
	assert_has_line(text, "perfwatch_baseline_spread{signal=\"interrupts_per_second\"} 50");
	assert_has_line(text, "perfwatch_baseline_mean{signal=\"swap_out_pages_per_second\"} 0");
	assert_has_line(text, "perfwatch_baseline_spread{signal=\"pressure_memory_some_percent\"} 0.5");
	assert_has_line(text, "perfwatch_detector_warm 1");
	assert_has_line(text, "perfwatch_detector_samples_missed_total 3");
	/* Signals that have learned nothing yet have no band. */
	ck_assert_ptr_null(strstr(text, "signal=\"pressure_io_some_percent\""));
	ck_assert_ptr_null(strstr(text, "signal=\"cpu_system_ratio\""));
	free(text);

	text = render(s, PW_PROM_OPENMETRICS, false);
	assert_has_line(text, "# TYPE perfwatch_detector_samples_missed counter");
	assert_has_line(text, "perfwatch_detector_samples_missed_total 3");
	assert_has_line(text, "# TYPE perfwatch_baseline_mean gauge");
	free(text);
	free(s);
}
END_TEST

/* The detector's families do not need a sample; with nothing active and nothing learned, only its
 * two scalars remain. Alerts that are not active never show. */
START_TEST(test_detector_quiet)
{
	static struct pw_detector_view view;
	struct pw_prom_self self = test_self;

	memset(&view, 0, sizeof(view));
	view.alerts[0] = test_view.alerts[0];
	view.alerts[0].state = PW_ALERT_INACTIVE;
	view.nalerts = 1000; /* read no further than the array */
	self.detector = &view;
	char *text = render_self_only(&self, PW_PROM_TEXT);
	ck_assert_ptr_null(strstr(text, "perfwatch_alerts"));
	ck_assert_ptr_null(strstr(text, "perfwatch_baseline_"));
	assert_has_line(text, "perfwatch_detector_warm 0");
	assert_has_line(text, "perfwatch_detector_samples_missed_total 0");
	assert_has_line(text, "perfwatch_build_info{version=\"0.1.0-test\"} 1");
	free(text);
}
END_TEST

/* Run promtool check metrics on text; returns its output (empty when it is content) or NULL when
 * promtool is not installed. */
static char *promtool_check(const char *text)
{
	const char *promtool = getenv("PROMTOOL") ? getenv("PROMTOOL") : "/usr/bin/promtool";
	char path[] = "/tmp/pw-promtool-XXXXXX";
	char cmd[512];
	static char output[8192];
	size_t len = 0, n;

	if (access(promtool, X_OK) != 0)
		return NULL;
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s check metrics < %s 2>&1", promtool, path);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while ((n = fread(output + len, 1, sizeof(output) - 1 - len, p)) > 0)
		len += n;
	output[len] = '\0';
	int status = pclose(p);
	unlink(path);
	if (len == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		snprintf(output, sizeof(output), "exit status %d", status);
	return output;
}

START_TEST(test_promtool)
{
	struct pw_sample *s = make_sample();

	for (int per_cpu = 0; per_cpu <= 1; per_cpu++) {
		char *text = render(s, PW_PROM_TEXT, per_cpu);
		const char *verdict = promtool_check(text);
		free(text);
		if (!verdict) {
			fprintf(stderr, "promtool not installed: check skipped\n");
			break;
		}
		ck_assert_msg(verdict[0] == '\0', "promtool check metrics (per_cpu=%d):\n%s", per_cpu,
		              verdict);
	}
	free(s);
}
END_TEST

static Suite *prometheus_suite(void)
{
	Suite *s = suite_create("prometheus");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");
	TCase *promtool = tcase_create("promtool");

	tcase_add_test(core, test_golden_text);
	tcase_add_test(core, test_golden_openmetrics);
	tcase_add_test(core, test_units);
	tcase_add_test(core, test_openmetrics_names);
	tcase_add_test(core, test_escaping);
	tcase_add_test(core, test_single_total_line);
	tcase_add_test(core, test_absent_sources);
	tcase_add_test(core, test_old_kernel);
	tcase_add_test(core, test_no_sample);
	tcase_add_test(core, test_negotiate);
	tcase_add_test(core, test_negotiate_long);
	tcase_add_test(core, test_detector);
	tcase_add_test(core, test_http_stats);
	tcase_add_test(core, test_files_stats);
	tcase_add_test(core, test_detector_quiet);
	tcase_add_test(malformed, test_out_of_memory);
	tcase_add_test(promtool, test_promtool);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	suite_add_tcase(s, promtool);
	return s;
}

int main(void)
{
	return pw_run_suite(prometheus_suite());
}
