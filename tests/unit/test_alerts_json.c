/* test_alerts_json.c — the /alerts document of a hand-built detector view holding one alert of each
 * rule: golden file (PW_REGENERATE_GOLDEN=1 rewrites it), parsed back with jansson for names, states,
 * keys and rounded values; non-finite figures as null, text that is not UTF-8, the empty and absent
 * views, and the urgency order /status builds its diagnosis from. */
#include "alerts_json.h"
#include "fixture_util.h"
#include "json_assert.h"
#include "json_util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_ALERTS "golden/exporters/alerts.json"
#define NOW_NS 1700000000123456789 /* 2023-11-14T22:13:20.123Z */

static void alert_head(struct pw_alert *a, enum pw_alert_name name, enum pw_alert_state state,
                       enum pw_severity severity, const char *scope)
{
	memset(a, 0, sizeof(*a));
	a->name = name;
	a->state = state;
	a->severity = severity;
	a->started_real_ns = NOW_NS - 95000000000; /* 95 s ago */
	a->started_mono_ns = 1000000000;
	a->fired_real_ns = state == PW_ALERT_FIRING ? NOW_NS - 35000000000 : 0;
	snprintf(a->scope, sizeof(a->scope), "%s", scope);
	snprintf(a->summary, sizeof(a->summary), "%s on %s", pw_alert_name_str(name), scope);
	snprintf(a->description, sizeof(a->description), "What %s means, in \"plain\" words.",
	         pw_alert_name_str(name));
}

static void fill_interrupt_time(struct pw_alert *a)
{
	struct pw_ev_interrupt_time *ev = &a->evidence.interrupt_time;

	alert_head(a, PW_ALERT_INTERRUPT_TIME_HIGH, PW_ALERT_FIRING, PW_SEVERITY_CRITICAL, "cpu3");
	a->value = 0.234;
	a->baseline = 0.012;
	a->spread = 0.01;
	ev->host_irq = 0.021f;
	ev->host_softirq = 0.0345f;
	ev->host_baseline = 0.004f;
	ev->intr_rate = 15234.6f;
	ev->intr_baseline = 14000.2f;
	ev->ncpus = 2;
	ev->cpus[0].cpu = 3;
	ev->cpus[0].irq = 0.05f;
	ev->cpus[0].softirq = 0.184f;
	ev->cpus[0].baseline = 0.012f;
	ev->cpus[1].cpu = 1;
	ev->cpus[1].irq = 0.01f;
	ev->cpus[1].softirq = 0.02f;
	ev->cpus[1].baseline = 0.005f;
	ev->nlines = 2;
	ev->lines[0] =
	        (struct pw_ev_line){.irq = "41", .device = "eth0-rx-0", .rate = 9000.4f, .baseline = 8000};
	ev->lines[1] = (struct pw_ev_line){
	        .irq = "LOC", .device = "Local timer interrupts", .rate = 42.25f, .baseline = 40.04f};
	ev->nsoftirqs = 2;
	ev->softirqs[0].type = PW_SOFTIRQ_NET_RX;
	ev->softirqs[0].rate = 52000.7f;
	ev->softirqs[0].baseline = 21000.2f;
	ev->softirqs[1].type = PW_SOFTIRQ_TIMER;
	ev->softirqs[1].rate = 90.25f;
	ev->softirqs[1].baseline = 88;
	snprintf(ev->affinity[0], sizeof(ev->affinity[0]), "0-3");
	/* affinity[1] empty: LOC has no /proc/irq entry */
	ev->processes = (struct pw_ev_processes){.status = PW_PROBE_OK,
	                                         .scanned = 212,
	                                         .window_s = 1.004f,
	                                         .system = 0.0312f,
	                                         .user = 0.0405f,
	                                         .host_busy = 0.3125f,
	                                         .host_handlers = 0.2334f,
	                                         .n = 1};
	ev->processes.top[0] =
	        (struct pw_ev_process){.pid = 811, .comm = "asterisk", .system = 0.021f, .user = 0.034f};
}

static void fill_frequency(struct pw_alert *a)
{
	struct pw_ev_frequency *ev = &a->evidence.frequency;

	alert_head(a, PW_ALERT_CPU_FREQUENCY_LOW, PW_ALERT_PENDING, PW_SEVERITY_WARNING, "the host");
	a->value = 0.62;
	a->baseline = 1.0;
	a->spread = 0;
	ev->busy_cpus = 2;
	ev->busy_avg_ratio = 0.655f;
	ev->from_time_in_state = false;
	snprintf(ev->governor, sizeof(ev->governor), "ondemand");
	snprintf(ev->driver, sizeof(ev->driver), "acpi-cpufreq");
	ev->ncpus = 2;
	ev->cpus[0].cpu = 0;
	ev->cpus[0].busy = 0.91f;
	ev->cpus[0].avg_khz = 2000400;
	ev->cpus[0].max_khz = 3000000;
	ev->cpus[1].cpu = 5;
	ev->cpus[1].busy = 0.55f;
	ev->cpus[1].avg_khz = 1860000;
	ev->cpus[1].max_khz = 3000000;
	ev->tunables = (struct pw_ev_governor){
	        .status = PW_PROBE_OK, .up_threshold = 95, .sampling_rate_us = UINT32_MAX, .epp = ""};
}

