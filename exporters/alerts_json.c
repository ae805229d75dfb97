/* alerts_json.c — the detector's active alerts as JSON with jansson: the /alerts document and the
 * "alerts" list of /status.
 *
 * One alert: name, state, severity, when it started (and fired), its words, its headline figure
 * against the baseline, the labels a notifier groups by, and the evidence of its rule under named
 * keys (one function per rule below). Rounding as /status: percentages 1 decimal, rates 1 decimal
 * below 100/s and whole above, MiB 1 decimal, MHz whole, PSI the kernel's 2 decimals; a figure that
 * is not finite (not derived on this sample) is null. */
#include "alerts_json.h"
#include "json_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An allocation failure anywhere marks the build failed: the caller drops the whole array. */
struct build {
	bool failed;
};

/* obj[key] = value (stolen); any failure, including value == NULL, marks the build failed. */
/* ---- figure helpers -------------------------------------------------------------------------- */

static json_t *time_or_null(int64_t real_ns)
{
	return real_ns ? pw_json_rfc3339(real_ns) : json_null();
}

/* MiB with one decimal, or null when meminfo was not read (MemTotal 0). */
static json_t *mib(uint64_t kb, bool known)
{
	return known ? pw_json_real((double)kb / 1024.0, 1) : json_null();
}

