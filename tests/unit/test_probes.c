/* test_probes.c — the alert probes over a fixture tree built in a temporary directory: process
 * deltas (pid reuse, exits, hostile comms, the scan cap), IRQ affinity, governor tunables per policy
 * and global, disk utilisation, and that nothing is read for alerts that are not active. */
#include "fixture_util.h"
#include "probes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SEC INT64_C(1000000000)
#define T0 (100 * SEC)

static char base[200], root[256];

__attribute__((format(printf, 2, 3))) static void put(const char *rel, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++) /* mkdir -p of the parents */
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void rm(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ck_assert_int_eq(unlink(path), 0);
}

/* A /proc/[pid]/stat line (52 fields as 6.x prints) with these times. */
static void put_proc(int pid, const char *comm, unsigned long long utime, unsigned long long stime,
                     unsigned long long start)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	put(rel,
	    "%d (%s) R 1 %d %d 0 -1 4194560 120 0 0 0 %llu %llu 0 0 20 0 1 0 %llu 12345678 300 "
	    "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
	    pid, comm, pid, pid, utime, stime, start);
}

/* Once, in the parent process: the directory every test's tree goes in, removed by the parent at
 * the end even when a test failed (a failing test's own teardown does not run). In memory where
 * there is a tmpfs: a tree of 5000 processes takes seconds on a busy disk. */
static void setup_base(void)
{
	const char *tmp = getenv("TMPDIR")                ? getenv("TMPDIR")
	                  : access("/dev/shm", W_OK) == 0 ? "/dev/shm"
	                                                  : "/tmp";

	pw_scratch_make(base, sizeof(base), tmp, "probes");
}

static void teardown_base(void)
{
	pw_scratch_remove(base);
}

static void setup(void)
{
	pw_scratch_make(root, sizeof(root), base, "t");
	put("proc/stat", "cpu 0 0 0 0 0 0 0 0 0 0\n"); /* not a pid: ignored */
	put("proc/self/stat", "junk\n");
	put("sys/.keep", "%s", "");
}

static void teardown(void)
{
	pw_scratch_remove(root);
}

static struct pw_probes *probes_at(uint32_t pids_cap)
{
	char proc[300], sys[300];

	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	struct pw_probes_config pc = {
	        .procfs = proc, .sysfs = sys, .pids_cap = pids_cap, .min_gap_ns = SEC / 2};
	struct pw_probes *p = pw_probes_new(&pc);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* A 4-CPU sample with user_hz 100, each CPU 40% system, 5% irq+softirq, the rest idle. */
static struct pw_sample *sample_new(void)
{
	struct pw_sample *s = pw_test_sample_new(4, 8, false);

	s->ncpu = 4;
	s->user_hz = 100;
	for (int id = 0; id < 4; id++) {
		struct pw_cpu_sample *c = &pw_sample_cpus(s)[id];
		c->derived_valid = PW_DERIVED_SHARES;
		c->share[PW_MODE_SYSTEM] = 0.40f;
		c->share[PW_MODE_SOFTIRQ] = 0.05f;
		c->share[PW_MODE_IDLE] = 0.55f;
	}
	return s;
}

static struct pw_alert active(enum pw_alert_name name)
{
	struct pw_alert a;