static void fill_rate_drop(struct pw_alert *a)
{
	struct pw_ev_rate_drop *ev = &a->evidence.rate_drop;

	alert_head(a, PW_ALERT_INTERRUPT_RATE_DROP, PW_ALERT_FIRING, PW_SEVERITY_WARNING,
	           "irq 41 (eth0-rx-0)");
	a->value = 12.04;
	a->baseline = 9000.4;
	a->spread = 450.5;
	ev->host = false;
	ev->line =
	        (struct pw_ev_line){.irq = "41", .device = "eth0-rx-0", .rate = 12.04f, .baseline = 9000.4f};
	ev->baseline_spread = 450.5f;
	ev->min_rate = 3.25f;
	ev->started_real_ns = a->started_real_ns;
}

static void fill_memory(struct pw_ev_memory *ev)
{
	ev->swap_out = 250.4f;
	ev->swap_out_baseline = 0.04f;
	ev->swap_in = 80.06f;
	ev->swap_in_baseline = 0.5f;
	ev->major_faults = 310.5f;
	ev->major_faults_baseline = 2.25f;
	ev->refaults = 1200.4f;
	ev->iowait = 0.2346f;
	ev->iowait_baseline = 0.011f;
	ev->mem_total_kb = 16303428;
	ev->mem_available_kb = 204800;
	ev->mem_free_kb = 51200;
	ev->cached_kb = 102450;
	ev->swap_total_kb = 2097152;
	ev->swap_free_kb = 1048576;
	ev->psi_memory_some = 1234;
	ev->psi_io_some = UINT32_MAX; /* the kernel has no io pressure */
	ev->procs_blocked = 7;
}

static void fill_swapping(struct pw_alert *a)
{
	alert_head(a, PW_ALERT_MEMORY_SWAPPING, PW_ALERT_FIRING, PW_SEVERITY_CRITICAL, "the host");
	a->value = 250.4;
	a->baseline = 0.04;
	a->spread = 0.5;
	fill_memory(&a->evidence.memory);
	struct pw_ev_disks *d = &a->evidence.memory.disks;
	d->status = PW_PROBE_OK;
	d->n = 2;
	d->top[0] =
	        (struct pw_ev_disk){.name = "sda", .utilization = 0.866f, .reads = 120.44f, .writes = 310.5f};
	d->top[1] = (struct pw_ev_disk){.name = "sdb", .utilization = 0.1f, .reads = 2, .writes = 0};
}

static void fill_iowait(struct pw_alert *a)
{
	alert_head(a, PW_ALERT_IOWAIT_HIGH, PW_ALERT_PENDING, PW_SEVERITY_WARNING, "the host");
	a->value = 0.2346;
	a->baseline = 0.011;
	a->spread = 0.01;
	fill_memory(&a->evidence.memory);
	a->evidence.memory.disks.status = PW_PROBE_WARMING; /* first scan: no interval yet */
}

static void fill_system_time(struct pw_alert *a)
{
	struct pw_ev_system_time *ev = &a->evidence.system_time;

	alert_head(a, PW_ALERT_SYSTEM_TIME_HIGH, PW_ALERT_PENDING, PW_SEVERITY_CRITICAL, "the host");
	a->value = 0.71;
	a->baseline = 0.08;
	a->spread = 0.02;
	ev->host_system = 0.71f;
	ev->host_user = 0.09f;
	ev->system_baseline = 0.08f;
	ev->ctxt_rate = 250000.4f;
	ev->ctxt_baseline = 30000.6f;
	ev->run_queue = 48;
	ev->run_queue_baseline = 2.34f;
	ev->ncpus = 2;
	ev->cpus[0].cpu = 2;
	ev->cpus[0].system = 0.9f;
	ev->cpus[0].user = 0.05f;
	ev->cpus[1].cpu = 0;
	ev->cpus[1].system = 0.8f;
	ev->cpus[1].user = 0.1f;
	ev->processes = (struct pw_ev_processes){.status = PW_PROBE_OK,
	                                         .truncated = true,
	                                         .scanned = 4096,
	                                         .window_s = 0.998f,
	                                         .system = 5.68f,
	                                         .user = 0.72f,
	                                         .host_busy = 6.4f,
	                                         .host_handlers = 0.01f,
	                                         .n = 2};
	ev->processes.top[0] =
	        (struct pw_ev_process){.pid = 4242, .comm = "a) (b", .system = 0.953f, .user = 0.012f};
	ev->processes.top[1] =
	        (struct pw_ev_process){.pid = 4243, .comm = "reader", .system = 0.9f, .user = 0.01f};
}

static void fill_steal(struct pw_alert *a)
{
	alert_head(a, PW_ALERT_STEAL_HIGH, PW_ALERT_FIRING, PW_SEVERITY_WARNING, "the host");
	a->value = 0.153;
	a->baseline = 0.004;
	a->spread = 0.01;
	a->evidence.steal.host_steal = 0.153f;
	a->evidence.steal.steal_baseline = 0.004f;
}