/* PSI avg10 in hundredths of a percent; UINT32_MAX: the kernel has none. */
static json_t *psi_percent(uint32_t hundredths)
{
	return hundredths == UINT32_MAX ? json_null() : pw_json_real(hundredths / 100.0, 2);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* ---- probed evidence (lib/probes.h): present with a status, figures null unless "ok" -------- */

static json_t *probe_status(uint32_t status)
{
	static const char *const names[] = {"not_probed", "ok", "warming_up", "unavailable"};
	return json_string(status < sizeof(names) / sizeof(names[0]) ? names[status] : "unknown");
}

/* A share of one CPU (1.0 = a whole CPU) in percent, when measured. */
static json_t *cpu_percent(bool ok, float cpus)
{
	return ok ? pw_json_percent(cpus) : json_null();
}

static json_t *processes(struct build *b, const struct pw_ev_processes *ev)
{
	json_t *obj = json_object(), *top = json_array();
	bool ok = ev->status == PW_PROBE_OK;

	pw_json_set(&b->failed, obj, "status", probe_status(ev->status));
	pw_json_set(&b->failed, obj, "window_seconds", ok ? pw_json_real(ev->window_s, 2) : json_null());
	pw_json_set(&b->failed, obj, "processes_scanned", json_integer(ev->scanned));
	pw_json_set(&b->failed, obj, "truncated", json_boolean(ev->truncated));
	pw_json_set(&b->failed, obj, "malformed_skipped", json_integer(ev->malformed));
	pw_json_set(&b->failed, obj, "system_cpus", ok ? pw_json_real(ev->system, 2) : json_null());
	pw_json_set(&b->failed, obj, "user_cpus", ok ? pw_json_real(ev->user, 2) : json_null());
	pw_json_set(&b->failed, obj, "host_busy_cpus", ok ? pw_json_real(ev->host_busy, 2) : json_null());
	pw_json_set(&b->failed, obj, "host_interrupt_cpus",
	            ok ? pw_json_real(ev->host_handlers, 2) : json_null());
	for (uint32_t i = 0; ok && i < min_u32(ev->n, PW_EV_PROCS); i++) {
		json_t *proc = json_object();
		pw_json_set(&b->failed, proc, "pid", json_integer(ev->top[i].pid));
		pw_json_set(&b->failed, proc, "comm", pw_json_text(ev->top[i].comm, sizeof(ev->top[i].comm)));
		pw_json_set(&b->failed, proc, "system_percent_of_cpu", cpu_percent(ok, ev->top[i].system));
		pw_json_set(&b->failed, proc, "user_percent_of_cpu", cpu_percent(ok, ev->top[i].user));
		pw_json_push(&b->failed, top, proc);
	}
	pw_json_set(&b->failed, obj, "top", top);
	return obj;
}

static json_t *disks(struct build *b, const struct pw_ev_disks *ev)
{
	json_t *obj = json_object(), *top = json_array();
	bool ok = ev->status == PW_PROBE_OK;

	pw_json_set(&b->failed, obj, "status", probe_status(ev->status));
	pw_json_set(&b->failed, obj, "malformed_skipped", json_integer(ev->malformed));
	for (uint32_t i = 0; ok && i < min_u32(ev->n, PW_EV_DISKS); i++) {
		json_t *disk = json_object();
		pw_json_set(&b->failed, disk, "name", pw_json_text(ev->top[i].name, sizeof(ev->top[i].name)));
		pw_json_set(&b->failed, disk, "utilization_percent", pw_json_percent(ev->top[i].utilization));
		pw_json_set(&b->failed, disk, "reads_per_second", pw_json_rate(ev->top[i].reads));
		pw_json_set(&b->failed, disk, "writes_per_second", pw_json_rate(ev->top[i].writes));
		pw_json_push(&b->failed, top, disk);
	}
	pw_json_set(&b->failed, obj, "top", top);
	return obj;
}

static json_t *u32_or_null(uint32_t v)
{
	return v == UINT32_MAX ? json_null() : json_integer(v);
}

static json_t *tunables(struct build *b, const struct pw_ev_governor *g)
{
	json_t *obj = json_object();
	bool ok = g->status == PW_PROBE_OK;

	pw_json_set(&b->failed, obj, "status", probe_status(g->status));
	pw_json_set(&b->failed, obj, "up_threshold_percent", ok ? u32_or_null(g->up_threshold) : json_null());
	pw_json_set(&b->failed, obj, "sampling_rate_us", ok ? u32_or_null(g->sampling_rate_us) : json_null());
	pw_json_set(&b->failed, obj, "energy_performance_preference",
	            ok ? pw_json_text(g->epp, sizeof(g->epp)) : json_null());
	return obj;
}

/* ---- evidence, one function per rule --------------------------------------------------------- */

/* irq, device, per_second, baseline_per_second of one interrupt line. */
static void line_fields(struct build *b, json_t *obj, const struct pw_ev_line *line)
{
	pw_json_set(&b->failed, obj, "irq", pw_json_text(line->irq, sizeof(line->irq)));
	pw_json_set(&b->failed, obj, "device", pw_json_text(line->device, sizeof(line->device)));
	pw_json_set(&b->failed, obj, "per_second", pw_json_rate(line->rate));
	pw_json_set(&b->failed, obj, "baseline_per_second", pw_json_rate(line->baseline));
}

static json_t *irq_cpus(struct build *b, const struct pw_ev_interrupt_time *ev)
{
	json_t *list = json_array();

	for (uint32_t i = 0; i < min_u32(ev->ncpus, PW_EV_CPUS); i++) {
		json_t *cpu = json_object();
		pw_json_set(&b->failed, cpu, "cpu", json_integer(ev->cpus[i].cpu));
		pw_json_set(&b->failed, cpu, "irq_percent", pw_json_percent(ev->cpus[i].irq));
		pw_json_set(&b->failed, cpu, "softirq_percent", pw_json_percent(ev->cpus[i].softirq));
		pw_json_set(&b->failed, cpu, "baseline_percent", pw_json_percent(ev->cpus[i].baseline));
		pw_json_push(&b->failed, list, cpu);
	}
	return list;
}

static json_t *irq_softirqs(struct build *b, const struct pw_ev_interrupt_time *ev)
{
	json_t *list = json_array();

	for (uint32_t i = 0; i < min_u32(ev->nsoftirqs, PW_EV_SOFTIRQS); i++) {
		uint32_t type = ev->softirqs[i].type;
		json_t *item = json_object();
		pw_json_set(&b->failed, item, "type",
		            type < PW_SOFTIRQ_COUNT ? json_string(pw_softirq_name((enum pw_softirq_type)type))
		                                    : json_null());
		pw_json_set(&b->failed, item, "per_second", pw_json_rate(ev->softirqs[i].rate));
		pw_json_set(&b->failed, item, "baseline_per_second", pw_json_rate(ev->softirqs[i].baseline));
		pw_json_push(&b->failed, list, item);
	}
	return list;
}

static json_t *ev_interrupt_time(struct build *b, const struct pw_ev_interrupt_time *ev)
{
	json_t *obj = json_object(), *lines = json_array();

	pw_json_set(&b->failed, obj, "host_irq_percent", pw_json_percent(ev->host_irq));
	pw_json_set(&b->failed, obj, "host_softirq_percent", pw_json_percent(ev->host_softirq));
	pw_json_set(&b->failed, obj, "host_baseline_percent", pw_json_percent(ev->host_baseline));
	pw_json_set(&b->failed, obj, "interrupts_per_second", pw_json_rate(ev->intr_rate));
	pw_json_set(&b->failed, obj, "interrupts_baseline_per_second", pw_json_rate(ev->intr_baseline));
	/* Why it counts: a dearer event (cost), or more events taking a real part of a CPU (traffic). */
	pw_json_set(&b->failed, obj, "cause", json_string(ev->traffic ? "traffic" : "cost"));
	pw_json_set(&b->failed, obj, "cost_per_event_us", pw_json_real(ev->cost_us, 2));
	pw_json_set(&b->failed, obj, "cost_per_event_baseline_us", pw_json_real(ev->cost_baseline_us, 2));
	pw_json_set(&b->failed, obj, "added_events_per_second", pw_json_rate(ev->added_events));
	pw_json_set(&b->failed, obj, "time_estimated", json_boolean(ev->time_estimated));
	pw_json_set(&b->failed, obj, "cpus", irq_cpus(b, ev));
	for (uint32_t i = 0; i < min_u32(ev->nlines, PW_EV_LINES); i++) {
		json_t *line = json_object();
		line_fields(b, line, &ev->lines[i]);
		pw_json_set(&b->failed, line, "smp_affinity_list",
		            pw_json_text(ev->affinity[i], sizeof(ev->affinity[i])));
		pw_json_push(&b->failed, lines, line);
	}
	pw_json_set(&b->failed, obj, "lines", lines);
	pw_json_set(&b->failed, obj, "softirqs", irq_softirqs(b, ev));
	pw_json_set(&b->failed, obj, "processes", processes(b, &ev->processes));
	return obj;
}

static json_t *ev_frequency(struct build *b, const struct pw_ev_frequency *ev)
{
	json_t *obj = json_object(), *cpus = json_array();

	pw_json_set(&b->failed, obj, "busy_cpus", json_integer(ev->busy_cpus));
	pw_json_set(&b->failed, obj, "busy_average_percent_of_max", pw_json_percent(ev->busy_avg_ratio));
	pw_json_set(&b->failed, obj, "source",
	            json_string(ev->from_time_in_state ? "time_in_state" : "scaling_cur_freq"));
	pw_json_set(&b->failed, obj, "reference",
	            json_string(ev->reference_base ? "base_frequency" : "cpuinfo_max_freq"));
	pw_json_set(&b->failed, obj, "governor", pw_json_text(ev->governor, sizeof(ev->governor)));
	pw_json_set(&b->failed, obj, "driver", pw_json_text(ev->driver, sizeof(ev->driver)));
	for (uint32_t i = 0; i < min_u32(ev->ncpus, PW_EV_FREQ_CPUS); i++) {
		uint32_t avg = ev->cpus[i].avg_khz, max = ev->cpus[i].max_khz;
		json_t *cpu = json_object();
		pw_json_set(&b->failed, cpu, "cpu", json_integer(ev->cpus[i].cpu));
		pw_json_set(&b->failed, cpu, "busy_percent", pw_json_percent(ev->cpus[i].busy));
		pw_json_set(&b->failed, cpu, "avg_mhz", pw_json_mhz(avg));
		pw_json_set(&b->failed, cpu, "max_mhz", pw_json_mhz(max));
		pw_json_set(&b->failed, cpu, "base_mhz", pw_json_mhz(ev->cpus[i].base_khz));
		pw_json_set(&b->failed, cpu, "percent_of_max",
		            avg && max ? pw_json_percent((double)avg / max) : json_null());
		pw_json_push(&b->failed, cpus, cpu);
	}
	pw_json_set(&b->failed, obj, "cpus", cpus);
	pw_json_set(&b->failed, obj, "tunables", tunables(b, &ev->tunables));
	return obj;
}

static json_t *ev_rate_drop(struct build *b, const struct pw_ev_rate_drop *ev)
{
	json_t *obj = json_object();

	pw_json_set(&b->failed, obj, "scope", json_string(ev->host ? "host" : "line"));
	line_fields(b, obj, &ev->line);
	pw_json_set(&b->failed, obj, "baseline_spread", pw_json_rate(ev->baseline_spread));
	pw_json_set(&b->failed, obj, "lowest_per_second", pw_json_rate(ev->min_rate));
	pw_json_set(&b->failed, obj, "since", time_or_null(ev->started_real_ns));
	return obj;
}

/* MemorySwapping and IoWaitHigh share the memory-pressure picture. */
static json_t *ev_memory(struct build *b, const struct pw_ev_memory *ev)
{
	json_t *obj = json_object();
	bool mem = ev->mem_total_kb > 0;

	pw_json_set(&b->failed, obj, "swap_out_pages_per_second", pw_json_rate(ev->swap_out));
	pw_json_set(&b->failed, obj, "swap_out_baseline_pages_per_second",
	            pw_json_rate(ev->swap_out_baseline));
	pw_json_set(&b->failed, obj, "swap_in_pages_per_second", pw_json_rate(ev->swap_in));
	pw_json_set(&b->failed, obj, "swap_in_baseline_pages_per_second", pw_json_rate(ev->swap_in_baseline));
	pw_json_set(&b->failed, obj, "major_faults_per_second", pw_json_rate(ev->major_faults));
	pw_json_set(&b->failed, obj, "major_faults_baseline_per_second",
	            pw_json_rate(ev->major_faults_baseline));
	pw_json_set(&b->failed, obj, "refaults_per_second", pw_json_rate(ev->refaults));
	pw_json_set(&b->failed, obj, "iowait_percent", pw_json_percent(ev->iowait));
	pw_json_set(&b->failed, obj, "iowait_baseline_percent", pw_json_percent(ev->iowait_baseline));
	pw_json_set(&b->failed, obj, "memory_total_mib", mib(ev->mem_total_kb, mem));
	pw_json_set(&b->failed, obj, "memory_available_mib", mib(ev->mem_available_kb, mem));
	pw_json_set(&b->failed, obj, "memory_free_mib", mib(ev->mem_free_kb, mem));
	pw_json_set(&b->failed, obj, "page_cache_mib", mib(ev->cached_kb, mem));
	pw_json_set(&b->failed, obj, "swap_total_mib", mib(ev->swap_total_kb, mem));
	pw_json_set(&b->failed, obj, "swap_free_mib", mib(ev->swap_free_kb, mem));
	pw_json_set(&b->failed, obj, "pressure_memory_some_percent", psi_percent(ev->psi_memory_some));
	pw_json_set(&b->failed, obj, "pressure_io_some_percent", psi_percent(ev->psi_io_some));
	pw_json_set(&b->failed, obj, "io_stall_percent", pw_json_real(ev->psi_io_stall, 1));
	pw_json_set(&b->failed, obj, "io_stall_baseline_percent", pw_json_real(ev->psi_io_baseline, 1));
	pw_json_set(&b->failed, obj, "memory_stall_percent", pw_json_real(ev->psi_memory_stall, 1));
	pw_json_set(&b->failed, obj, "memory_stall_baseline_percent",
	            pw_json_real(ev->psi_memory_baseline, 1));
	pw_json_set(&b->failed, obj, "procs_blocked", json_integer(ev->procs_blocked));
	pw_json_set(&b->failed, obj, "disks", disks(b, &ev->disks));
	return obj;
}

static json_t *ev_system_time(struct build *b, const struct pw_ev_system_time *ev)
{
	json_t *obj = json_object(), *cpus = json_array();

	pw_json_set(&b->failed, obj, "system_percent", pw_json_percent(ev->host_system));
	pw_json_set(&b->failed, obj, "user_percent", pw_json_percent(ev->host_user));
	pw_json_set(&b->failed, obj, "system_baseline_percent", pw_json_percent(ev->system_baseline));
	pw_json_set(&b->failed, obj, "context_switches_per_second", pw_json_rate(ev->ctxt_rate));
	pw_json_set(&b->failed, obj, "context_switches_baseline_per_second", pw_json_rate(ev->ctxt_baseline));
	pw_json_set(&b->failed, obj, "run_queue", pw_json_real(ev->run_queue, 1));
	pw_json_set(&b->failed, obj, "run_queue_baseline", pw_json_real(ev->run_queue_baseline, 1));
	pw_json_set(&b->failed, obj, "kernel_share_of_busy_required",
	            pw_json_real(ev->kernel_mix_required, 2));
	for (uint32_t i = 0; i < min_u32(ev->ncpus, PW_EV_CPUS); i++) {
		json_t *cpu = json_object();
		pw_json_set(&b->failed, cpu, "cpu", json_integer(ev->cpus[i].cpu));
		pw_json_set(&b->failed, cpu, "system_percent", pw_json_percent(ev->cpus[i].system));
		pw_json_set(&b->failed, cpu, "user_percent", pw_json_percent(ev->cpus[i].user));
		pw_json_push(&b->failed, cpus, cpu);
	}
	pw_json_set(&b->failed, obj, "cpus", cpus);
	pw_json_set(&b->failed, obj, "processes", processes(b, &ev->processes));
	return obj;
}

static json_t *ev_steal(struct build *b, const struct pw_ev_steal *ev)
{
	json_t *obj = json_object();

	pw_json_set(&b->failed, obj, "steal_percent", pw_json_percent(ev->host_steal));
	pw_json_set(&b->failed, obj, "steal_baseline_percent", pw_json_percent(ev->steal_baseline));
	return obj;
}

static json_t *evidence(struct build *b, const struct pw_alert *a)
{
	switch (a->name) {
	case PW_ALERT_INTERRUPT_TIME_HIGH:
		return ev_interrupt_time(b, &a->evidence.interrupt_time);
	case PW_ALERT_CPU_FREQUENCY_LOW:
		return ev_frequency(b, &a->evidence.frequency);
	case PW_ALERT_INTERRUPT_RATE_DROP:
		return ev_rate_drop(b, &a->evidence.rate_drop);
	case PW_ALERT_MEMORY_SWAPPING:
	case PW_ALERT_IOWAIT_HIGH:
		return ev_memory(b, &a->evidence.memory);
	case PW_ALERT_SYSTEM_TIME_HIGH:
		return ev_system_time(b, &a->evidence.system_time);
	case PW_ALERT_STEAL_HIGH:
		return ev_steal(b, &a->evidence.steal);
	case PW_ALERT_COUNT:
		break;
	}
	return json_null();
}

/* ---- one alert -------------------------------------------------------------------------------- */

enum unit { UNIT_PERCENT, UNIT_PER_SECOND, UNIT_PAGES_PER_SECOND };

/* The unit of a rule's headline figure (value, baseline): shares and the frequency ratio are shown
 * in percent, rates per second. */
static enum unit headline_unit(enum pw_alert_name name)
{
	switch (name) {
	case PW_ALERT_INTERRUPT_RATE_DROP:
		return UNIT_PER_SECOND;
	case PW_ALERT_MEMORY_SWAPPING:
		return UNIT_PAGES_PER_SECOND;
	default:
		return UNIT_PERCENT;
	}
}

static json_t *headline(enum unit unit, double value)
{
	return unit == UNIT_PERCENT ? pw_json_percent(value) : pw_json_rate(value);
}

static json_t *labels(struct build *b, const struct pw_alert *a)
{
	json_t *obj = json_object();

	pw_json_set(&b->failed, obj, "alertname", json_string(pw_alert_name_str(a->name)));
	pw_json_set(&b->failed, obj, "severity", json_string(pw_severity_str(a->severity)));
	pw_json_set(&b->failed, obj, "scope", pw_json_text(a->scope, sizeof(a->scope)));
	return obj;
}

static json_t *alert_json(struct build *b, const struct pw_alert *a)
{
	static const char *const unit_names[] = {"percent", "per_second", "pages_per_second"};
	enum unit unit = headline_unit(a->name);
	json_t *obj = json_object(), *baseline = json_object();

	pw_json_set(&b->failed, obj, "name", json_string(pw_alert_name_str(a->name)));
	pw_json_set(&b->failed, obj, "state", json_string(pw_alert_state_str(a->state)));
	pw_json_set(&b->failed, obj, "severity", json_string(pw_severity_str(a->severity)));
	pw_json_set(&b->failed, obj, "started_at", pw_json_rfc3339(a->started_real_ns));
	pw_json_set(&b->failed, obj, "fired_at",
	            a->state == PW_ALERT_FIRING ? time_or_null(a->fired_real_ns) : json_null());
	pw_json_set(&b->failed, obj, "summary", pw_json_text(a->summary, sizeof(a->summary)));
	pw_json_set(&b->failed, obj, "description", pw_json_text(a->description, sizeof(a->description)));
	pw_json_set(&b->failed, obj, "value", headline(unit, a->value));
	pw_json_set(&b->failed, obj, "unit", json_string(unit_names[unit]));
	pw_json_set(&b->failed, baseline, "mean", headline(unit, a->baseline));
	pw_json_set(&b->failed, baseline, "spread", headline(unit, a->spread));
	pw_json_set(&b->failed, obj, "baseline", baseline);
	pw_json_set(&b->failed, obj, "labels", labels(b, a));
	pw_json_set(&b->failed, obj, "evidence", evidence(b, a));
	return obj;
}

json_t *pw_alert_event_json(const struct pw_alert_event *ev)
{
	const struct pw_alert *a = &ev->alert;
	struct build b = {.failed = false};
	json_t *obj = json_object();

	if (!obj)
		return NULL;
	pw_json_set(&b.failed, obj, "time", pw_json_rfc3339(ev->real_ns));
	pw_json_set(&b.failed, obj, "alert", json_string(pw_alert_name_str(a->name)));
	pw_json_set(&b.failed, obj, "from", json_string(pw_alert_state_str(ev->from)));
	pw_json_set(&b.failed, obj, "to",
	            json_string(ev->resolved ? "resolved" : pw_alert_state_str(a->state)));
	pw_json_set(&b.failed, obj, "severity", json_string(pw_severity_str(a->severity)));
	pw_json_set(&b.failed, obj, "scope", pw_json_text(a->scope, sizeof(a->scope)));
	pw_json_set(&b.failed, obj, "summary", pw_json_text(a->summary, sizeof(a->summary)));
	pw_json_set(&b.failed, obj, "description", pw_json_text(a->description, sizeof(a->description)));
	pw_json_set(&b.failed, obj, "evidence", evidence(&b, a));
	if (b.failed) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

/* ---- the list ---------------------------------------------------------------------------------- */

static bool active(const struct pw_alert *a)
{
	return a->state == PW_ALERT_PENDING || a->state == PW_ALERT_FIRING;
}

static uint32_t view_count(const struct pw_detector_view *view)
{
	return view ? min_u32(view->nalerts, PW_ALERT_COUNT) : 0;
}

json_t *pw_alerts_json_array(const struct pw_detector_view *view)
{
	struct build b = {.failed = false};
	json_t *list = json_array();

	if (!list)
		return NULL;
	for (uint32_t i = 0; i < view_count(view); i++)
		if (active(&view->alerts[i]))
			pw_json_push(&b.failed, list, alert_json(&b, &view->alerts[i]));
	if (b.failed) {
		json_decref(list);
		return NULL;
	}
	return list;
}

int pw_alerts_render_into(const struct pw_detector_view *view, struct pw_outbuf *out)
{
	json_t *root = json_object();
	int r = -1;

	if (root && json_object_set_new(root, "alerts", pw_alerts_json_array(view)) == 0)
		r = pw_json_dump_into(root, out);
	json_decref(root);
	return r;
}

char *pw_alerts_render(const struct pw_detector_view *view)
{
	json_t *root = json_object();
	char *text = NULL;

	/* json_object_set_new takes the array even when it fails. */
	if (root && json_object_set_new(root, "alerts", pw_alerts_json_array(view)) == 0)
		text = pw_json_dump(root);
	json_decref(root);
	return text;
}

static int urgency(const struct pw_alert *a)
{
	return (a->state == PW_ALERT_FIRING ? 2 : 0) + (a->severity == PW_SEVERITY_CRITICAL ? 1 : 0);
}

size_t pw_alerts_by_urgency(const struct pw_detector_view *view, const struct pw_alert **ret, size_t cap)
{
	size_t n = 0;

	for (uint32_t i = 0; i < view_count(view); i++) {
		const struct pw_alert *a = &view->alerts[i];
		if (!active(a))
			continue;
		/* Bounded insertion, stable: equals keep rule order. */
		size_t at = n < cap ? n++ : cap;
		while (at > 0 && urgency(ret[at - 1]) < urgency(a)) {
			if (at < cap)
				ret[at] = ret[at - 1];
			at--;
		}
		if (at < cap)
			ret[at] = a;
	}
	return n;
}