	memset(&a, 0, sizeof(a));
	a.name = name;
	a.state = PW_ALERT_FIRING;
	snprintf(a.description, sizeof(a.description), "Words.");
	return a;
}

START_TEST(test_system_time_processes)
{
	struct pw_probes *p = probes_at(0);
	struct pw_sample *s = sample_new();
	struct pw_alert a = active(PW_ALERT_SYSTEM_TIME_HIGH);

	put_proc(1, "systemd", 100, 200, 5);
	put_proc(4242, "a) (b", 10, 1000, 9001);
	put_proc(4243, "reader two", 20, 1000, 9002);
	put_proc(4300, "reused", 0, 5000, 9100);
	put_proc(4400, "exits", 0, 5000, 9200);
	put("proc/4500/stat", "4500 (cut) R 1 4500 4500 0 -1 0 0 0 0 0 3"); /* malformed: skipped */
	pw_probes_update(p, &a, 1, s, T0);
	pw_probes_apply(p, &a);
	const struct pw_ev_processes *ev = &a.evidence.system_time.processes;
	ck_assert_uint_eq(ev->status, PW_PROBE_WARMING); /* one scan: no window yet */
	ck_assert_uint_eq(ev->scanned, 5);
	ck_assert_uint_eq(ev->malformed, 1); /* 4500's cut line: counted, the rest kept */

	/* One second later (100 ticks): 4242 took 95 ticks of system time, 4243 60, pid 4300 is a new
	 * process (other starttime), 4400 exited, a newcomer started. */
	put_proc(1, "systemd", 101, 201, 5);
	put_proc(4242, "a) (b", 11, 1095, 9001);
	put_proc(4243, "reader two", 22, 1060, 9002);
	put_proc(4300, "reused", 0, 9000, 9500);
	rm("proc/4400/stat");
	put_proc(4600, "newcomer", 0, 50, 9600);
	a = active(PW_ALERT_SYSTEM_TIME_HIGH);
	pw_probes_update(p, &a, 1, s, T0 + SEC);
	pw_probes_apply(p, &a);
	ck_assert_uint_eq(ev->status, PW_PROBE_OK);
	ck_assert(!ev->truncated);
	ck_assert_float_eq_tol(ev->window_s, 1.0, 1e-6);
	ck_assert_uint_eq(ev->n, 3);
	ck_assert_int_eq(ev->top[0].pid, 4242);
	ck_assert_str_eq(ev->top[0].comm, "a) (b");
	ck_assert_float_eq_tol(ev->top[0].system, 0.95, 1e-5);
	ck_assert_float_eq_tol(ev->top[0].user, 0.01, 1e-5);
	ck_assert_int_eq(ev->top[1].pid, 4243);
	ck_assert_float_eq_tol(ev->top[1].system, 0.60, 1e-5);
	ck_assert_int_eq(ev->top[2].pid, 1);
	ck_assert_float_eq_tol(ev->system, 0.95 + 0.60 + 0.01, 1e-5);
	ck_assert_float_eq_tol(ev->user, 0.01 + 0.02 + 0.01, 1e-5);
	ck_assert_float_eq_tol(ev->host_busy, 1.8, 1e-5);
	ck_assert_float_eq_tol(ev->host_handlers, 0.2, 1e-5);
	ck_assert_msg(strstr(a.description, "Most system time: a) (b (pid 4242), 95% of a CPU.") != NULL,
	              "%s", a.description);

	/* A second update within min_gap (a catch-up burst) reuses the scan. */
	put_proc(4242, "a) (b", 11, 1500, 9001);
	pw_probes_update(p, &a, 1, s, T0 + SEC + SEC / 10);
	a = active(PW_ALERT_SYSTEM_TIME_HIGH);
	pw_probes_apply(p, &a);
	ck_assert_float_eq_tol(a.evidence.system_time.processes.top[0].system, 0.95, 1e-5);

	/* The alert resolved: nothing is read, the old scan is forgotten, so the next alert warms up
	 * again rather than comparing with a stale scan. */
	pw_probes_update(p, NULL, 0, s, T0 + 5 * SEC);
	a = active(PW_ALERT_SYSTEM_TIME_HIGH);
	pw_probes_apply(p, &a);
	ck_assert_uint_eq(a.evidence.system_time.processes.status, PW_PROBE_NOT_RUN);
	pw_probes_update(p, &a, 1, s, T0 + 60 * SEC);
	pw_probes_apply(p, &a);
	ck_assert_uint_eq(a.evidence.system_time.processes.status, PW_PROBE_WARMING);
	free(s);
	pw_probes_free(p);
}
END_TEST

/* A comm is any 15 bytes but NUL: it becomes evidence escaped (text_escape.h), control and
 * non-UTF-8 bytes as \xNN, valid UTF-8 kept, so every output shows it printable; the longest
 * escaped comm (15 bytes, each escaped) fits whole. */
START_TEST(test_hostile_comm)
{
	struct pw_probes *p = probes_at(0);
	struct pw_sample *s = sample_new();
	struct pw_alert a = active(PW_ALERT_SYSTEM_TIME_HIGH);
	const char *hostile = "pw\x1b]0;\x07\n\x9b\xff\xc3\xa9\x7fok";
	const char *controls = "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0b\x0c\x0d\x0e\x0f\x10";

	put_proc(4242, hostile, 0, 1000, 9001);
	put_proc(4243, controls, 0, 1000, 9002);
	pw_probes_update(p, &a, 1, s, T0);
	put_proc(4242, hostile, 0, 1090, 9001);
	put_proc(4243, controls, 0, 1050, 9002);
	pw_probes_update(p, &a, 1, s, T0 + SEC);
	pw_probes_apply(p, &a);
	const struct pw_ev_processes *ev = &a.evidence.system_time.processes;
	ck_assert_uint_eq(ev->n, 2);
	ck_assert_str_eq(ev->top[0].comm, "pw\\x1b]0;\\x07\\x0a\\x9b\\xff\xc3\xa9\\x7fok");
	ck_assert_str_eq(ev->top[1].comm, "\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x09\\x0b\\x0c\\x0d"
	                                  "\\x0e\\x0f\\x10");
	const char *want = "Most system time: pw\\x1b]0;\\x07\\x0a\\x9b\\xff\xc3\xa9\\x7fok (pid 4242), 90% "
	                   "of a CPU.";
	ck_assert_msg(strstr(a.description, want) != NULL, "%s", a.description);
	free(s);
	pw_probes_free(p);
}
END_TEST

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * SEC + ts.tv_nsec;
}

