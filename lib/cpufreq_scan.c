/* cpufreq_scan.c — per-CPU cpufreq discovery and reads for the collector (see cpufreq_scan.h).
 * Documentation/admin-guide/pm/cpufreq.rst names the files; base_frequency is intel_pstate's. */
#define _GNU_SOURCE
#include "cpufreq_scan.h"

#include "cpufreq.h"
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cpufreq_files {
	int cur_fd, stats_fd, governor_fd;   /* -1 when absent */
	uint32_t min_khz, max_khz, base_khz; /* read at rescan: they do not change while online */
	char driver[PW_CPUFREQ_NAME_MAX];
};

struct pw_cpufreq_scan {
	int cpu_dirfd; /* borrowed */
	uint32_t cpu_cap;
	struct pw_filebuf small;     /* one-value files */
	struct cpufreq_files freq[]; /* [cpu_cap] */
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void cpufreq_close(struct cpufreq_files *f)
{
	close_fd(&f->cur_fd);
	close_fd(&f->stats_fd);
	close_fd(&f->governor_fd);
}

struct pw_cpufreq_scan *pw_cpufreq_scan_new(int cpu_dirfd, uint32_t cpu_cap)
{
	struct pw_cpufreq_scan *scan = calloc(1, sizeof(*scan) + (size_t)cpu_cap * sizeof(scan->freq[0]));

	if (!scan)
		return NULL;
	scan->cpu_dirfd = cpu_dirfd;
	scan->cpu_cap = cpu_cap;
	for (uint32_t cpu = 0; cpu < cpu_cap; cpu++)
		scan->freq[cpu].cur_fd = scan->freq[cpu].stats_fd = scan->freq[cpu].governor_fd = -1;
	return scan;
}

void pw_cpufreq_scan_free(struct pw_cpufreq_scan *scan)
{
	if (!scan)
		return;
	for (uint32_t cpu = 0; cpu < scan->cpu_cap; cpu++)
		cpufreq_close(&scan->freq[cpu]);
	pw_filebuf_done(&scan->small);
	free(scan);
}

static int open_cpu_file(struct pw_cpufreq_scan *scan, uint32_t cpu, const char *leaf)
{
	char path[96];

	snprintf(path, sizeof(path), "cpu%u/cpufreq/%s", cpu, leaf);
	return openat(scan->cpu_dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

/* One static attribute in kHz; 0 when absent, junk or beyond 32 bits. */
static uint32_t read_khz(struct pw_cpufreq_scan *scan, uint32_t cpu, const char *leaf)
{
	char path[96];
	uint64_t value;

	snprintf(path, sizeof(path), "cpu%u/cpufreq/%s", cpu, leaf);
	if (pw_read_at(scan->cpu_dirfd, path, &scan->small) == 0 &&
	    pw_sysfs_parse_u64(scan->small.data, scan->small.len, &value) == 0 && value <= UINT32_MAX)
		return (uint32_t)value;
	return 0;
}

/* (Re)discover one CPU's cpufreq directory and its static attributes. */
static void rescan_cpu(struct pw_cpufreq_scan *scan, uint32_t cpu)
{
	struct cpufreq_files *f = &scan->freq[cpu];
	char path[96];

	cpufreq_close(f);
	f->cur_fd = open_cpu_file(scan, cpu, "scaling_cur_freq");
	if (f->cur_fd < 0)
		return;
	f->stats_fd = open_cpu_file(scan, cpu, "stats/time_in_state");
	f->governor_fd = open_cpu_file(scan, cpu, "scaling_governor");
	f->min_khz = read_khz(scan, cpu, "cpuinfo_min_freq");
	f->max_khz = read_khz(scan, cpu, "cpuinfo_max_freq");
	/* intel_pstate's cpuinfo_max_freq is the single-core turbo; base_frequency is what every core
	 * is guaranteed, the fair reference for "low" (CpuFrequencyLow). Other drivers lack it. */
	f->base_khz = read_khz(scan, cpu, "base_frequency");
	f->driver[0] = '\0';
	snprintf(path, sizeof(path), "cpu%u/cpufreq/scaling_driver", cpu);
	if (pw_read_at(scan->cpu_dirfd, path, &scan->small) == 0)
		pw_sysfs_parse_word(scan->small.data, scan->small.len, f->driver, sizeof(f->driver));
}

void pw_cpufreq_scan_rescan(struct pw_cpufreq_scan *scan)
{
	if (scan->cpu_dirfd < 0)
		return;
	for (uint32_t cpu = 0; cpu < scan->cpu_cap; cpu++)
		rescan_cpu(scan, cpu);
}

/* One CPU's per-sample reads. Returns 0, -ENODEV when a read fails (the CPU went offline: newer
 * kernels keep the policy directory and fail reads with EBUSY), -EINVAL when content is junk. */
static int read_cpu(struct pw_cpufreq_scan *scan, uint32_t cpu, struct pw_cpu_sample *out)
{
	struct cpufreq_files *f = &scan->freq[cpu];
	struct pw_filebuf *b = &scan->small;
	uint64_t khz;

	if (pw_read_whole(f->cur_fd, b) < 0)
		return -ENODEV;
	if (pw_sysfs_parse_u64(b->data, b->len, &khz) < 0)
		return -EINVAL;
	out->cur_khz = (uint32_t)khz;
	out->min_khz = f->min_khz;
	out->max_khz = f->max_khz;
	out->base_khz = f->base_khz;
	memcpy(out->driver, f->driver, sizeof(out->driver));
	out->freq_flags = PW_FREQ_HAS_CPUFREQ;
	if (f->governor_fd >= 0) {
		if (pw_read_whole(f->governor_fd, b) < 0)
			return -ENODEV;
		if (pw_sysfs_parse_word(b->data, b->len, out->governor, sizeof(out->governor)) < 0)
			return -EINVAL;
	}
	if (f->stats_fd >= 0) {
		if (pw_read_whole(f->stats_fd, b) < 0)
			return -ENODEV;
		if (pw_time_in_state_parse(b->data, b->len, &out->tis) < 0)
			return -EINVAL;
		out->freq_flags |= PW_FREQ_HAS_TIME_IN_STATE;
	}
	return 0;
}

int pw_cpufreq_scan_read(struct pw_cpufreq_scan *scan, struct pw_cpu_sample *cpus)
{
	bool any = false, failed = false;

	for (uint32_t cpu = 0; cpu < scan->cpu_cap; cpu++) {
		if (scan->freq[cpu].cur_fd < 0)
			continue;
		any = true;
		int r = read_cpu(scan, cpu, &cpus[cpu]);
		if (r < 0) {
			/* Gone (CPU offline) or junk: forget this CPU's cpufreq until a rescan finds it
			 * again. Only junk is an error; a vanished CPU is simply absent. */
			cpus[cpu].freq_flags = 0;
			cpufreq_close(&scan->freq[cpu]);
			failed |= r == -EINVAL;
		}
	}
	return !any ? -ENODATA : failed ? -EINVAL : 0;
}