/* A warm detector with every rule active, in rule order as the detector lists them. */
static struct pw_detector_view *make_view(void)
{
	struct pw_detector_view *v = calloc(1, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	v->samples_seen = 3600;
	v->samples_missed = 2;
	v->real_ns = NOW_NS;
	v->warm = true;
	fill_interrupt_time(&v->alerts[0]);
	fill_frequency(&v->alerts[1]);
	fill_rate_drop(&v->alerts[2]);
	fill_swapping(&v->alerts[3]);
	fill_iowait(&v->alerts[4]);
	fill_system_time(&v->alerts[5]);
	fill_steal(&v->alerts[6]);
	v->nalerts = 7;
	return v;
}

static json_t *render_parsed(const struct pw_detector_view *view, char **ret_text)
{
	return pw_json_parse_rendered(pw_alerts_render(view), ret_text);
}

/* obj has exactly these keys, in this order. */
static void assert_keys(json_t *root, const char *path, const char *const *keys, size_t n)
{
	json_t *obj = pw_json_at(root, path);
	const char *key;
	json_t *value;
	size_t i = 0;

	ck_assert_msg(json_is_object(obj), "%s is not an object", path);
	json_object_foreach(obj, key, value)
	{
		ck_assert_msg(i < n, "%s has an extra key %s", path, key);
		ck_assert_msg(strcmp(key, keys[i]) == 0, "%s key %zu is %s, want %s", path, i, key, keys[i]);
		i++;
	}
	ck_assert_msg(i == n, "%s has %zu keys, want %zu", path, i, n);
}

#define ASSERT_KEYS(root, path, ...)                                                                         \
	do {                                                                                                 \
		static const char *const keys_[] = {__VA_ARGS__};                                            \
		assert_keys(root, path, keys_, sizeof(keys_) / sizeof(keys_[0]));                            \
	} while (0)

START_TEST(test_golden)
{
	struct pw_detector_view *v = make_view();
	char *text;
	json_t *root = render_parsed(v, &text);

	pw_fixture_check_golden(GOLDEN_ALERTS, text);
	json_decref(root);
	free(text);
	free(v);
}
END_TEST

START_TEST(test_common_fields)
{
	static const char *const names[] = {"InterruptTimeHigh", "CpuFrequencyLow", "InterruptRateDrop",
	                                    "MemorySwapping",    "IoWaitHigh",      "SystemTimeHigh",
	                                    "StealHigh"};
	static const char *const states[] = {"firing",  "pending", "firing", "firing",
	                                     "pending", "pending", "firing"};
	struct pw_detector_view *v = make_view();
	json_t *root = render_parsed(v, NULL);
	char path[64];

	ASSERT_KEYS(root, "", "alerts");
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "alerts")), 7);
	for (int i = 0; i < 7; i++) {
		snprintf(path, sizeof(path), "alerts.%d", i);
		ASSERT_KEYS(root, path, "name", "state", "severity", "started_at", "fired_at", "summary",
		            "description", "value", "unit", "baseline", "labels", "evidence");
		snprintf(path, sizeof(path), "alerts.%d.name", i);
		pw_assert_json_string(root, path, names[i]);
		snprintf(path, sizeof(path), "alerts.%d.state", i);
		pw_assert_json_string(root, path, states[i]);
		snprintf(path, sizeof(path), "alerts.%d.labels.alertname", i);
		pw_assert_json_string(root, path, names[i]);
		snprintf(path, sizeof(path), "alerts.%d.started_at", i);
		pw_assert_json_string(root, path, "2023-11-14T22:11:45.123Z");
		snprintf(path, sizeof(path), "alerts.%d.labels", i);
		ASSERT_KEYS(root, path, "alertname", "severity", "scope");
		snprintf(path, sizeof(path), "alerts.%d.baseline", i);
		ASSERT_KEYS(root, path, "mean", "spread");
	}
	pw_assert_json_string(root, "alerts.0.severity", "critical");
	pw_assert_json_string(root, "alerts.0.labels.severity", "critical");
	pw_assert_json_string(root, "alerts.0.labels.scope", "cpu3");
	pw_assert_json_string(root, "alerts.0.fired_at", "2023-11-14T22:12:45.123Z");
	pw_assert_json_null(root, "alerts.1.fired_at"); /* pending */
	pw_assert_json_string(root, "alerts.0.summary", "InterruptTimeHigh on cpu3");
	pw_assert_json_string(root, "alerts.0.description",
	                      "What InterruptTimeHigh means, in \"plain\" words.");
	/* The headline in the rule's unit: shares and the frequency ratio in percent, rates per second. */
	pw_assert_json_number(root, "alerts.0.value", 23.4);
	pw_assert_json_string(root, "alerts.0.unit", "percent");
	pw_assert_json_number(root, "alerts.0.baseline.mean", 1.2);
	pw_assert_json_number(root, "alerts.0.baseline.spread", 1.0);
	pw_assert_json_number(root, "alerts.1.value", 62.0);
	pw_assert_json_number(root, "alerts.1.baseline.mean", 100.0);
	pw_assert_json_number(root, "alerts.2.value", 12.0);
	pw_assert_json_string(root, "alerts.2.unit", "per_second");
	pw_assert_json_number(root, "alerts.2.baseline.mean", 9000);
	pw_assert_json_number(root, "alerts.2.baseline.spread", 451); /* 450.5: whole above 100/s */
	pw_assert_json_string(root, "alerts.3.unit", "pages_per_second");
	pw_assert_json_number(root, "alerts.3.value", 250);
	pw_assert_json_number(root, "alerts.3.baseline.mean", 0.0);
	json_decref(root);
	free(v);
}
END_TEST