/* 5000 idle processes with low pids and a hog with a high one: every process is read (the default
 * bound is far above), so the hog is named whatever order /proc lists them in; it used to be read
 * only if it came among the first 4096. Both scans' times are printed (the cost per process). */
START_TEST(test_hog_among_idle)
{
	struct pw_probes *p = probes_at(0);
	struct pw_sample *s = sample_new();
	struct pw_alert a = active(PW_ALERT_SYSTEM_TIME_HIGH);
	const int idle = 5000, hog = 4194000;

	for (int pid = 2; pid < 2 + idle; pid++)
		put_proc(pid, "idle", 3, 7, (unsigned long long)pid);
	put_proc(hog, "hog", 1000, 2000, 777);
	int64_t t = mono_ns();
	pw_probes_update(p, &a, 1, s, T0);
	int64_t first = mono_ns() - t;
	put_proc(hog, "hog", 1004, 2095, 777); /* 95 ticks of system time in the second */
	a = active(PW_ALERT_SYSTEM_TIME_HIGH);
	t = mono_ns();
	pw_probes_update(p, &a, 1, s, T0 + SEC);
	int64_t second = mono_ns() - t;
	pw_probes_apply(p, &a);
	const struct pw_ev_processes *ev = &a.evidence.system_time.processes;
	ck_assert_uint_eq(ev->status, PW_PROBE_OK);
	ck_assert(!ev->truncated);
	ck_assert_uint_eq(ev->scanned, idle + 1);
	ck_assert_uint_ge(ev->n, 1);
	ck_assert_int_eq(ev->top[0].pid, hog);
	ck_assert_str_eq(ev->top[0].comm, "hog");
	ck_assert_float_eq_tol(ev->top[0].system, 0.95, 1e-5);
	ck_assert_float_eq_tol(ev->system, 0.95, 1e-5);
	ck_assert_msg(strstr(a.description, "hog (pid 4194000)") != NULL, "%s", a.description);
	fprintf(stderr, "test_hog_among_idle: %d processes scanned in %.1f ms and %.1f ms\n", idle + 1,
	        (double)first / 1e6, (double)second / 1e6);
	free(s);
	pw_probes_free(p);
}
END_TEST

/* At most pids_cap processes per scan, and the evidence says it was cut. */
START_TEST(test_pid_cap)
{
	struct pw_probes *p = probes_at(3);
	struct pw_sample *s = sample_new();
	struct pw_alert a = active(PW_ALERT_SYSTEM_TIME_HIGH);

	for (int pid = 100; pid < 110; pid++)
		put_proc(pid, "many", 0, 10, (unsigned long long)pid);
	pw_probes_update(p, &a, 1, s, T0);
	pw_probes_apply(p, &a);
	ck_assert(a.evidence.system_time.processes.truncated);
	ck_assert_uint_eq(a.evidence.system_time.processes.scanned, 3);
	free(s);
	pw_probes_free(p);
}
END_TEST

START_TEST(test_no_proc)
{
	struct pw_probes_config pc = {.procfs = "/nonexistent/proc", .sysfs = "/nonexistent/sys"};
	struct pw_probes *p = pw_probes_new(&pc);
	struct pw_sample *s = sample_new();
	struct pw_alert a[2] = {active(PW_ALERT_SYSTEM_TIME_HIGH), active(PW_ALERT_IOWAIT_HIGH)};

	pw_probes_update(p, a, 2, s, T0);
	pw_probes_apply(p, &a[0]);
	pw_probes_apply(p, &a[1]);
	ck_assert_uint_eq(a[0].evidence.system_time.processes.status, PW_PROBE_UNAVAILABLE);
	ck_assert_uint_eq(a[1].evidence.memory.disks.status, PW_PROBE_UNAVAILABLE);
	ck_assert_str_eq(a[0].description, "Words.");
	free(s);
	pw_probes_free(p);
}
END_TEST

