/* main.c — perfwatchd: options, the sampler thread, the HTTP server, signals, systemd readiness. */
#define _GNU_SOURCE
#include "clock.h"
#include "collect.h"
#include "http.h"
#include "log.h"
#include "options.h"
#include "sampler.h"
#include "watcher.h"

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

/* The main thread only waits for signals: it never wakes for nothing. */
static void serve_until_signal(const sigset_t *set)
{
	for (;;) {
		int sig = sigwaitinfo(set, NULL);
		if (sig == SIGTERM || sig == SIGINT) {
			pw_log(LOG_INFO, "%s received, stopping", strsignal(sig));
			return;
		}
		if (sig == SIGHUP)
			pw_log(LOG_NOTICE, "SIGHUP: configuration reload is not supported yet; ignored");
	}
}

/* Everything the daemon runs, started in data-flow order and stopped in reverse. */
struct parts {
	struct pw_collector *collector;
	struct pw_sampler *sampler;
	struct pw_watcher *watcher;
	struct pw_http *http;
};

static int start_parts(const struct pw_options *opts, struct parts *p, char *err, size_t n)
{
	int r = 0;
	struct pw_collector_config cc = {
	        .procfs = opts->procfs,
	        .sysfs = opts->sysfs,
	        .user_hz = (uint32_t)sysconf(_SC_CLK_TCK),
	        .page_size = (uint32_t)sysconf(_SC_PAGESIZE),
	        .rescan_every = (uint32_t)((RESCAN_PERIOD_NS + opts->interval_ns - 1) / opts->interval_ns),
	        .interrupts_matrix = opts->interrupts_per_cpu,
	};
	uint32_t slots = (uint32_t)(opts->history_ns / opts->interval_ns);

	if (!(p->collector = pw_collector_new(&cc, &r)))
		return snprintf(err, n, "cannot read %s/stat: %s", opts->procfs, strerror(-r)), -1;
	p->sampler = pw_sampler_new(p->collector, opts->interval_ns, slots);
	if (!p->sampler)
		return snprintf(err, n, "out of memory sizing %u CPUs, %u interrupt lines",
		                pw_collector_cpu_cap(p->collector), pw_collector_line_cap(p->collector)),
		       -1;
	if (!(p->watcher = pw_watcher_new(p->sampler, &opts->detector, opts->state_dir,
	                                  opts->state_interval_ns, err, n)))
		return -1;
	if (pw_watcher_start(p->watcher) < 0 || pw_sampler_start(p->sampler) < 0 ||
	    wait_first_sample(p->sampler) < 0)
		return snprintf(err, n, "the sampler did not start"), -1;
	if (!(p->http = pw_http_start(opts, p->sampler, p->watcher, err, n)))
		return -1;
	return 0;
}

static void stop_parts(struct parts *p)
{
	pw_http_stop(p->http);
	if (p->sampler)
		pw_sampler_stop(p->sampler); /* before the watcher closes the eventfd it writes to */
	pw_watcher_free(p->watcher);
	pw_sampler_free(p->sampler);
	pw_collector_free(p->collector);
}

static int run(const struct pw_options *opts)
{
	struct parts parts = {0};
	char err[1400];
	sigset_t set;
	int r = EXIT_FAILURE;

	block_signals(&set);
	if (start_parts(opts, &parts, err, sizeof(err)) < 0) {
		pw_log(LOG_ERR, "%s", err);
	} else {
		pw_log(LOG_INFO, "listening on %s://%s, sampling every %.3g s, %u CPUs, history %u samples",
		       opts->tls_cert[0] ? "https" : "http", opts->listen, (double)opts->interval_ns / 1e9,
		       pw_collector_cpu_cap(parts.collector),
		       (uint32_t)(opts->history_ns / opts->interval_ns));
		sd_notifyf(0, "READY=1\nSTATUS=sampling every %.3g s, serving %s",
		           (double)opts->interval_ns / 1e9, opts->listen);
		serve_until_signal(&set);
		sd_notify(0, "STOPPING=1");
		r = EXIT_SUCCESS;
	}
	stop_parts(&parts);
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
