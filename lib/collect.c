/* collect.c — opens the counter files once and feeds the parsers from pread each sample. */
#define _GNU_SOURCE
#include "collect.h"

#include "cpufreq_scan.h"
#include "readfile.h"
#include "scan.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* Headroom for IRQ lines that appear after start (hotplugged devices, new MSI vectors). */
#define LINE_HEADROOM 32
/* Upper bound on CPU ids considered while sizing, far above any real kernel_max. */
#define CPU_PROBE_CAP 8192

struct source_file {
	int fd; /* -1 when absent */
	struct pw_filebuf buf;
};

struct pw_collector;

/* The counter files, in the order a sample reads them. */
enum file_id {
	FILE_STAT,
	FILE_ONLINE, /* before the per-CPU files: they ask which CPUs are online */
	FILE_INTERRUPTS,
	FILE_SOFTIRQS,
	FILE_VMSTAT,
	FILE_MEMINFO,
	FILE_LOADAVG,
	FILE_PSI, /* FILE_PSI + enum pw_psi_resource */
	FILE_COUNT = FILE_PSI + PW_PSI_COUNT
};

/* Parse a fetched file into the sample; returns the parser's verdict (0, -ENOBUFS: what fit). */
typedef int (*source_parse_fn)(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s);

/* One row per file. A row with a parser is read by read_source(); the others (the online mask,
 * the PSI files that together make one source) have readers of their own. */
struct source_def {
	bool sysfs;       /* relative to <sysfs>/devices/system/cpu, else to <procfs> */
	const char *path; /* relative to that directory */
	enum pw_source src;
	source_parse_fn parse;
};

static int parse_stat(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s);
static int parse_interrupts(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s);
static int parse_softirqs(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s);
static int parse_vmstat(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s);
static int parse_meminfo(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s);
static int parse_loadavg(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s);

static const struct source_def sources[FILE_COUNT] = {
        [FILE_STAT] = {false, "stat", PW_SRC_STAT, parse_stat},
        [FILE_ONLINE] = {true, "online", PW_SRC_COUNT, NULL},
        [FILE_INTERRUPTS] = {false, "interrupts", PW_SRC_INTERRUPTS, parse_interrupts},
        [FILE_SOFTIRQS] = {false, "softirqs", PW_SRC_SOFTIRQS, parse_softirqs},
        [FILE_VMSTAT] = {false, "vmstat", PW_SRC_VMSTAT, parse_vmstat},
        [FILE_MEMINFO] = {false, "meminfo", PW_SRC_MEMINFO, parse_meminfo},
        [FILE_LOADAVG] = {false, "loadavg", PW_SRC_LOADAVG, parse_loadavg},
        [FILE_PSI + PW_PSI_CPU] = {false, "pressure/cpu", PW_SRC_PRESSURE, NULL},
        [FILE_PSI + PW_PSI_MEMORY] = {false, "pressure/memory", PW_SRC_PRESSURE, NULL},
        [FILE_PSI + PW_PSI_IO] = {false, "pressure/io", PW_SRC_PRESSURE, NULL},
        [FILE_PSI + PW_PSI_IRQ] = {false, "pressure/irq", PW_SRC_PRESSURE, NULL},
};

struct pw_collector {
	struct pw_collector_config config;
	int proc_dirfd;
	int cpu_dirfd; /* sysfs devices/system/cpu, -1 when absent */
	struct source_file files[FILE_COUNT];
	struct pw_cpufreq_scan *freq;
	struct pw_filebuf small;    /* scratch for one-value sysfs files */
	struct pw_cpu_times *times; /* [cpu_cap] parser output, copied into the sample */
	uint64_t *per_cpu;          /* [cpu_cap * PW_SOFTIRQ_COUNT] parser scratch */
	struct pw_irq_line *lines;  /* [line_cap] */
	uint64_t *irq_counts;       /* [irq_cap] /proc/stat per-IRQ counts of this read */
	uint32_t irq_cap, nirq_counts;
	bool *online_mask, *online_prev;
	uint32_t cpu_cap, line_cap;
	uint32_t reads_since_rescan;
	uint64_t parse_errors[PW_SRC_COUNT];
	bool kernel_procfs; /* procfs is a mounted proc, not a tree of files */
};