START_TEST(test_interrupt_time)
{
	struct pw_detector_view *v = make_view();
	json_t *root = render_parsed(v, NULL);

	ASSERT_KEYS(root, "alerts.0.evidence", "host_irq_percent", "host_softirq_percent",
	            "host_baseline_percent", "interrupts_per_second", "interrupts_baseline_per_second",
	            "cause", "cost_per_event_us", "cost_per_event_baseline_us", "added_events_per_second",
	            "time_estimated", "cpus", "lines", "softirqs", "processes");
	pw_assert_json_number(root, "alerts.0.evidence.host_irq_percent", 2.1);
	pw_assert_json_string(root, "alerts.0.evidence.lines.0.smp_affinity_list", "0-3");
	pw_assert_json_null(root, "alerts.0.evidence.lines.1.smp_affinity_list");
	ASSERT_KEYS(root, "alerts.0.evidence.processes", "status", "window_seconds", "processes_scanned",
	            "truncated", "malformed_skipped", "system_cpus", "user_cpus", "host_busy_cpus",
	            "host_interrupt_cpus", "top");
	ASSERT_KEYS(root, "alerts.3.evidence.disks", "status", "malformed_skipped", "top");
	pw_assert_json_string(root, "alerts.0.evidence.processes.status", "ok");
	pw_assert_json_number(root, "alerts.0.evidence.processes.system_cpus", 0.03);
	pw_assert_json_number(root, "alerts.0.evidence.processes.user_cpus", 0.04);
	pw_assert_json_number(root, "alerts.0.evidence.processes.host_interrupt_cpus", 0.23);
	pw_assert_json_number(root, "alerts.0.evidence.processes.host_busy_cpus", 0.31);
	pw_assert_json_string(root, "alerts.0.evidence.processes.top.0.comm", "asterisk");
	pw_assert_json_number(root, "alerts.0.evidence.host_softirq_percent",
	                      3.4); /* 0.0345f is 0.034499999 */
	pw_assert_json_number(root, "alerts.0.evidence.host_baseline_percent", 0.4);
	pw_assert_json_number(root, "alerts.0.evidence.interrupts_per_second", 15235);
	pw_assert_json_number(root, "alerts.0.evidence.interrupts_baseline_per_second", 14000);
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "alerts.0.evidence.cpus")), 2);
	ASSERT_KEYS(root, "alerts.0.evidence.cpus.0", "cpu", "irq_percent", "softirq_percent",
	            "baseline_percent");
	pw_assert_json_number(root, "alerts.0.evidence.cpus.0.cpu", 3);
	pw_assert_json_number(root, "alerts.0.evidence.cpus.0.irq_percent", 5.0);
	pw_assert_json_number(root, "alerts.0.evidence.cpus.0.softirq_percent", 18.4);
	pw_assert_json_number(root, "alerts.0.evidence.cpus.0.baseline_percent", 1.2);
	ASSERT_KEYS(root, "alerts.0.evidence.lines.0", "irq", "device", "per_second", "baseline_per_second",
	            "smp_affinity_list");
	pw_assert_json_string(root, "alerts.0.evidence.lines.0.irq", "41");
	pw_assert_json_string(root, "alerts.0.evidence.lines.0.device", "eth0-rx-0");
	pw_assert_json_number(root, "alerts.0.evidence.lines.0.per_second", 9000);
	pw_assert_json_number(root, "alerts.0.evidence.lines.1.per_second", 42.3); /* 1 decimal below 100/s */
	pw_assert_json_number(root, "alerts.0.evidence.lines.1.baseline_per_second", 40.0);
	ASSERT_KEYS(root, "alerts.0.evidence.softirqs.0", "type", "per_second", "baseline_per_second");
	pw_assert_json_string(root, "alerts.0.evidence.softirqs.0.type", "NET_RX");
	pw_assert_json_number(root, "alerts.0.evidence.softirqs.0.per_second", 52001);
	pw_assert_json_string(root, "alerts.0.evidence.softirqs.1.type", "TIMER");
	pw_assert_json_number(root, "alerts.0.evidence.softirqs.1.baseline_per_second", 88.0);
	json_decref(root);
	free(v);
}
END_TEST