START_TEST(test_interrupt_time)
{
	struct pw_probes *p = probes_at(0);
	struct pw_sample *s = sample_new();
	struct pw_alert a = active(PW_ALERT_INTERRUPT_TIME_HIGH);
	struct pw_ev_interrupt_time *ev = &a.evidence.interrupt_time;

	ev->nlines = 3;
	snprintf(ev->lines[0].irq, sizeof(ev->lines[0].irq), "LOC");
	snprintf(ev->lines[1].irq, sizeof(ev->lines[1].irq), "25");
	snprintf(ev->lines[2].irq, sizeof(ev->lines[2].irq), "26");
	put("proc/irq/25/smp_affinity_list", "0-3\n");
	put("proc/irq/26/smp_affinity_list", "junk/../x\n"); /* not a CPU list: left unknown */
	put_proc(811, "asterisk", 100, 100, 50);
	pw_probes_update(p, &a, 1, s, T0);
	put_proc(811, "asterisk", 103, 102, 50);
	pw_probes_update(p, &a, 1, s, T0 + SEC);
	pw_probes_apply(p, &a);
	ck_assert_str_eq(ev->affinity[0], "");
	ck_assert_str_eq(ev->affinity[1], "0-3");
	ck_assert_str_eq(ev->affinity[2], "");
	ck_assert_uint_eq(ev->processes.status, PW_PROBE_OK);
	ck_assert_int_eq(ev->processes.top[0].pid, 811);
	ck_assert_float_eq_tol(ev->processes.system + ev->processes.user, 0.05, 1e-5);
	ck_assert_msg(
	        strstr(a.description, "Processes account for 0.05 CPUs of user+system time") &&
	                strstr(a.description, "interrupt handlers took 0.20 CPUs (host busy 1.80 CPUs)"),
	        "%s", a.description);
	free(s);
	pw_probes_free(p);
}
END_TEST

START_TEST(test_governor)
{
	struct pw_probes *p = probes_at(0);
	struct pw_sample *s = sample_new();
	struct pw_alert a = active(PW_ALERT_CPU_FREQUENCY_LOW);
	struct pw_ev_frequency *ev = &a.evidence.frequency;

	snprintf(ev->governor, sizeof(ev->governor), "ondemand");
	ev->ncpus = 1;
	ev->cpus[0].cpu = 2;
	put("sys/devices/system/cpu/cpufreq/ondemand/up_threshold", "95\n");
	put("sys/devices/system/cpu/cpufreq/ondemand/sampling_rate", "10000\n");
	pw_probes_update(p, &a, 1, s, T0);
	pw_probes_apply(p, &a);
	ck_assert_uint_eq(ev->tunables.status, PW_PROBE_OK);
	ck_assert_uint_eq(ev->tunables.up_threshold, 95);
	ck_assert_uint_eq(ev->tunables.sampling_rate_us, 10000);
	ck_assert_str_eq(ev->tunables.epp, "");
	ck_assert_msg(strstr(a.description, "ondemand's up_threshold is 95%") != NULL, "%s", a.description);
	/* Per-policy tunables win over the global ones; EPP when the driver has it. */
	put("sys/devices/system/cpu/cpu2/cpufreq/ondemand/up_threshold", "80\n");
	put("sys/devices/system/cpu/cpu2/cpufreq/energy_performance_preference", "balance_power\n");
	a.evidence.frequency.tunables.status = 0;
	pw_probes_update(p, &a, 1, s, T0 + SEC);
	pw_probes_apply(p, &a);
	ck_assert_uint_eq(ev->tunables.up_threshold, 80);
	ck_assert_str_eq(ev->tunables.epp, "balance_power");
	ck_assert_msg(strstr(a.description, "energy_performance_preference is balance_power: the hardware "
	                                    "favours saving power") != NULL,
	              "%s", a.description);
	/* conservative, its tunables only under policy3 (no cpu3/cpufreq link). */
	put("sys/devices/system/cpu/cpufreq/policy3/conservative/up_threshold", "70\n");
	snprintf(ev->governor, sizeof(ev->governor), "conservative");
	ev->cpus[0].cpu = 3;
	pw_probes_update(p, &a, 1, s, T0 + SEC);
	pw_probes_apply(p, &a);
	ck_assert_uint_eq(ev->tunables.up_threshold, 70);
	ck_assert_uint_eq(ev->tunables.sampling_rate_us, UINT32_MAX); /* conservative has none here */
	/* performance: no up_threshold to read; a governor name is never a path. */
	snprintf(ev->governor, sizeof(ev->governor), "../../x");
	pw_probes_update(p, &a, 1, s, T0 + 2 * SEC);
	pw_probes_apply(p, &a);
	ck_assert_uint_eq(ev->tunables.up_threshold, UINT32_MAX);
	free(s);
	pw_probes_free(p);
}
END_TEST

