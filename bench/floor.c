/* floor.c — the cost floor of one perfwatchd sample: read the files a sample reads, nothing else.
 *
 * Opens what lib/collect.c reads each sample (procfs stat, interrupts, softirqs, vmstat, meminfo,
 * loadavg, pressure/{cpu,memory,io,irq}; sysfs devices/system/cpu/online and, per CPU where present,
 * cpufreq/{scaling_cur_freq,scaling_governor,stats/time_in_state}) once, then N times pread-s each
 * whole file from offset 0 until pread returns 0 — the same syscall pattern as pw_read_whole(), so at
 * least two preads per file. No parsing, no deriving, no ring: whatever perfwatchd spends above
 * this is its own overhead.
 *
 * With --interval the iterations are spaced on absolute deadlines like the sampler's, which keeps
 * caches and the CPU's idle states as cold as they are for a 1 s sampler; without it they run back
 * to back (the warm-cache best case). --reopen adds open+close to every read, the way collectors
 * that open per scrape (node_exporter, collectd) pay it.
 *
 * Prints a summary and one machine-readable "RESULT key=value..." line (times in nanoseconds):
 *   cpu_ns_*   CPU time of the reads alone, per iteration (CLOCK_THREAD_CPUTIME_ID around them);
 *   loop_cpu_ns  process CPU time of the whole loop, sleeps' wake-ups included, divided by N
 *                (CLOCK_PROCESS_CPUTIME_ID, the same clock as /proc/PID/schedstat): compare this
 *                one with the daemon's CPU per sample;
 *   rusage_ns  the same from getrusage(RUSAGE_SELF), ru_utime + ru_stime (tick-scaled). */
#define _GNU_SOURCE
#include "percentile.h"
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES 65536
#define MAX_CPU_PROBE 8192

struct file {
	char path[160];        /* relative to its root, for the listing */
	int dirfd;             /* root it is opened from (--reopen) */
	int fd;                /* -1 once unreadable */
	struct pw_filebuf buf; /* read exactly as the collector reads: pw_read_whole() */
	int64_t cpu_ns;        /* summed over the timed iterations, with --per-file */
};

struct floor_opts {
	const char *procfs, *sysfs;
	long count;
	int64_t interval_ns;
	int reopen, list, per_file;
};

static struct file files[MAX_FILES];
static size_t nfiles;

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void add_file(int dirfd, const char *path)
{
	if (dirfd < 0 || nfiles == MAX_FILES)
		return;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return; /* absent on this host: perfwatchd skips it too */
	struct file *f = &files[nfiles++];
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->dirfd = dirfd;
	f->fd = fd;
}

/* One iteration over every file; returns the bytes read. per_file adds each file's CPU time to its
 * cpu_ns (two more clock reads per file: use it for the breakdown, not for the totals). */