START_TEST(test_frequency)
{
	struct pw_detector_view *v = make_view();
	json_t *root = render_parsed(v, NULL);

	ASSERT_KEYS(root, "alerts.1.evidence", "busy_cpus", "busy_average_percent_of_max", "source",
	            "reference", "governor", "driver", "cpus", "tunables");
	ASSERT_KEYS(root, "alerts.1.evidence.tunables", "status", "up_threshold_percent", "sampling_rate_us",
	            "energy_performance_preference");
	pw_assert_json_string(root, "alerts.1.evidence.tunables.status", "ok");
	pw_assert_json_number(root, "alerts.1.evidence.tunables.up_threshold_percent", 95);
	pw_assert_json_null(root, "alerts.1.evidence.tunables.sampling_rate_us"); /* absent file */
	pw_assert_json_null(root, "alerts.1.evidence.tunables.energy_performance_preference");
	pw_assert_json_string(root, "alerts.1.evidence.reference", "cpuinfo_max_freq");
	pw_assert_json_number(root, "alerts.1.evidence.busy_cpus", 2);
	pw_assert_json_number(root, "alerts.1.evidence.busy_average_percent_of_max", 65.5);
	pw_assert_json_string(root, "alerts.1.evidence.source", "scaling_cur_freq");
	pw_assert_json_string(root, "alerts.1.evidence.governor", "ondemand");
	pw_assert_json_string(root, "alerts.1.evidence.driver", "acpi-cpufreq");
	ASSERT_KEYS(root, "alerts.1.evidence.cpus.0", "cpu", "busy_percent", "avg_mhz", "max_mhz", "base_mhz",
	            "percent_of_max");
	pw_assert_json_null(root, "alerts.1.evidence.cpus.0.base_mhz");
	pw_assert_json_number(root, "alerts.1.evidence.cpus.0.busy_percent", 91.0);
	pw_assert_json_number(root, "alerts.1.evidence.cpus.0.avg_mhz", 2000);
	ck_assert(json_is_integer(pw_json_at(root, "alerts.1.evidence.cpus.0.avg_mhz")));
	pw_assert_json_number(root, "alerts.1.evidence.cpus.0.max_mhz", 3000);
	pw_assert_json_number(root, "alerts.1.evidence.cpus.0.percent_of_max", 66.7);
	pw_assert_json_number(root, "alerts.1.evidence.cpus.1.cpu", 5);
	pw_assert_json_number(root, "alerts.1.evidence.cpus.1.percent_of_max", 62.0);
	json_decref(root);

	v->alerts[1].evidence.frequency.from_time_in_state = true;
	v->alerts[1].evidence.frequency.governor[0] = '\0';
	v->alerts[1].evidence.frequency.cpus[1].max_khz = 0; /* not read */
	root = render_parsed(v, NULL);
	pw_assert_json_string(root, "alerts.1.evidence.source", "time_in_state");
	pw_assert_json_null(root, "alerts.1.evidence.governor");
	pw_assert_json_null(root, "alerts.1.evidence.cpus.1.max_mhz");
	pw_assert_json_null(root, "alerts.1.evidence.cpus.1.percent_of_max");
	json_decref(root);

	/* intel_pstate: compared with base_frequency. */
	v->alerts[1].evidence.frequency.reference_base = true;
	v->alerts[1].evidence.frequency.cpus[0].base_khz = 2900000;
	root = render_parsed(v, NULL);
	pw_assert_json_string(root, "alerts.1.evidence.reference", "base_frequency");
	pw_assert_json_number(root, "alerts.1.evidence.cpus.0.base_mhz", 2900);
	json_decref(root);
	free(v);
}
END_TEST

START_TEST(test_rate_drop)
{
	struct pw_detector_view *v = make_view();
	json_t *root = render_parsed(v, NULL);

	ASSERT_KEYS(root, "alerts.2.evidence", "scope", "irq", "device", "per_second", "baseline_per_second",
	            "baseline_spread", "lowest_per_second", "since");
	pw_assert_json_string(root, "alerts.2.evidence.scope", "line");
	pw_assert_json_string(root, "alerts.2.evidence.irq", "41");
	pw_assert_json_string(root, "alerts.2.evidence.device", "eth0-rx-0");
	pw_assert_json_number(root, "alerts.2.evidence.per_second", 12.0);
	pw_assert_json_number(root, "alerts.2.evidence.baseline_per_second", 9000);
	pw_assert_json_number(root, "alerts.2.evidence.baseline_spread", 451);
	pw_assert_json_number(root, "alerts.2.evidence.lowest_per_second", 3.3);
	pw_assert_json_string(root, "alerts.2.evidence.since", "2023-11-14T22:11:45.123Z");
	pw_assert_json_string(root, "alerts.2.labels.scope", "irq 41 (eth0-rx-0)");
	json_decref(root);

	v->alerts[2].evidence.rate_drop.host = true;
	v->alerts[2].evidence.rate_drop.started_real_ns = 0;
	root = render_parsed(v, NULL);
	pw_assert_json_string(root, "alerts.2.evidence.scope", "host");
	pw_assert_json_null(root, "alerts.2.evidence.since");
	json_decref(root);
	free(v);
}
END_TEST

