/* status_text.c — /status for people: one screenful of plain text (GET /status?format=text or
 * Accept: text/plain). The diagnosis first, then the alerts, then CPU, frequency, interrupts and
 * memory, each value beside its baseline where the detector has one. Rendered from the JSON
 * document (status_json.c), so the two never disagree. */
#include "status_text.h"

#include "outbuf.h"
#include "status_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define WIDTH 100 /* wrap the diagnosis here */
#define LABEL 11  /* the left column */
#define DIAGNOSIS_LINES 6
#define MAX_PER_CPU 16 /* more CPUs are summed up, not listed */

static double num(json_t *root, const char *path)
{
	json_t *v = root;
	char key[64];

	while (v && *path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof(key))
			return NAN;
		memcpy(key, path, n);
		key[n] = '\0';
		v = json_object_get(v, key);
		path += n + (path[n] == '.');
	}
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	return s ? s : "";
}

__attribute__((format(printf, 2, 3))) static void out(struct pw_outbuf *o, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		pw_outbuf_append(o, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* The most of s[0..n) that ends on a character boundary (s[n] readable): a cut inside a UTF-8
 * sequence would leave bytes that are not UTF-8 in the text. Never 0 when n is not. */
static size_t fit_utf8(const char *s, size_t n)
{
	size_t at = n;

	while (at > 0 && ((unsigned char)s[at] & 0xc0) == 0x80)
		at--;
	return at ? at : n;
}

/* The diagnosis, word-wrapped under its label; cut with "..." past DIAGNOSIS_LINES. */
static void wrapped(struct pw_outbuf *o, const char *label, const char *text)
{
	size_t len = strlen(text), at = 0;

	for (int line = 0; at < len && line < DIAGNOSIS_LINES; line++) {
		size_t room = WIDTH - LABEL, n = len - at;
		if (n > room) {
			n = room;
			while (n > 0 && text[at + n] != ' ')
				n--;
			if (n == 0)
				n = fit_utf8(text + at, room);
		}
		bool last = line == DIAGNOSIS_LINES - 1 && at + n < len;
		out(o, "%-*s%.*s%s\n", LABEL, line ? "" : label, (int)n, text + at, last ? " ..." : "");
		at += n;
		while (at < len && text[at] == ' ')
			at++;
	}
}

/* "23.4% (normally 2.0%)" for a host share with a detector baseline. */
static void share(struct pw_outbuf *o, const char *name, double pct, const struct pw_detector_view *v,
                  enum pw_signal sig)
{
	if (!isfinite(pct))
		return;
	if (v && v->warm && v->baselines[sig].learned_s > 0)
		out(o, "  %s %.1f%% (normally %.1f%%)", name, pct, 100 * v->baselines[sig].mean);
	else
		out(o, "  %s %.1f%%", name, pct);
}

static void rate(struct pw_outbuf *o, const char *name, double per_s, const struct pw_detector_view *v,
                 enum pw_signal sig)
{
	if (!isfinite(per_s))
		return;
	if (v && v->warm && v->baselines[sig].learned_s > 0)
		out(o, "  %s %.0f/s (normally %.0f/s)", name, per_s, v->baselines[sig].mean);
	else
		out(o, "  %s %.0f/s", name, per_s);
}

static void alerts(struct pw_outbuf *o, json_t *root)
{
	json_t *list = json_object_get(root, "alerts"), *a;
	size_t i;

	if (json_array_size(list) == 0) {
		out(o, "%-*snone\n", LABEL, "ALERTS");
		return;
	}
	json_array_foreach(list, i, a)
	{
		const char *summary = str(a, "summary");
		size_t room = WIDTH - LABEL - 40, len = strlen(summary);
		out(o, "%-*s%s %s (%s) since %.19s: %.*s\n", LABEL, i ? "" : "ALERTS", str(a, "state"),
		    str(a, "name"), str(a, "severity"), str(a, "started_at"),
		    (int)(len > room ? fit_utf8(summary, room) : len), summary);
	}
}

static void cpu(struct pw_outbuf *o, json_t *root, const struct pw_detector_view *v)
{
	json_t *per_cpu = json_object_get(json_object_get(root, "cpu"), "per_cpu"), *c;
	size_t i;

	out(o, "%-*sbusy %.1f%% of %.0f CPUs", LABEL, "CPU", num(root, "cpu.busy_percent"),
	    num(root, "cpu.online"));
	share(o, "user", num(root, "cpu.modes_percent.user") + num(root, "cpu.modes_percent.nice"), v,
	      PW_SIG_USER);
	share(o, "system", num(root, "cpu.modes_percent.system"), v, PW_SIG_SYSTEM);
	out(o, "\n%-*s", LABEL, "");
	share(o, "iowait", num(root, "cpu.modes_percent.iowait"), v, PW_SIG_IOWAIT);
	share(o, "irq+softirq", num(root, "cpu.modes_percent.irq") + num(root, "cpu.modes_percent.softirq"),
	      v, PW_SIG_IRQ);
	share(o, "steal", num(root, "cpu.modes_percent.steal"), v, PW_SIG_STEAL);
	out(o, "\n%-*s", LABEL, "");
	if (json_array_size(per_cpu) > MAX_PER_CPU) {
		out(o, "  %zu CPUs; per-CPU figures in the JSON (/status)\n", json_array_size(per_cpu));
		return;
	}
	json_array_foreach(per_cpu, i, c)
	{
		double busy = num(c, "busy_percent"), sys = num(c, "modes_percent.system");
		if (i > 0 && i % 4 == 0)
			out(o, "\n%-*s", LABEL, "");
		if (isfinite(busy))
			out(o, "  cpu%zu %3.0f%% busy %3.0f%% sys", i, busy, sys);
		else
			out(o, "  cpu%zu offline", i);
	}
	out(o, "\n");
}

static void frequency(struct pw_outbuf *o, json_t *root)
{
	json_t *per_cpu = json_object_get(json_object_get(root, "cpu"), "per_cpu"), *c;
	size_t i, shown = 0;

	out(o, "%-*s", LABEL, "FREQUENCY");
	json_array_foreach(per_cpu, i, c)
	{
		json_t *f = json_object_get(c, "frequency");
		if (!json_is_object(f) || shown >= 8)
			continue;
		if (shown == 0)
			out(o, "%s %s;", str(f, "driver"), str(f, "governor"));
		out(o, " cpu%zu %.0f MHz %.0f%%", i, num(f, "avg_mhz"), num(f, "percent_of_max"));
		shown++;
	}
	out(o, "%s\n", shown ? "" : "no cpufreq");
}

static void interrupts(struct pw_outbuf *o, json_t *root, const struct pw_detector_view *v)
{
	json_t *top = json_object_get(json_object_get(root, "interrupts"), "top"), *l;
	json_t *soft = json_object_get(json_object_get(root, "softirqs"), "top");
	size_t i;

	out(o, "%-*s", LABEL, "INTERRUPTS");
	rate(o, "all", num(root, "interrupts.per_second"), v, PW_SIG_INTR_RATE);
	rate(o, "context switches", num(root, "context_switches_per_second"), v, PW_SIG_CTXT_RATE);
	out(o, "\n%-*s ", LABEL, "");
	json_array_foreach(top, i, l)
	{
		if (i < 4)
			out(o, " %s %.0f/s", str(l, "irq"), num(l, "per_second"));
	}
	out(o, "; softirqs");
	json_array_foreach(soft, i, l)
	{
		if (i < 4)
			out(o, " %s %.0f/s", str(l, "type"), num(l, "per_second"));
	}
	out(o, "\n");
}

static void memory(struct pw_outbuf *o, json_t *root, const struct pw_detector_view *v)
{
	out(o, "%-*savailable %.0f of %.0f MiB, page cache %.0f MiB, swap free %.0f of %.0f MiB\n", LABEL,
	    "MEMORY", num(root, "memory.available_mib"), num(root, "memory.total_mib"),
	    num(root, "memory.cached_mib"), num(root, "memory.swap_free_mib"),
	    num(root, "memory.swap_total_mib"));
	out(o, "%-*s", LABEL, "");
	rate(o, "swap out", num(root, "paging.swap_out_pages_per_second"), v, PW_SIG_SWAP_OUT);
	rate(o, "swap in", num(root, "paging.swap_in_pages_per_second"), v, PW_SIG_SWAP_IN);
	rate(o, "major faults", num(root, "paging.major_faults_per_second"), v, PW_SIG_MAJOR_FAULTS);
	out(o, "\n%-*s  pressure (some, avg10): cpu %.1f%% memory %.1f%% io %.1f%%; load %.2f %.2f %.2f\n",
	    LABEL, "", num(root, "pressure.cpu.some_avg10"), num(root, "pressure.memory.some_avg10"),
	    num(root, "pressure.io.some_avg10"), num(root, "load.load1"), num(root, "load.load5"),
	    num(root, "load.load15"));
}

/* Only when perfwatchd writes files: each one's state, a stuck write first of all. */
static void files(struct pw_outbuf *o, json_t *root)
{
	json_t *files = json_object_get(root, "files"), *f;
	const char *name, *sep = "";

	if (!json_is_object(files))
		return;
	out(o, "%-*s", LABEL, "FILES");
	json_object_foreach(files, name, f)
	{
		if (!json_is_object(f))
			continue;
		out(o, "%s%s ", sep, name);
		if (json_is_true(json_object_get(f, "stuck")))
			out(o, "STUCK: a write waiting %.1f s (the disk hangs?)", num(f, "blocked_seconds"));
		else
			out(o, "%s", json_is_true(json_object_get(f, "failing")) ? "failing" : "ok");
		if (num(f, "dropped") > 0)
			out(o, ", %.0f writes dropped", num(f, "dropped"));
		sep = "; ";
	}
	out(o, "\n");
}

int pw_status_render_text(struct pw_outbuf *o, const struct pw_sample *sample,
                          const struct pw_status_self *self)
{
	json_t *root = pw_status_document(sample, self);
	const struct pw_detector_view *v = self ? self->detector : NULL;

	if (!root)
		return -1;
	out(o, "perfwatch %s: %s, sample %.0f at %.19s, every %.3g s\n", str(root, "version"),
	    str(root, "status"), num(root, "sample.seq"), str(json_object_get(root, "sample"), "time"),
	    num(root, "sample.interval_seconds"));
	if (sample) {
		wrapped(o, "DIAGNOSIS", str(root, "diagnosis"));
		alerts(o, root);
		cpu(o, root, v);
		frequency(o, root);
		interrupts(o, root, v);
		memory(o, root, v);
		out(o, "%-*s%s; handler time %s\n", LABEL, "DETECTOR",
		    v ? (v->warm ? "warm" : "learning baselines") : "off",
		    str(json_object_get(root, "detector"), "handler_time")[0]
		            ? str(json_object_get(root, "detector"), "handler_time")
		            : "unknown");
		files(o, root);
	}
	json_decref(root);
	return 0;
}