static size_t read_all(int reopen, int per_file)
{
	size_t bytes = 0;

	for (size_t i = 0; i < nfiles; i++) {
		struct file *f = &files[i];
		if (f->fd < 0)
			continue;
		int64_t t0 = per_file ? clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
		int fd = f->fd;
		if (reopen && (fd = openat(f->dirfd, f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
			continue;
		if (pw_read_whole(fd, &f->buf) < 0) {
			/* e.g. pressure/irq without CAP_SYS_RESOURCE: perfwatchd drops it too */
			close(f->fd);
			f->fd = -1;
		}
		if (reopen)
			close(fd);
		if (per_file)
			f->cpu_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
		bytes += f->buf.len;
	}
	return bytes;
}

/* The highest CPU id listed in a cpulist file ("0-3,8-11"), or -1. */
static int max_cpu_in(int dirfd, const char *path)
{
	char text[4096];
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	int max = -1;

	if (fd < 0)
		return -1;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	for (char *p = text; *p;) {
		char *end;
		if (*p < '0' || *p > '9') { /* '-' and ',' separate ids; strtol would read "-255" */
			p++;
			continue;
		}
		long v = strtol(p, &end, 10);
		if (v > max && v < MAX_CPU_PROBE)
			max = (int)v;
		p = end;
	}
	return max;
}

static void open_files(const struct floor_opts *o)
{
	static const char *const proc_files[] = {
	        "stat",    "interrupts",   "softirqs",        "vmstat",      "meminfo",
	        "loadavg", "pressure/cpu", "pressure/memory", "pressure/io", "pressure/irq"};
	static const char *const freq_files[] = {"scaling_cur_freq", "scaling_governor",
	                                         "stats/time_in_state"};
	char path[4200];
	int procfd = open(o->procfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (procfd < 0) {
		fprintf(stderr, "floor: cannot open %s: %s\n", o->procfs, strerror(errno));
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/devices/system/cpu", o->sysfs);
	int cpufd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; i < sizeof(proc_files) / sizeof(proc_files[0]); i++)
		add_file(procfd, proc_files[i]);
	add_file(cpufd, "online");
	int max = max_cpu_in(cpufd, "possible");
	for (int cpu = 0; cpu <= max; cpu++)
		for (size_t i = 0; i < sizeof(freq_files) / sizeof(freq_files[0]); i++) {
			snprintf(path, sizeof(path), "cpu%d/cpufreq/%s", cpu, freq_files[i]);
			add_file(cpufd, path);
		}
}

static int parse_duration_ms(const char *text, int64_t *ret_ns)
{
	char *end;
	double v = strtod(text, &end);

	if (end == text || v < 0)
		return -EINVAL;
	if (strcmp(end, "ms") == 0 || *end == '\0')
		*ret_ns = (int64_t)(v * 1e6);
	else if (strcmp(end, "s") == 0)
		*ret_ns = (int64_t)(v * 1e9);
	else
		return -EINVAL;
	return 0;
}

static void usage(FILE *to)
{
	fprintf(to,
	        "Usage: floor [--procfs DIR] [--sysfs DIR] [--count N] [--interval DUR] [--reopen] [--list] "
	        "[--per-file]\n"
	        "  --count N        iterations (default 1000)\n"
	        "  --interval DUR   space iterations on absolute deadlines, e.g. 1s, 100ms (default: back to "
	        "back)\n"
	        "  --reopen         open and close every file on every iteration\n"
	        "  --list           print the files read\n"
	        "  --per-file       print each file's mean CPU per read (timing each file adds overhead)\n");
}

static void parse_args(int argc, char **argv, struct floor_opts *o)
{
	static const struct option longopts[] = {
	        {"procfs", required_argument, NULL, 'p'},
	        {"sysfs", required_argument, NULL, 's'},
	        {"count", required_argument, NULL, 'n'},
	        {"interval", required_argument, NULL, 'i'},
	        {"reopen", no_argument, NULL, 'r'},
	        {"list", no_argument, NULL, 'l'},
	        {"per-file", no_argument, NULL, 'f'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	int c;

	*o = (struct floor_opts){.procfs = "/proc", .sysfs = "/sys", .count = 1000};
	while ((c = getopt_long(argc, argv, "n:i:", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->procfs = optarg;
			break;
		case 's':
			o->sysfs = optarg;
			break;
		case 'n':
			o->count = strtol(optarg, NULL, 10);
			break;
		case 'i':
			if (parse_duration_ms(optarg, &o->interval_ns) < 0) {
				fprintf(stderr, "floor: bad interval '%s'\n", optarg);
				exit(2);
			}
			break;
		case 'r':
			o->reopen = 1;
			break;
		case 'l':
			o->list = 1;
			break;
		case 'f':
			o->per_file = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (o->count < 1 || optind < argc) {
		usage(stderr);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct floor_opts o;
	struct rusage ru0, ru1;

	parse_args(argc, argv, &o);
	open_files(&o);
	int64_t *cpu = calloc((size_t)o.count, sizeof(*cpu));
	int64_t *wall = calloc((size_t)o.count, sizeof(*wall));
	if (!cpu || !wall)
		return fprintf(stderr, "floor: out of memory\n"), 1;
	size_t bytes = read_all(o.reopen, 0); /* warm-up: buffers reach their size */
	if (o.list)
		for (size_t i = 0; i < nfiles; i++)
			printf("  %s%s (%zu bytes)\n", files[i].path,
			       files[i].fd < 0 ? " [unreadable, dropped]" : "", files[i].buf.len);

	getrusage(RUSAGE_SELF, &ru0);
	int64_t p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	int64_t deadline = clock_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < o.count; i++) {
		if (o.interval_ns) {
			deadline += o.interval_ns;
			struct timespec ts = {.tv_sec = deadline / 1000000000,
			                      .tv_nsec = deadline % 1000000000};
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
		}
		int64_t w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		bytes = read_all(o.reopen, o.per_file);
		cpu[i] = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		wall[i] = clock_ns(CLOCK_MONOTONIC) - w0;
	}
	int64_t loop_cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0;
	getrusage(RUSAGE_SELF, &ru1);
	int64_t ru_ns = ((int64_t)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) * 1000000 +
	                 (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) +
	                 (int64_t)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) * 1000000 +
	                 (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec)) *
	                1000;

	int64_t cpu_sum = 0;
	for (long i = 0; i < o.count; i++)
		cpu_sum += cpu[i];
	bench_sort_i64(cpu, o.count);
	bench_sort_i64(wall, o.count);
	size_t open_files_n = 0;
	for (size_t i = 0; i < nfiles; i++)
		open_files_n += files[i].fd >= 0;
	printf("floor: %zu files, %zu bytes per iteration, %ld iterations, %s%s\n", open_files_n, bytes,
	       o.count, o.interval_ns ? "spaced" : "back to back",
	       o.reopen ? ", open+read+close" : ", pread on open fds");
	printf("  reads' CPU per iteration: median %.1f us, mean %.1f us, min %.1f, p90 %.1f, max %.1f\n",
	       (double)bench_percentile(cpu, o.count, 0.5) / 1e3, (double)cpu_sum / (double)o.count / 1e3,
	       (double)cpu[0] / 1e3, (double)bench_percentile(cpu, o.count, 0.9) / 1e3,
	       (double)cpu[o.count - 1] / 1e3);
	printf("  reads' wall per iteration: median %.1f us\n",
	       (double)bench_percentile(wall, o.count, 0.5) / 1e3);
	printf("  process CPU per iteration, loop included: %.1f us (getrusage: %.1f us)\n",
	       (double)loop_cpu / (double)o.count / 1e3, (double)ru_ns / (double)o.count / 1e3);
	if (o.per_file)
		for (size_t i = 0; i < nfiles; i++)
			printf("  %-40s %8zu bytes %8.1f us per read\n", files[i].path, files[i].buf.len,
			       (double)files[i].cpu_ns / (double)o.count / 1e3);
	printf("RESULT files=%zu bytes=%zu iterations=%ld cpu_ns_median=%lld cpu_ns_mean=%lld "
	       "cpu_ns_min=%lld "
	       "cpu_ns_p90=%lld cpu_ns_max=%lld wall_ns_median=%lld loop_cpu_ns=%lld rusage_ns=%lld\n",
	       open_files_n, bytes, o.count, (long long)bench_percentile(cpu, o.count, 0.5),
	       (long long)(cpu_sum / o.count), (long long)cpu[0],
	       (long long)bench_percentile(cpu, o.count, 0.9), (long long)cpu[o.count - 1],
	       (long long)bench_percentile(wall, o.count, 0.5), (long long)(loop_cpu / o.count),
	       (long long)(ru_ns / o.count));
	free(cpu);
	free(wall);
	for (size_t i = 0; i < nfiles; i++) {
		if (files[i].fd >= 0)
			close(files[i].fd);
		pw_filebuf_done(&files[i].buf);
	}
	return 0;
}