START_TEST(test_memory)
{
	struct pw_detector_view *v = make_view();
	json_t *root = render_parsed(v, NULL);

	for (int i = 3; i <= 4; i++) {
		char path[32];
		snprintf(path, sizeof(path), "alerts.%d.evidence", i);
		ASSERT_KEYS(root, path, "swap_out_pages_per_second", "swap_out_baseline_pages_per_second",
		            "swap_in_pages_per_second", "swap_in_baseline_pages_per_second",
		            "major_faults_per_second", "major_faults_baseline_per_second",
		            "refaults_per_second", "iowait_percent", "iowait_baseline_percent",
		            "memory_total_mib", "memory_available_mib", "memory_free_mib", "page_cache_mib",
		            "swap_total_mib", "swap_free_mib", "pressure_memory_some_percent",
		            "pressure_io_some_percent", "io_stall_percent", "io_stall_baseline_percent",
	            "memory_stall_percent", "memory_stall_baseline_percent", "procs_blocked", "disks");
	}
	ASSERT_KEYS(root, "alerts.3.evidence.disks.top.0", "name", "utilization_percent", "reads_per_second",
	            "writes_per_second");
	pw_assert_json_string(root, "alerts.3.evidence.disks.status", "ok");
	pw_assert_json_string(root, "alerts.3.evidence.disks.top.0.name", "sda");
	pw_assert_json_number(root, "alerts.3.evidence.disks.top.0.utilization_percent", 86.6);
	pw_assert_json_number(root, "alerts.3.evidence.disks.top.0.reads_per_second", 120);
	pw_assert_json_number(root, "alerts.3.evidence.disks.top.0.writes_per_second", 311);
	pw_assert_json_string(root, "alerts.3.evidence.disks.top.1.name", "sdb");
	pw_assert_json_string(root, "alerts.4.evidence.disks.status", "warming_up");
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "alerts.4.evidence.disks.top")), 0);
	pw_assert_json_number(root, "alerts.3.evidence.swap_out_pages_per_second", 250);
	pw_assert_json_number(root, "alerts.3.evidence.swap_out_baseline_pages_per_second", 0.0);
	pw_assert_json_number(root, "alerts.3.evidence.swap_in_pages_per_second", 80.1);
	pw_assert_json_number(root, "alerts.3.evidence.major_faults_baseline_per_second", 2.3);
	pw_assert_json_number(root, "alerts.3.evidence.refaults_per_second", 1200);
	pw_assert_json_number(root, "alerts.3.evidence.iowait_percent", 23.5);
	pw_assert_json_number(root, "alerts.3.evidence.iowait_baseline_percent", 1.1);
	pw_assert_json_number(root, "alerts.3.evidence.memory_total_mib", 15921.3);
	pw_assert_json_number(root, "alerts.3.evidence.memory_available_mib", 200.0);
	pw_assert_json_number(root, "alerts.3.evidence.page_cache_mib", 100.0);
	pw_assert_json_number(root, "alerts.3.evidence.swap_free_mib", 1024.0);
	pw_assert_json_number(root, "alerts.3.evidence.pressure_memory_some_percent", 12.34);
	pw_assert_json_null(root, "alerts.3.evidence.pressure_io_some_percent");
	pw_assert_json_number(root, "alerts.3.evidence.procs_blocked", 7);
	pw_assert_json_string(root, "alerts.4.name", "IoWaitHigh");
	pw_assert_json_number(root, "alerts.4.value", 23.5);
	json_decref(root);

	/* meminfo not read: the sizes are unknown, not 0. */
	v->alerts[3].evidence.memory.mem_total_kb = 0;
	root = render_parsed(v, NULL);
	pw_assert_json_null(root, "alerts.3.evidence.memory_total_mib");
	pw_assert_json_null(root, "alerts.3.evidence.swap_total_mib");
	json_decref(root);
	free(v);
}
END_TEST

START_TEST(test_system_time_steal)
{
	struct pw_detector_view *v = make_view();
	json_t *root = render_parsed(v, NULL);

	ASSERT_KEYS(root, "alerts.5.evidence", "system_percent", "user_percent", "system_baseline_percent",
	            "context_switches_per_second", "context_switches_baseline_per_second", "run_queue",
	            "run_queue_baseline", "kernel_share_of_busy_required", "cpus", "processes");
	pw_assert_json_string(root, "alerts.5.evidence.processes.status", "ok");
	ck_assert(json_is_true(pw_json_at(root, "alerts.5.evidence.processes.truncated")));
	pw_assert_json_number(root, "alerts.5.evidence.processes.processes_scanned", 4096);
	ASSERT_KEYS(root, "alerts.5.evidence.processes.top.0", "pid", "comm", "system_percent_of_cpu",
	            "user_percent_of_cpu");
	pw_assert_json_number(root, "alerts.5.evidence.processes.top.0.pid", 4242);
	pw_assert_json_string(root, "alerts.5.evidence.processes.top.0.comm", "a) (b");
	pw_assert_json_number(root, "alerts.5.evidence.processes.top.0.system_percent_of_cpu", 95.3);
	pw_assert_json_number(root, "alerts.5.evidence.processes.top.0.user_percent_of_cpu", 1.2);
	pw_assert_json_string(root, "alerts.5.evidence.processes.top.1.comm", "reader");
	pw_assert_json_number(root, "alerts.5.evidence.system_percent", 71.0);
	pw_assert_json_number(root, "alerts.5.evidence.user_percent", 9.0);
	pw_assert_json_number(root, "alerts.5.evidence.system_baseline_percent", 8.0);
	pw_assert_json_number(root, "alerts.5.evidence.context_switches_per_second", 250000);
	pw_assert_json_number(root, "alerts.5.evidence.context_switches_baseline_per_second", 30001);
	pw_assert_json_number(root, "alerts.5.evidence.run_queue", 48.0);
	pw_assert_json_number(root, "alerts.5.evidence.run_queue_baseline", 2.3);
	ASSERT_KEYS(root, "alerts.5.evidence.cpus.0", "cpu", "system_percent", "user_percent");
	pw_assert_json_number(root, "alerts.5.evidence.cpus.0.cpu", 2);
	pw_assert_json_number(root, "alerts.5.evidence.cpus.0.system_percent", 90.0);
	pw_assert_json_number(root, "alerts.5.evidence.cpus.1.user_percent", 10.0);
	ASSERT_KEYS(root, "alerts.6.evidence", "steal_percent", "steal_baseline_percent");
	json_decref(root);

	/* Not probed (the detector's own copy, or a replay): a status, no figures. */
	memset(&v->alerts[5].evidence.system_time.processes, 0, sizeof(struct pw_ev_processes));
	root = render_parsed(v, NULL);
	pw_assert_json_string(root, "alerts.5.evidence.processes.status", "not_probed");
	pw_assert_json_null(root, "alerts.5.evidence.processes.system_cpus");
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "alerts.5.evidence.processes.top")), 0);
	pw_assert_json_number(root, "alerts.6.evidence.steal_percent", 15.3);
	pw_assert_json_number(root, "alerts.6.evidence.steal_baseline_percent", 0.4);
	json_decref(root);
	free(v);
}
END_TEST