START_TEST(test_disks)
{
	struct pw_probes *p = probes_at(0);
	struct pw_sample *s = sample_new();
	struct pw_alert a[2] = {active(PW_ALERT_MEMORY_SWAPPING), active(PW_ALERT_IOWAIT_HIGH)};
	static const char *const fmt = "   7       0 loop0 0 0 0 0 0 0 0 0 0 %d 0 0 0 0 0\n"
	                               "   8       0 sda %d 0 0 0 %d 0 0 0 0 %d 0 0 0 0 0\n"
	                               "   8       1 sda1 %d 0 0 0 %d 0 0 0 0 %d 0 0 0 0 0\n"
	                               "   8      16 sdb 5 0 0 0 7 0 0 0 0 %d 0\n"
	                               " 259       0 nvme0n1 0 0 0 0 0 0 0 0 0 0 0\n";

	put("proc/diskstats", "%s8 32 sdc 1 2\n", "");
	pw_probes_update(p, a, 2, s, T0 - SEC);
	pw_probes_apply(p, &a[0]);
	ck_assert_uint_eq(a[0].evidence.memory.disks.malformed, 1);
	pw_probes_update(p, NULL, 0, s, T0 - SEC / 2); /* inactive: forgotten */
	put("proc/diskstats", fmt, 0, 1000, 2000, 10000, 1000, 2000, 10000, 100);
	pw_probes_update(p, a, 2, s, T0);
	put("proc/diskstats", fmt, 2000, 1120, 2300, 10870, 1120, 2300, 10870, 200);
	pw_probes_update(p, a, 2, s, T0 + 2 * SEC);
	for (int i = 0; i < 2; i++) {
		pw_probes_apply(p, &a[i]);
		const struct pw_ev_disks *d = &a[i].evidence.memory.disks;
		ck_assert_uint_eq(d->status, PW_PROBE_OK);
		ck_assert_uint_eq(d->n, 3); /* sda, sdb, nvme0n1; not loop0 nor sda1 */
		ck_assert_str_eq(d->top[0].name, "sda");
		ck_assert_float_eq_tol(d->top[0].utilization, 0.435, 1e-5);
		ck_assert_float_eq_tol(d->top[0].reads, 60, 1e-4);
		ck_assert_float_eq_tol(d->top[0].writes, 150, 1e-4);
		ck_assert_str_eq(d->top[1].name, "sdb");
		ck_assert_msg(
		        strstr(a[i].description, "Busiest disk: sda, 44% busy, 60 reads/s, 150 writes/s."),
		        "%s", a[i].description);
	}
	free(s);
	pw_probes_free(p);
}
END_TEST

/* The description is never cut mid-sentence: a sentence that does not fit is left out. */
START_TEST(test_full_description)
{
	struct pw_probes *p = probes_at(0);
	struct pw_sample *s = sample_new();
	struct pw_alert a = active(PW_ALERT_SYSTEM_TIME_HIGH);

	put_proc(7, "x", 0, 0, 1);
	pw_probes_update(p, &a, 1, s, T0);
	put_proc(7, "x", 0, 50, 1);
	pw_probes_update(p, &a, 1, s, T0 + SEC);
	memset(a.description, 'w', sizeof(a.description) - 20);
	a.description[sizeof(a.description) - 20] = '\0';
	pw_probes_apply(p, &a);
	ck_assert_uint_eq(strlen(a.description), sizeof(a.description) - 20);
	ck_assert_int_eq(a.evidence.system_time.processes.top[0].pid, 7);
	free(s);
	pw_probes_free(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probes");
	TCase *core = tcase_create("core");

	tcase_add_unchecked_fixture(core, setup_base, teardown_base);
	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, test_system_time_processes);
	tcase_add_test(core, test_hostile_comm);
	tcase_add_test(core, test_hog_among_idle);
	tcase_add_test(core, test_pid_cap);
	tcase_add_test(core, test_no_proc);
	tcase_add_test(core, test_interrupt_time);
	tcase_add_test(core, test_governor);
	tcase_add_test(core, test_disks);
	tcase_add_test(core, test_full_description);
	suite_add_tcase(s, core);
	return pw_run_suite(s);
}