static void source_close(struct source_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* O_NONBLOCK: a FIFO planted where a counter file belongs must not hang the sampler in open(). */
static void source_open(struct pw_collector *c, enum file_id id)
{
	int dirfd = sources[id].sysfs ? c->cpu_dirfd : c->proc_dirfd;
	struct source_file *f = &c->files[id];

	if (f->fd < 0 && dirfd >= 0)
		f->fd = openat(dirfd, sources[id].path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* A file deleted and created anew (a rename over it, a restored fixture) leaves our descriptor on the
 * dead inode, which would be read for ever: close it so the rescan opens the new one. */
static void drop_if_deleted(struct source_file *f)
{
	struct stat st;

	if (f->fd >= 0 && fstat(f->fd, &st) == 0 && st.st_nlink == 0)
		source_close(f);
}

/* Reopen whatever is missing and re-discover cpufreq: files may appear after start. */
static void rescan(struct pw_collector *c)
{
	for (int id = 0; id < FILE_COUNT; id++) {
		drop_if_deleted(&c->files[id]);
		source_open(c, id);
	}
	pw_cpufreq_scan_rescan(c->freq);
	c->reads_since_rescan = 0;
}

/* Read an open source into its buffer. False when absent or unreadable (then closed, so the next
 * rescan retries it); a read error counts as a parse error of that source. */
static bool fetch(struct pw_collector *c, struct source_file *f, enum pw_source src, struct pw_sample *s)
{
	if (f->fd < 0)
		return false;
	s->source_present |= 1u << src;
	if (pw_read_whole(f->fd, &f->buf) == 0)
		return true;
	c->parse_errors[src]++;
	source_close(f);
	return false;
}

/* Record a parser's verdict. -ENOBUFS delivered what fit (more lines or CPUs than sized for): the
 * source is up and the overflow shows in its own gauge (interrupts.dropped), not as an error that
 * would repeat every sample. */
static void settle(struct pw_collector *c, struct pw_sample *s, enum pw_source src, int r)
{
	if (r == 0 || r == -ENOBUFS)
		s->source_up |= 1u << src;
	else
		c->parse_errors[src]++;
}

/* One file, one source: fetch, parse through its row, settle. */
static void read_source(struct pw_collector *c, struct pw_sample *s, enum file_id id)
{
	const struct source_def *d = &sources[id];

	if (fetch(c, &c->files[id], d->src, s))
		settle(c, s, d->src, d->parse(c, &c->files[id].buf, s));
}

static int parse_stat(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s)
{
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	size_t intr_off;

	int r = pw_procstat_parse(b->data, b->len, c->times, c->cpu_cap, &s->stat, &intr_off);
	if (r < 0 && r != -ENOBUFS)
		return r;
	for (uint32_t cpu = 0; cpu < c->cpu_cap; cpu++)
		cpus[cpu].times = c->times[cpu];
	s->ncpu = s->stat.cpu_seen < c->cpu_cap ? s->stat.cpu_seen : c->cpu_cap;
	/* The intr line the parse above found: one pass over the file. */
	int n = pw_procstat_parse_irqs(b->data + intr_off, b->len - intr_off, c->irq_counts, c->irq_cap);
	c->nirq_counts = n < 0 ? 0 : (uint32_t)n < c->irq_cap ? (uint32_t)n : c->irq_cap;
	return r;
}

/* A numbered line's total from /proc/stat, which counts every possible CPU: the sum of the
 * columns /proc/interrupts prints would drop when a CPU goes offline, and an exported counter that
 * drops is a reset to Prometheus. Named lines (LOC, RES ...) have no such count and keep the sum. */
static void stable_line_totals(struct pw_collector *c, struct pw_line_sample *lines, uint32_t nlines)
{
	for (uint32_t i = 0; i < nlines; i++) {
		struct pw_scan name;
		uint64_t irq;
		pw_scan_init(&name, lines[i].line.irq, strlen(lines[i].line.irq));
		if (!(lines[i].line.flags & PW_IRQ_LINE_NAMED) && pw_scan_u64(&name, &irq) == 0 &&
		    pw_scan_eof(&name) && irq < c->nirq_counts)
			lines[i].line.total = c->irq_counts[irq];
	}
}

static int parse_interrupts(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s)
{
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	struct pw_line_sample *lines = pw_sample_lines(s);

	int r = pw_interrupts_parse(b->data, b->len, c->lines, c->line_cap, c->per_cpu, pw_sample_matrix(s),
	                            c->cpu_cap, &s->interrupts);
	if (r < 0 && r != -ENOBUFS)
		return r;
	s->nlines = s->interrupts.nlines;
	for (uint32_t i = 0; i < s->nlines; i++)
		lines[i].line = c->lines[i];
	if (pw_sample_has(s, PW_SRC_STAT))
		stable_line_totals(c, lines, s->nlines);
	for (uint32_t cpu = 0; cpu < c->cpu_cap; cpu++) {
		cpus[cpu].interrupts = c->per_cpu[cpu];
		/* The parser zeroes an offline CPU's column; without this a CPU coming back would
		 * look like a jump from zero. */
		cpus[cpu].in_interrupts = cpu < s->interrupts.cpu_seen && cpus[cpu].online;
	}
	return r;
}

static int parse_softirqs(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s)
{
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);

	int r = pw_softirqs_parse(b->data, b->len, c->per_cpu, c->cpu_cap, &s->softirqs);
	if (r < 0 && r != -ENOBUFS)
		return r;
	for (uint32_t cpu = 0; cpu < c->cpu_cap; cpu++) {
		memcpy(cpus[cpu].softirq, &c->per_cpu[(size_t)cpu * PW_SOFTIRQ_COUNT],
		       sizeof(cpus[cpu].softirq));
		cpus[cpu].in_softirqs = cpu < s->softirqs.cpu_seen && cpus[cpu].online;
	}
	return r;
}

static int parse_vmstat(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s)
{
	(void)c;
	return pw_vmstat_parse(b->data, b->len, &s->vmstat);
}

static int parse_meminfo(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s)
{
	(void)c;
	return pw_meminfo_parse(b->data, b->len, &s->meminfo);
}

static int parse_loadavg(struct pw_collector *c, const struct pw_filebuf *b, struct pw_sample *s)
{
	(void)c;
	return pw_loadavg_parse(b->data, b->len, &s->loadavg);
}

static void read_cpufreq(struct pw_collector *c, struct pw_sample *s)
{
	int r = pw_cpufreq_scan_read(c->freq, pw_sample_cpus(s));

	if (r == -ENODATA)
		return;
	s->source_present |= 1u << PW_SRC_CPUFREQ;
	settle(c, s, PW_SRC_CPUFREQ, r);
}

/* devices/system/cpu/online; a change of the online set triggers a rescan of cpufreq. */
static void read_online(struct pw_collector *c, struct pw_sample *s)
{
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	struct source_file *f = &c->files[FILE_ONLINE];
	bool known = false;

	if (f->fd >= 0 && pw_read_whole(f->fd, &f->buf) == 0 &&
	    pw_cpulist_parse(f->buf.data, f->buf.len, c->online_mask, c->cpu_cap) >= 0)
		known = true;
	for (uint32_t cpu = 0; cpu < c->cpu_cap; cpu++) {
		/* Without sysfs, a CPU with a /proc/stat line is online. */
		cpus[cpu].online = known ? c->online_mask[cpu] : cpus[cpu].times.present;
	}
	if (known && memcmp(c->online_mask, c->online_prev, c->cpu_cap * sizeof(bool)) != 0) {
		memcpy(c->online_prev, c->online_mask, c->cpu_cap * sizeof(bool));
		pw_cpufreq_scan_rescan(c->freq);
	}
}

static void read_pressure(struct pw_collector *c, struct pw_sample *s)
{
	int worst = 0;
	bool any = false;

	for (int i = 0; i < PW_PSI_COUNT; i++) {
		struct source_file *f = &c->files[FILE_PSI + i];
		if (f->fd < 0)
			continue;
		any = true;
		int r = pw_read_whole(f->fd, &f->buf);
		if (r < 0)
			source_close(f);
		else if (f->buf.len == 0)
			continue; /* the kernel gave nothing (irq PSI unreadable to this user): absent */
		else
			r = pw_pressure_parse(f->buf.data, f->buf.len, &s->psi[i]);
		if (r == 0)
			s->psi_present |= 1u << i;
		else
			worst = r;
	}
	if (!any)
		return;
	s->source_present |= 1u << PW_SRC_PRESSURE;
	settle(c, s, PW_SRC_PRESSURE, worst);
}

void pw_collector_read(struct pw_collector *c, struct pw_sample *s)
{
	/* /proc/stat first, right after the caller's timestamp: rates divide by that time. */
	s->user_hz = c->config.user_hz;
	s->page_size = c->config.page_size;
	s->source_present = s->source_up = 0;
	for (int id = 0; id < FILE_COUNT; id++) {
		if (id == FILE_ONLINE)
			read_online(c, s);
		else if (sources[id].parse)
			read_source(c, s, id);
	}
	read_cpufreq(c, s);
	read_pressure(c, s);
	memcpy(s->parse_errors, c->parse_errors, sizeof(s->parse_errors));
	/* Opening files is the slow part: after the reads, so it never delays them. */
	if (++c->reads_since_rescan >= c->config.rescan_every)
		rescan(c);
}

/* CPU ids the samples must hold: the kernel's "possible" set, or failing that the cpuN lines of
 * /proc/stat (which only lists online CPUs). */
static uint32_t size_cpus(struct pw_collector *c)
{
	const struct pw_filebuf *st = &c->files[FILE_STAT].buf;
	uint32_t cap = 0;
	struct pw_procstat stat;
	struct pw_cpu_times *probe = calloc(CPU_PROBE_CAP, sizeof(*probe));

	if (probe && pw_procstat_parse(st->data, st->len, probe, CPU_PROBE_CAP, &stat, NULL) >= 0)
		cap = stat.cpu_seen;
	free(probe);
	if (pw_read_at(c->cpu_dirfd, "possible", &c->small) == 0) {
		bool *mask = calloc(CPU_PROBE_CAP, sizeof(*mask));
		if (mask && pw_cpulist_parse(c->small.data, c->small.len, mask, CPU_PROBE_CAP) > 0)
			for (uint32_t id = 0; id < CPU_PROBE_CAP; id++)
				if (mask[id] && id + 1 > cap)
					cap = id + 1;
		free(mask);
	}
	return cap ? cap : 1;
}

static uint32_t size_lines(struct pw_collector *c)
{
	struct source_file *f = &c->files[FILE_INTERRUPTS];
	uint32_t lines = 0;

	if (f->fd >= 0 && pw_read_whole(f->fd, &f->buf) == 0)
		for (size_t i = 0; i < f->buf.len; i++)
			lines += f->buf.data[i] == '\n';
	return lines + lines / 2 + LINE_HEADROOM;
}

static int alloc_arrays(struct pw_collector *c)
{
	c->freq = pw_cpufreq_scan_new(c->cpu_dirfd, c->cpu_cap);
	c->times = calloc(c->cpu_cap, sizeof(*c->times));
	c->per_cpu = calloc((size_t)c->cpu_cap * PW_SOFTIRQ_COUNT, sizeof(*c->per_cpu));
	c->lines = calloc(c->line_cap, sizeof(*c->lines));
	c->irq_counts = calloc(c->irq_cap, sizeof(*c->irq_counts));
	c->online_mask = calloc(c->cpu_cap, sizeof(bool));
	c->online_prev = calloc(c->cpu_cap, sizeof(bool));
	if (!c->freq || !c->times || !c->per_cpu || !c->lines || !c->irq_counts || !c->online_mask ||
	    !c->online_prev)
		return -ENOMEM;
	return 0;
}

struct pw_collector *pw_collector_new(const struct pw_collector_config *config, int *ret_err)
{
	struct pw_collector *c = calloc(1, sizeof(*c));
	char path[4096];
	int r;

	if (!c) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	for (int id = 0; id < FILE_COUNT; id++)
		c->files[id].fd = -1;
	c->config = *config;
	if (c->config.rescan_every == 0)
		c->config.rescan_every = 1;
	c->proc_dirfd = open(config->procfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct statfs fs;
	c->kernel_procfs =
	        c->proc_dirfd >= 0 && fstatfs(c->proc_dirfd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
	snprintf(path, sizeof(path), "%s/devices/system/cpu", config->sysfs);
	c->cpu_dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	source_open(c, FILE_STAT);
	source_open(c, FILE_INTERRUPTS);
	/* Without /proc/stat there is nothing to watch: that is a configuration error. */
	struct source_file *stat = &c->files[FILE_STAT];
	r = stat->fd < 0 ? -errno : pw_read_whole(stat->fd, &stat->buf);
	if (r == 0) {
		c->cpu_cap = size_cpus(c);
		c->line_cap = size_lines(c);
		/* The IRQ numbers the kernel has now, with room for hotplugged MSI vectors. */
		int nirqs = pw_procstat_parse_irqs(stat->buf.data, stat->buf.len, NULL, 0);
		c->irq_cap = (nirqs > 0 ? (uint32_t)nirqs : 0) + LINE_HEADROOM;
		r = alloc_arrays(c);
	}
	if (r < 0) {
		pw_collector_free(c);
		*ret_err = r;
		return NULL;
	}
	rescan(c);
	return c;
}

void pw_collector_free(struct pw_collector *c)
{
	if (!c)
		return;
	for (int id = 0; id < FILE_COUNT; id++) {
		source_close(&c->files[id]);
		pw_filebuf_done(&c->files[id].buf);
	}
	pw_cpufreq_scan_free(c->freq);
	close_fd(&c->proc_dirfd);
	close_fd(&c->cpu_dirfd);
	pw_filebuf_done(&c->small);
	free(c->times);
	free(c->per_cpu);
	free(c->lines);
	free(c->irq_counts);
	free(c->online_mask);
	free(c->online_prev);
	free(c);
}

uint32_t pw_collector_cpu_cap(const struct pw_collector *c)
{
	return c->cpu_cap;
}

uint32_t pw_collector_line_cap(const struct pw_collector *c)
{
	return c->line_cap;
}

bool pw_collector_has_matrix(const struct pw_collector *c)
{
	return c->config.interrupts_matrix;
}

bool pw_collector_reads_kernel(const struct pw_collector *c)
{
	return c->kernel_procfs;
}