START_TEST(test_empty)
{
	static const char empty[] = "{\n  \"alerts\": []\n}\n";
	struct pw_detector_view *v = make_view();
	char *text = pw_alerts_render(NULL);

	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, empty);
	free(text);
	v->nalerts = 0;
	text = pw_alerts_render(v);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, empty);
	free(text);
	json_t *list = pw_alerts_json_array(NULL);
	ck_assert(json_is_array(list));
	ck_assert_uint_eq(json_array_size(list), 0);
	json_decref(list);
	free(v);
}
END_TEST

/* Only pending and firing alerts appear; the count never reads past the array. */
START_TEST(test_inactive_skipped)
{
	struct pw_detector_view *v = make_view();

	v->alerts[0].state = PW_ALERT_INACTIVE;
	v->nalerts = 1000;
	json_t *root = render_parsed(v, NULL);
	ck_assert_uint_eq(json_array_size(pw_json_at(root, "alerts")), 6);
	pw_assert_json_string(root, "alerts.0.name", "CpuFrequencyLow");
	json_decref(root);
	free(v);
}
END_TEST

/* Figures not derived on this sample are null, never NaN (invalid JSON) or a made-up 0. */
START_TEST(test_non_finite)
{
	struct pw_detector_view *v = make_view();

	v->alerts[0].value = NAN;
	v->alerts[0].baseline = INFINITY;
	v->alerts[0].evidence.interrupt_time.host_irq = NAN;
	v->alerts[0].evidence.interrupt_time.intr_rate = -INFINITY;
	v->alerts[0].evidence.interrupt_time.lines[0].rate = NAN;
	v->alerts[1].evidence.frequency.busy_avg_ratio = NAN;
	v->alerts[3].evidence.memory.refaults = NAN;
	v->alerts[5].evidence.system_time.run_queue = NAN;
	v->alerts[6].evidence.steal.host_steal = INFINITY;
	json_t *root = render_parsed(v, NULL);
	pw_assert_json_null(root, "alerts.0.value");
	pw_assert_json_null(root, "alerts.0.baseline.mean");
	pw_assert_json_number(root, "alerts.0.baseline.spread", 1.0);
	pw_assert_json_null(root, "alerts.0.evidence.host_irq_percent");
	pw_assert_json_null(root, "alerts.0.evidence.interrupts_per_second");
	pw_assert_json_null(root, "alerts.0.evidence.lines.0.per_second");
	pw_assert_json_null(root, "alerts.1.evidence.busy_average_percent_of_max");
	pw_assert_json_null(root, "alerts.3.evidence.refaults_per_second");
	pw_assert_json_null(root, "alerts.5.evidence.run_queue");
	pw_assert_json_null(root, "alerts.6.evidence.steal_percent");
	json_decref(root);
	free(v);
}
END_TEST

/* Kernel names cut inside a UTF-8 character, or filling their buffer without a NUL, still make a
 * valid document. */
START_TEST(test_hostile_text)
{
	struct pw_detector_view *v = make_view();
	struct pw_ev_line *line = &v->alerts[0].evidence.interrupt_time.lines[0];

	snprintf(v->alerts[2].scope, sizeof(v->alerts[2].scope), "irq 41 (eth\xC3\xA9\xC3)");
	memset(line->device, 'x', sizeof(line->device));
	memset(v->alerts[0].summary, 's', sizeof(v->alerts[0].summary));
	json_t *root = render_parsed(v, NULL);
	/* The whole "é" stays; the byte left of a cut character is escaped. */
	pw_assert_json_string(root, "alerts.2.labels.scope", "irq 41 (eth\xC3\xA9\\xc3)");
	ck_assert_uint_eq(strlen(json_string_value(pw_json_at(root, "alerts.0.evidence.lines.0.device"))),
	                  PW_IRQ_DEVICE_MAX);
	ck_assert_uint_eq(strlen(json_string_value(pw_json_at(root, "alerts.0.summary"))),
	                  sizeof(v->alerts[0].summary));
	json_decref(root);
	free(v);
}
END_TEST

