/* collect.c — opens the counter files once and feeds the parsers from pread each sample. */
#define _GNU_SOURCE
#include "collect.h"

#include "readfile.h"
#include "scan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Headroom for IRQ lines that appear after start (hotplugged devices, new MSI vectors). */
#define LINE_HEADROOM 32
/* Upper bound on CPU ids considered while sizing, far above any real kernel_max. */
#define CPU_PROBE_CAP 8192

struct source_file {
	int fd; /* -1 when absent */
	struct pw_filebuf buf;
};

struct cpufreq_files {
	int cur_fd, stats_fd, governor_fd;   /* -1 when absent */
	uint32_t min_khz, max_khz, base_khz; /* read at rescan: they do not change while online */
	char driver[PW_CPUFREQ_NAME_MAX];
};

struct pw_collector {
	struct pw_collector_config config;
	int proc_dirfd;
	int cpu_dirfd; /* sysfs devices/system/cpu, -1 when absent */
	struct source_file stat, interrupts, softirqs, vmstat, meminfo, loadavg, online;
	struct source_file psi[PW_PSI_COUNT];
	struct cpufreq_files *freq; /* [cpu_cap] */
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
};

static const char *const psi_paths[PW_PSI_COUNT] = {
        "pressure/cpu",
        "pressure/memory",
        "pressure/io",
        "pressure/irq",
};

