/* main.c — perfwatchd: options, the sampler thread, the HTTP server, signals, systemd readiness. */
#define _GNU_SOURCE
#include "clock.h"
#include "collect.h"
#include "http.h"
#include "log.h"
#include "options.h"
#include "sampler.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S INT64_C(1000000000)
/* How often missing files are looked for again and cpufreq re-discovered. */
#define RESCAN_PERIOD_NS (5 * NS_PER_S)
#define FIRST_SAMPLE_TIMEOUT_NS (10 * NS_PER_S)

/* Logs, once a minute at most per source, the parse errors the sampler counted. */
struct error_reporter {
	uint64_t seen[PW_SRC_COUNT];
	struct pw_ratelimit limit[PW_SRC_COUNT];
};

static void report_errors(struct error_reporter *rep, const struct pw_sampler *sampler,
                          struct pw_sample *scratch)
{
	uint64_t suppressed;

	if (!pw_ring_read_latest(pw_sampler_latest(sampler), scratch))
		return;
	for (int src = 0; src < PW_SRC_COUNT; src++) {
		uint64_t now = scratch->parse_errors[src];
		if (now == rep->seen[src])
			continue;
		rep->limit[src].period_ns = 60 * NS_PER_S;
		if (pw_ratelimit_allow(&rep->limit[src], pw_mono_ns(), &suppressed))
			pw_log(LOG_WARNING,
			       "source %s: %llu unreadable or malformed reads so far; skipped, sampling goes "
			       "on",
			       pw_source_name((enum pw_source)src), (unsigned long long)now);
		rep->seen[src] = now;
	}
}

static int wait_first_sample(const struct pw_sampler *sampler)
{
	int64_t give_up = pw_mono_ns() + FIRST_SAMPLE_TIMEOUT_NS;
	struct timespec pause = {0, 1000000};

	while (pw_sampler_last_mono_ns(sampler) == 0) {
		if (pw_mono_ns() > give_up)
			return -ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
	return 0;
}

/* Block the signals we handle in every thread; main takes them with sigtimedwait. */
static void block_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void serve_until_signal(const sigset_t *set, const struct pw_sampler *sampler,
                               struct pw_sample *scratch)
{
	struct error_reporter rep = {0};
	struct timespec tick = {1, 0};

	for (;;) {
		int sig = sigtimedwait(set, NULL, &tick);
		if (sig == SIGTERM || sig == SIGINT) {
			pw_log(LOG_INFO, "%s received, stopping", strsignal(sig));
			return;
		}
		if (sig == SIGHUP)
			pw_log(LOG_NOTICE, "SIGHUP: configuration reload is not supported yet; ignored");
		report_errors(&rep, sampler, scratch);
	}
}

static int run(const struct pw_options *opts)
{
	char err[512];
	int r = 0;
	sigset_t set;
	struct pw_collector_config cc = {
	        .procfs = opts->procfs,
	        .sysfs = opts->sysfs,
	        .user_hz = (uint32_t)sysconf(_SC_CLK_TCK),
	        .page_size = (uint32_t)sysconf(_SC_PAGESIZE),
	        .rescan_every = (uint32_t)((RESCAN_PERIOD_NS + opts->interval_ns - 1) / opts->interval_ns),
	        .interrupts_matrix = opts->interrupts_per_cpu,
	};

	block_signals(&set);
	struct pw_collector *collector = pw_collector_new(&cc, &r);
	if (!collector) {
		pw_log(LOG_ERR, "cannot read %s/stat: %s", opts->procfs, strerror(-r));
		return EXIT_FAILURE;
	}
	uint32_t slots = (uint32_t)(opts->history_ns / opts->interval_ns);
	struct pw_sampler *sampler = pw_sampler_new(collector, opts->interval_ns, slots);
	struct pw_sample *scratch = sampler ? malloc(pw_ring_payload_size(pw_sampler_latest(sampler))) : NULL;
	struct pw_http *http = NULL;
	r = EXIT_FAILURE;
	if (!sampler || !scratch)
		pw_log(LOG_ERR, "out of memory sizing %u CPUs, %u interrupt lines",
		       pw_collector_cpu_cap(collector), pw_collector_line_cap(collector));
	else if (pw_sampler_start(sampler) < 0 || wait_first_sample(sampler) < 0)
		pw_log(LOG_ERR, "the sampler did not start");
	else if (!(http = pw_http_start(opts, sampler, err, sizeof(err))))
		pw_log(LOG_ERR, "%s", err);
	else {
		pw_log(LOG_INFO, "listening on http://%s, sampling every %.3g s, %u CPUs, history %u samples",
		       opts->listen, (double)opts->interval_ns / 1e9, pw_collector_cpu_cap(collector), slots);
		sd_notifyf(0, "READY=1\nSTATUS=sampling every %.3g s, serving %s",
		           (double)opts->interval_ns / 1e9, opts->listen);
		serve_until_signal(&set, sampler, scratch);
		sd_notify(0, "STOPPING=1");
		r = EXIT_SUCCESS;
	}
	pw_http_stop(http);
	pw_sampler_free(sampler);
	free(scratch);
	pw_collector_free(collector);
	return r;
}

int main(int argc, char **argv)
{
	struct pw_options opts;
	char err[1400];
	int r = pw_options_load(&opts, argc, argv, err, sizeof(err));

	if (r < 0) {
		fprintf(stderr, "perfwatchd: %s\n", err);
		return 2;
	}
	if (r > 0)
		return EXIT_SUCCESS;
	if (opts.check_config) {
		printf("perfwatchd: configuration OK\n");
		return EXIT_SUCCESS;
	}
	pw_log_init(opts.log_level);
	return run(&opts);
}