START_TEST(test_urgency)
{
	struct pw_detector_view *v = make_view();
	const struct pw_alert *order[PW_ALERT_COUNT];
	/* firing critical, firing warning, pending critical, pending warning; rule order within. */
	static const enum pw_alert_name want[] = {
	        PW_ALERT_INTERRUPT_TIME_HIGH, PW_ALERT_MEMORY_SWAPPING,  PW_ALERT_INTERRUPT_RATE_DROP,
	        PW_ALERT_STEAL_HIGH,          PW_ALERT_SYSTEM_TIME_HIGH, PW_ALERT_CPU_FREQUENCY_LOW,
	        PW_ALERT_IOWAIT_HIGH,
	};

	ck_assert_uint_eq(pw_alerts_by_urgency(v, order, PW_ALERT_COUNT), 7);
	for (int i = 0; i < 7; i++)
		ck_assert_msg(order[i]->name == want[i], "position %d: %s, want %s", i,
		              pw_alert_name_str(order[i]->name), pw_alert_name_str(want[i]));
	/* A short buffer keeps the most urgent. */
	ck_assert_uint_eq(pw_alerts_by_urgency(v, order, 3), 3);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(order[i]->name, want[i]);
	ck_assert_uint_eq(pw_alerts_by_urgency(NULL, order, PW_ALERT_COUNT), 0);
	free(v);
}
END_TEST

START_TEST(test_helpers)
{
	json_t *j = pw_json_rfc3339(-1); /* one nanosecond before the epoch */

	ck_assert_str_eq(json_string_value(j), "1969-12-31T23:59:59.999Z");
	json_decref(j);
	j = pw_json_rfc3339(NOW_NS);
	ck_assert_str_eq(json_string_value(j), "2023-11-14T22:13:20.123Z");
	json_decref(j);
	j = pw_json_rate(99.96);
	ck_assert(json_real_value(j) == 100.0);
	json_decref(j);
	j = pw_json_text("", 8);
	ck_assert(json_is_null(j));
	json_decref(j);
	j = pw_json_mhz(1499);
	ck_assert_int_eq(json_integer_value(j), 1);
	json_decref(j);
}
END_TEST

/* One transition as a JSON line (--replay --json): flat keys in order, "resolved" for firing ->
 * inactive, the sample's time, the evidence as in /alerts. */
START_TEST(test_event)
{
	struct pw_alert_event ev = {.from = PW_ALERT_FIRING, .resolved = true, .real_ns = NOW_NS};
	json_t *obj;

	fill_rate_drop(&ev.alert);
	ev.alert.state = PW_ALERT_INACTIVE;
	obj = pw_alert_event_json(&ev);
	ck_assert_ptr_nonnull(obj);
	ASSERT_KEYS(obj, "", "time", "alert", "from", "to", "severity", "scope", "summary", "description",
	            "evidence");
	pw_assert_json_string(obj, "time", "2023-11-14T22:13:20.123Z");
	pw_assert_json_string(obj, "alert", "InterruptRateDrop");
	pw_assert_json_string(obj, "from", "firing");
	pw_assert_json_string(obj, "to", "resolved");
	pw_assert_json_string(obj, "severity", "warning");
	pw_assert_json_string(obj, "scope", "irq 41 (eth0-rx-0)");
	pw_assert_json_string(obj, "evidence.device", "eth0-rx-0");
	pw_assert_json_number(obj, "evidence.baseline_per_second", 9000);
	json_decref(obj);

	ev = (struct pw_alert_event){.from = PW_ALERT_INACTIVE, .real_ns = NOW_NS};
	alert_head(&ev.alert, PW_ALERT_STEAL_HIGH, PW_ALERT_PENDING, PW_SEVERITY_CRITICAL, "host");
	obj = pw_alert_event_json(&ev);
	pw_assert_json_string(obj, "from", "inactive");
	pw_assert_json_string(obj, "to", "pending");
	pw_assert_json_string(obj, "severity", "critical");
	json_decref(obj);
}
END_TEST

static Suite *alerts_json_suite(void)
{
	Suite *s = suite_create("alerts_json");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_golden);
	tcase_add_test(core, test_common_fields);
	tcase_add_test(core, test_interrupt_time);
	tcase_add_test(core, test_frequency);
	tcase_add_test(core, test_rate_drop);
	tcase_add_test(core, test_memory);
	tcase_add_test(core, test_system_time_steal);
	tcase_add_test(core, test_empty);
	tcase_add_test(core, test_urgency);
	tcase_add_test(core, test_helpers);
	tcase_add_test(core, test_event);
	tcase_add_test(malformed, test_inactive_skipped);
	tcase_add_test(malformed, test_non_finite);
	tcase_add_test(malformed, test_hostile_text);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(alerts_json_suite());
}