static void source_close(struct source_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* O_NONBLOCK: a FIFO planted where a counter file belongs must not hang the sampler in open(). */
static void source_open(struct source_file *f, int dirfd, const char *path)
{
	if (f->fd < 0 && dirfd >= 0)
		f->fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Read one small sysfs file relative to the cpu directory; -errno when absent. */
static int read_small(struct pw_collector *c, const char *path)
{
	int fd = openat(c->cpu_dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	int r = pw_read_whole(fd, &c->small);
	close(fd);
	return r;
}

static int open_cpu_file(struct pw_collector *c, uint32_t cpu, const char *leaf)
{
	char path[96];

	snprintf(path, sizeof(path), "cpu%u/cpufreq/%s", cpu, leaf);
	return openat(c->cpu_dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

static void cpufreq_close(struct cpufreq_files *f)
{
	close_fd(&f->cur_fd);
	close_fd(&f->stats_fd);
	close_fd(&f->governor_fd);
}

/* (Re)discover one CPU's cpufreq directory and its static attributes. */
static void cpufreq_rescan(struct pw_collector *c, uint32_t cpu)
{
	struct cpufreq_files *f = &c->freq[cpu];
	char path[96];
	uint64_t value;

	cpufreq_close(f);
	f->cur_fd = open_cpu_file(c, cpu, "scaling_cur_freq");
	if (f->cur_fd < 0)
		return;
	f->stats_fd = open_cpu_file(c, cpu, "stats/time_in_state");
	f->governor_fd = open_cpu_file(c, cpu, "scaling_governor");
	f->min_khz = f->max_khz = f->base_khz = 0;
	f->driver[0] = '\0';
	snprintf(path, sizeof(path), "cpu%u/cpufreq/cpuinfo_min_freq", cpu);
	if (read_small(c, path) == 0 && pw_sysfs_parse_u64(c->small.data, c->small.len, &value) == 0)
		f->min_khz = (uint32_t)value;
	snprintf(path, sizeof(path), "cpu%u/cpufreq/cpuinfo_max_freq", cpu);
	if (read_small(c, path) == 0 && pw_sysfs_parse_u64(c->small.data, c->small.len, &value) == 0)
		f->max_khz = (uint32_t)value;
	/* intel_pstate's cpuinfo_max_freq is the single-core turbo; base_frequency is what every core
	 * is guaranteed, the fair reference for "low" (CpuFrequencyLow). Other drivers lack it. */
	snprintf(path, sizeof(path), "cpu%u/cpufreq/base_frequency", cpu);
	if (read_small(c, path) == 0 && pw_sysfs_parse_u64(c->small.data, c->small.len, &value) == 0 &&
	    value <= UINT32_MAX)
		f->base_khz = (uint32_t)value;
	snprintf(path, sizeof(path), "cpu%u/cpufreq/scaling_driver", cpu);
	if (read_small(c, path) == 0)
		pw_sysfs_parse_word(c->small.data, c->small.len, f->driver, sizeof(f->driver));
}

#define SOURCE_FILES 11

static void list_files(struct pw_collector *c, struct source_file *ret[SOURCE_FILES]);

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
	struct source_file *all[SOURCE_FILES];

	list_files(c, all);
	for (size_t i = 0; i < SOURCE_FILES; i++)
		drop_if_deleted(all[i]);
	source_open(&c->stat, c->proc_dirfd, "stat");
	source_open(&c->interrupts, c->proc_dirfd, "interrupts");
	source_open(&c->softirqs, c->proc_dirfd, "softirqs");
	source_open(&c->vmstat, c->proc_dirfd, "vmstat");
	source_open(&c->meminfo, c->proc_dirfd, "meminfo");
	source_open(&c->loadavg, c->proc_dirfd, "loadavg");
	for (int i = 0; i < PW_PSI_COUNT; i++)
		source_open(&c->psi[i], c->proc_dirfd, psi_paths[i]);
	source_open(&c->online, c->cpu_dirfd, "online");
	if (c->cpu_dirfd >= 0)
		for (uint32_t cpu = 0; cpu < c->cpu_cap; cpu++)
			cpufreq_rescan(c, cpu);
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

static void read_stat(struct pw_collector *c, struct pw_sample *s)
{
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	size_t intr_off;

	if (!fetch(c, &c->stat, PW_SRC_STAT, s))
		return;
	const char *buf = c->stat.buf.data;
	size_t len = c->stat.buf.len;
	int r = pw_procstat_parse(buf, len, c->times, c->cpu_cap, &s->stat, &intr_off);
	settle(c, s, PW_SRC_STAT, r);
	if (r < 0 && r != -ENOBUFS)
		return;
	for (uint32_t cpu = 0; cpu < c->cpu_cap; cpu++)
		cpus[cpu].times = c->times[cpu];
	s->ncpu = s->stat.cpu_seen < c->cpu_cap ? s->stat.cpu_seen : c->cpu_cap;
	/* The intr line the parse above found: one pass over the file. */
	r = pw_procstat_parse_irqs(buf + intr_off, len - intr_off, c->irq_counts, c->irq_cap);
	c->nirq_counts = r < 0 ? 0 : (uint32_t)r < c->irq_cap ? (uint32_t)r : c->irq_cap;
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

static void read_interrupts(struct pw_collector *c, struct pw_sample *s)
{
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	struct pw_line_sample *lines = pw_sample_lines(s);

	if (!fetch(c, &c->interrupts, PW_SRC_INTERRUPTS, s))
		return;
	int r = pw_interrupts_parse(c->interrupts.buf.data, c->interrupts.buf.len, c->lines, c->line_cap,
	                            c->per_cpu, pw_sample_matrix(s), c->cpu_cap, &s->interrupts);
	settle(c, s, PW_SRC_INTERRUPTS, r);
	if (r < 0 && r != -ENOBUFS)
		return;
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
}

static void read_softirqs(struct pw_collector *c, struct pw_sample *s)
{
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);

	if (!fetch(c, &c->softirqs, PW_SRC_SOFTIRQS, s))
		return;
	int r = pw_softirqs_parse(c->softirqs.buf.data, c->softirqs.buf.len, c->per_cpu, c->cpu_cap,
	                          &s->softirqs);
	settle(c, s, PW_SRC_SOFTIRQS, r);
	if (r < 0 && r != -ENOBUFS)
		return;
	for (uint32_t cpu = 0; cpu < c->cpu_cap; cpu++) {
		memcpy(cpus[cpu].softirq, &c->per_cpu[(size_t)cpu * PW_SOFTIRQ_COUNT],
		       sizeof(cpus[cpu].softirq));
		cpus[cpu].in_softirqs = cpu < s->softirqs.cpu_seen && cpus[cpu].online;
	}
}

/* One CPU's per-sample cpufreq reads. Returns 0, -ENODEV when a read fails (the CPU went offline:
 * newer kernels keep the policy directory and fail reads with EBUSY), -EINVAL when content is junk. */
static int read_cpu_freq(struct pw_collector *c, uint32_t cpu, struct pw_cpu_sample *out)
{
	struct cpufreq_files *f = &c->freq[cpu];
	uint64_t khz;

	if (pw_read_whole(f->cur_fd, &c->small) < 0)
		return -ENODEV;
	if (pw_sysfs_parse_u64(c->small.data, c->small.len, &khz) < 0)
		return -EINVAL;
	out->cur_khz = (uint32_t)khz;
	out->min_khz = f->min_khz;
	out->max_khz = f->max_khz;
	out->base_khz = f->base_khz;
	memcpy(out->driver, f->driver, sizeof(out->driver));
	out->freq_flags = PW_FREQ_HAS_CPUFREQ;
	if (f->governor_fd >= 0) {
		if (pw_read_whole(f->governor_fd, &c->small) < 0)
			return -ENODEV;
		if (pw_sysfs_parse_word(c->small.data, c->small.len, out->governor, sizeof(out->governor)) <
		    0)
			return -EINVAL;
	}
	if (f->stats_fd >= 0) {
		if (pw_read_whole(f->stats_fd, &c->small) < 0)
			return -ENODEV;
		if (pw_time_in_state_parse(c->small.data, c->small.len, &out->tis) < 0)
			return -EINVAL;
		out->freq_flags |= PW_FREQ_HAS_TIME_IN_STATE;
	}
	return 0;
}

static void read_cpufreq(struct pw_collector *c, struct pw_sample *s)
{
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	bool any = false, failed = false;

	for (uint32_t cpu = 0; cpu < c->cpu_cap; cpu++) {
		if (c->freq[cpu].cur_fd < 0)
			continue;
		any = true;
		int r = read_cpu_freq(c, cpu, &cpus[cpu]);
		if (r < 0) {
			/* Gone (CPU offline) or junk: forget this CPU's cpufreq until a rescan finds it
			 * again. Only junk is an error; a vanished CPU is simply absent. */
			cpus[cpu].freq_flags = 0;
			cpufreq_close(&c->freq[cpu]);
			failed |= r == -EINVAL;
		}
	}
	if (!any)
		return;
	s->source_present |= 1u << PW_SRC_CPUFREQ;
	settle(c, s, PW_SRC_CPUFREQ, failed ? -EINVAL : 0);
}

/* devices/system/cpu/online; a change of the online set triggers a rescan of cpufreq. */
static void read_online(struct pw_collector *c, struct pw_sample *s)
{
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	bool known = false;

	if (c->online.fd >= 0 && pw_read_whole(c->online.fd, &c->online.buf) == 0 &&
	    pw_cpulist_parse(c->online.buf.data, c->online.buf.len, c->online_mask, c->cpu_cap) >= 0)
		known = true;
	for (uint32_t cpu = 0; cpu < c->cpu_cap; cpu++) {
		/* Without sysfs, a CPU with a /proc/stat line is online. */
		cpus[cpu].online = known ? c->online_mask[cpu] : cpus[cpu].times.present;
	}
	if (known && memcmp(c->online_mask, c->online_prev, c->cpu_cap * sizeof(bool)) != 0) {
		memcpy(c->online_prev, c->online_mask, c->cpu_cap * sizeof(bool));
		for (uint32_t cpu = 0; cpu < c->cpu_cap; cpu++)
			cpufreq_rescan(c, cpu);
	}
}

static void read_scalars(struct pw_collector *c, struct pw_sample *s)
{
	if (fetch(c, &c->vmstat, PW_SRC_VMSTAT, s))
		settle(c, s, PW_SRC_VMSTAT,
		       pw_vmstat_parse(c->vmstat.buf.data, c->vmstat.buf.len, &s->vmstat));
	if (fetch(c, &c->meminfo, PW_SRC_MEMINFO, s))
		settle(c, s, PW_SRC_MEMINFO,
		       pw_meminfo_parse(c->meminfo.buf.data, c->meminfo.buf.len, &s->meminfo));
	if (fetch(c, &c->loadavg, PW_SRC_LOADAVG, s))
		settle(c, s, PW_SRC_LOADAVG,
		       pw_loadavg_parse(c->loadavg.buf.data, c->loadavg.buf.len, &s->loadavg));
}

static void read_pressure(struct pw_collector *c, struct pw_sample *s)
{
	int worst = 0;
	bool any = false;

	for (int i = 0; i < PW_PSI_COUNT; i++) {
		struct source_file *f = &c->psi[i];
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
	read_stat(c, s);
	read_online(c, s);
	read_interrupts(c, s);
	read_softirqs(c, s);
	read_cpufreq(c, s);
	read_scalars(c, s);
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
	uint32_t cap = 0;
	struct pw_procstat stat;
	struct pw_cpu_times *probe = calloc(CPU_PROBE_CAP, sizeof(*probe));

	if (probe &&
	    pw_procstat_parse(c->stat.buf.data, c->stat.buf.len, probe, CPU_PROBE_CAP, &stat, NULL) >= 0)
		cap = stat.cpu_seen;
	free(probe);
	if (c->cpu_dirfd >= 0 && read_small(c, "possible") == 0) {
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
	uint32_t lines = 0;

	if (c->interrupts.fd >= 0 && pw_read_whole(c->interrupts.fd, &c->interrupts.buf) == 0)
		for (size_t i = 0; i < c->interrupts.buf.len; i++)
			lines += c->interrupts.buf.data[i] == '\n';
	return lines + lines / 2 + LINE_HEADROOM;
}

static int alloc_arrays(struct pw_collector *c)
{
	c->freq = calloc(c->cpu_cap, sizeof(*c->freq));
	c->times = calloc(c->cpu_cap, sizeof(*c->times));
	c->per_cpu = calloc((size_t)c->cpu_cap * PW_SOFTIRQ_COUNT, sizeof(*c->per_cpu));
	c->lines = calloc(c->line_cap, sizeof(*c->lines));
	c->irq_counts = calloc(c->irq_cap, sizeof(*c->irq_counts));
	c->online_mask = calloc(c->cpu_cap, sizeof(bool));
	c->online_prev = calloc(c->cpu_cap, sizeof(bool));
	if (!c->freq || !c->times || !c->per_cpu || !c->lines || !c->irq_counts || !c->online_mask ||
	    !c->online_prev)
		return -ENOMEM;
	for (uint32_t cpu = 0; cpu < c->cpu_cap; cpu++)
		c->freq[cpu].cur_fd = c->freq[cpu].stats_fd = c->freq[cpu].governor_fd = -1;
	return 0;
}

static void list_files(struct pw_collector *c, struct source_file *ret[SOURCE_FILES])
{
	struct source_file *all[SOURCE_FILES] = {&c->stat,    &c->interrupts, &c->softirqs, &c->vmstat,
	                                         &c->meminfo, &c->loadavg,    &c->online,   &c->psi[0],
	                                         &c->psi[1],  &c->psi[2],     &c->psi[3]};

	memcpy(ret, all, sizeof(all));
}

static void init_fds(struct pw_collector *c)
{
	struct source_file *all[SOURCE_FILES];

	list_files(c, all);
	for (size_t i = 0; i < SOURCE_FILES; i++)
		all[i]->fd = -1;
	c->proc_dirfd = c->cpu_dirfd = -1;
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
	init_fds(c);
	c->config = *config;
	if (c->config.rescan_every == 0)
		c->config.rescan_every = 1;
	c->proc_dirfd = open(config->procfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/devices/system/cpu", config->sysfs);
	c->cpu_dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	source_open(&c->stat, c->proc_dirfd, "stat");
	source_open(&c->interrupts, c->proc_dirfd, "interrupts");
	/* Without /proc/stat there is nothing to watch: that is a configuration error. */
	r = c->stat.fd < 0 ? -errno : pw_read_whole(c->stat.fd, &c->stat.buf);
	if (r == 0) {
		c->cpu_cap = size_cpus(c);
		c->line_cap = size_lines(c);
		/* The IRQ numbers the kernel has now, with room for hotplugged MSI vectors. */
		int nirqs = pw_procstat_parse_irqs(c->stat.buf.data, c->stat.buf.len, NULL, 0);
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
	struct source_file *all[SOURCE_FILES];

	if (!c)
		return;
	list_files(c, all);
	for (size_t i = 0; i < SOURCE_FILES; i++) {
		source_close(all[i]);
		pw_filebuf_done(&all[i]->buf);
	}
	for (uint32_t cpu = 0; c->freq && cpu < c->cpu_cap; cpu++)
		cpufreq_close(&c->freq[cpu]);
	close_fd(&c->proc_dirfd);
	close_fd(&c->cpu_dirfd);
	pw_filebuf_done(&c->small);
	free(c->freq);
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
