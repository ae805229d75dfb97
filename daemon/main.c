/* main.c — perfwatchd: options, the sampler thread, the HTTP server, signals (stop, reload), and
 * systemd: readiness and status, the watchdog, socket activation. */
#define _GNU_SOURCE
#include "clock.h"
#include "collect.h"
#include "detector_thread.h"
#include "history_store.h"
#include "http.h"
#include "log.h"
#include "notifier.h"
#include "options.h"
#include "recorder.h"
#include "replay.h"
#include "sampler.h"

#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
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
/* How often systemd's STATUS= line is refreshed (only when systemd listens). */
#define STATUS_PERIOD_S 5

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
	signal(SIGXFSZ, SIG_IGN); /* a --record file at RLIMIT_FSIZE: EFBIG, logged, not death */
}

/* Everything the daemon runs, started in data-flow order and stopped in reverse. */
struct parts {
	struct pw_collector *collector;
	struct pw_sampler *sampler;
	struct pw_detector_thread *detector_thread; /* and its disk writer: baselines, --record */
	struct pw_notifier *notifier;               /* NULL: no receivers */
	struct pw_http *http;
};

/* The running daemon: its settings and how they were given, for a reload to read them again. */
struct daemon {
	struct pw_options opts; /* the running configuration; the HTTP thread reads it */
	int argc;
	char **argv;
	struct parts parts;
};

/* A socket passed by systemd (LISTEN_FDS, LISTEN_PID) replaces --listen: opts->listen_fd and the
 * address fields then describe it. Returns 0 (with or without one) or -1 with a reason in err. */
static int take_listen_socket(struct pw_options *opts, char *err, size_t n)
{
	int fds = sd_listen_fds(1);
	struct sockaddr_storage addr;
	socklen_t len = sizeof(addr);
	char host[INET6_ADDRSTRLEN] = "?";
	char given[sizeof(opts->listen)];

	if (fds <= 0)
		return 0;
	if (sd_is_socket(SD_LISTEN_FDS_START, AF_UNSPEC, SOCK_STREAM, 1) <= 0 ||
	    getsockname(SD_LISTEN_FDS_START, (struct sockaddr *)&addr, &len) < 0 ||
	    (addr.ss_family != AF_INET && addr.ss_family != AF_INET6))
		return snprintf(err, n, "socket activation: fd %d is not a listening TCP socket",
		                SD_LISTEN_FDS_START),
		       -1;
	if (fds > 1)
		pw_log(LOG_WARNING, "socket activation: %d sockets passed; serving on the first only", fds);
	snprintf(given, sizeof(given), "%s", opts->listen);
	if (addr.ss_family == AF_INET6) {
		const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&addr;
		inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
		snprintf(opts->listen, sizeof(opts->listen), "[%s]:%u", host, ntohs(v6->sin6_port));
	} else {
		const struct sockaddr_in *v4 = (const struct sockaddr_in *)&addr;
		inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
		snprintf(opts->listen, sizeof(opts->listen), "%s:%u", host, ntohs(v4->sin_port));
	}
	opts->listen_addr = addr;
	opts->listen_addr_len = len;
	opts->listen_fd = SD_LISTEN_FDS_START;
	pw_log(LOG_INFO, "socket activation: serving on fd %d (%s) passed by systemd; listen %s ignored",
	       SD_LISTEN_FDS_START, opts->listen, given);
	return 0;
}

/* The alert delivery thread, when receivers are configured. */
static int start_notifier(const struct pw_options *opts, struct parts *p, char *err, size_t n)
{
	char external_url[160];
	struct pw_notifier_config nc = {
	        .receivers = &opts->receivers,
	        .instance = opts->instance,
	        .external_url = external_url,
	        .webhook_repeat_ns = opts->webhook_repeat_ns,
	        .am_resend_ns = opts->am_resend_ns,
	        .queue_cap = opts->notify_queue,
	        .state_dir = opts->state_dir,
	};

	if (opts->receivers.n == 0)
		return 0;
	snprintf(external_url, sizeof(external_url), "http://%s", opts->listen);
	if (!(p->notifier = pw_notifier_new(&nc, err, n)))
		return -1;
	if (pw_notifier_start(p->notifier) < 0)
		return snprintf(err, n, "the notifier did not start"), -1;
	pw_detector_thread_set_notifier(p->detector_thread, p->notifier);
	return 0;
}

static int start_parts(const struct pw_options *opts, struct parts *p, char *err, size_t n)
{
	int r = 0;
	uint64_t watchdog_us = 0;
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
	/* The sampler pings at half the period systemd allows (WATCHDOG_USEC, for our WATCHDOG_PID). */
	if (sd_watchdog_enabled(0, &watchdog_us) > 0 && watchdog_us > 0) {
		pw_sampler_watchdog(p->sampler, (int64_t)watchdog_us * 1000 / 2);
		pw_log(LOG_INFO, "systemd watchdog: %.3g s; the sampler pings every %.3g s",
		       (double)watchdog_us / 1e6, (double)watchdog_us / 2e6);
	}
	if (!(p->detector_thread = pw_detector_thread_new(p->sampler, &opts->detector, opts->state_dir,
	                                                  opts->state_interval_ns, err, n)))
		return -1;
	if (opts->record[0]) {
		struct pw_rec_header hdr;
		struct pw_recorder *recorder;
		pw_rec_header_init(&hdr, pw_collector_cpu_cap(p->collector),
		                   pw_collector_line_cap(p->collector), pw_collector_has_matrix(p->collector),
		                   cc.user_hz, cc.page_size, opts->interval_ns);
		if (!(recorder = pw_recorder_open(opts->record, &hdr, err, n)))
			return -1;
		pw_detector_thread_record(p->detector_thread, recorder); /* its now */
	}
	if (opts->state_dir[0]) {
		char dir[sizeof(opts->state_dir) + 16];
		struct pw_history_store *store;
		pw_history_store_dir(opts->state_dir, dir, sizeof(dir));
		struct pw_history_store_config sc = {
		        .dir = dir,
		        .interval_ns = opts->interval_ns,
		        .cpu_cap = pw_collector_cpu_cap(p->collector),
		        .retention_ns = opts->retention_ns,
		        .retention_size = opts->retention_size,
		};
		if (!(store = pw_history_store_new(&sc)))
			return snprintf(err, n, "cannot set up the history store: out of memory"), -1;
		pw_detector_thread_store(p->detector_thread, store); /* its now */
	}
	if (pw_detector_thread_probe(p->detector_thread, opts->procfs, opts->sysfs, opts->interval_ns) < 0)
		return snprintf(err, n, "cannot set up the alert probes: out of memory"), -1;
	if (start_notifier(opts, p, err, n) < 0)
		return -1;
	if (pw_detector_thread_start(p->detector_thread) < 0 || pw_sampler_start(p->sampler) < 0 ||
	    wait_first_sample(p->sampler) < 0)
		return snprintf(err, n, "the sampler did not start"), -1;
	if (!(p->http = pw_http_start(opts, p->sampler, p->detector_thread, p->notifier, err, n)))
		return -1;
	return 0;
}

static void stop_parts(struct parts *p)
{
	pw_http_stop(p->http);
	if (p->sampler)
		pw_sampler_stop(p->sampler); /* before the detector thread closes the eventfd it writes to */
	/* Judges what is left, notifies, and lets its disk writer write the queued records and the
	 * baselines (bounded: a hanging disk is given up on after PW_DISK_WRITER_STOP_WAIT_NS). */
	pw_detector_thread_free(p->detector_thread);
	pw_notifier_free(p->notifier); /* aborts transfers, keeps the queue */
	pw_sampler_free(p->sampler);
	pw_collector_free(p->collector);
}

/* One line for systemctl status: "sampling every 1 s, 312 samples; 2 alerts firing:
 * InterruptTimeHigh, CpuFrequencyLow; 1 pending". */
static void format_status(const struct daemon *d, char *buf, size_t n)
{
	struct pw_detector_view view;
	uint32_t firing = 0, pending = 0;
	size_t used;

	memset(&view, 0, sizeof(view));
	pw_detector_thread_view(d->parts.detector_thread, &view);
	used = (size_t)snprintf(buf, n, "sampling every %.3g s, %llu samples%s",
	                        (double)d->opts.interval_ns / 1e9, (unsigned long long)view.samples_seen,
	                        view.warm ? "" : ", learning baselines");
	for (uint32_t i = 0; i < view.nalerts; i++)
		*(view.alerts[i].state == PW_ALERT_FIRING ? &firing : &pending) += 1;
	if (used < n)
		used += (size_t)snprintf(buf + used, n - used, "; %u alert%s firing%s", firing,
		                         firing == 1 ? "" : "s", firing ? ":" : "");
	for (uint32_t i = 0, k = 0; i < view.nalerts && used < n; i++)
		if (view.alerts[i].state == PW_ALERT_FIRING)
			used += (size_t)snprintf(buf + used, n - used, "%s %s", k++ ? "," : "",
			                         pw_alert_name_str(view.alerts[i].name));
	if (pending && used < n)
		snprintf(buf + used, n - used, "; %u pending", pending);
}

static void notify_status(const struct daemon *d)
{
	char status[512];

	format_status(d, status, sizeof(status));
	sd_notifyf(0, "STATUS=%s", status);
}

/* Settings a reload cannot change: named in the log when the file changed them. */
static void log_restart_needed(const struct pw_options *old, const struct pw_options *new)
{
	char names[512] = "";
	size_t used = 0;
	const struct {
		const char *name;
		bool changed;
	} fixed[] = {
	        {"listen", old->listen_fd < 0 && strcmp(old->listen, new->listen) != 0},
	        {"interval", old->interval_ns != new->interval_ns},
	        {"history", old->history_ns != new->history_ns},
	        {"retention-time", old->retention_ns != new->retention_ns},
	        {"retention-size", old->retention_size != new->retention_size},
	        {"procfs", strcmp(old->procfs, new->procfs) != 0},
	        {"sysfs", strcmp(old->sysfs, new->sysfs) != 0},
	        {"interrupts-per-cpu", old->interrupts_per_cpu != new->interrupts_per_cpu},
	        {"state-dir", strcmp(old->state_dir, new->state_dir) != 0},
	        {"state-interval", old->state_interval_ns != new->state_interval_ns},
	        {"record", strcmp(old->record, new->record) != 0},
	        {"tls", strcmp(old->tls_cert, new->tls_cert) != 0 ||
	                        strcmp(old->tls_key, new->tls_key) != 0 ||
	                        strcmp(old->tls_priorities, new->tls_priorities) != 0},
	        {"http limits",
	         old->http_max_connections != new->http_max_connections ||
	                 old->http_max_connections_per_ip != new->http_max_connections_per_ip ||
	                 old->http_timeout_ns != new->http_timeout_ns ||
	                 old->http_max_header_bytes != new->http_max_header_bytes},
	        {"http-allowed-hosts", strcmp(old->http_allowed_hosts, new->http_allowed_hosts) != 0},
	        {"instance", strcmp(old->instance, new->instance) != 0},
	        {"notify timing", old->webhook_repeat_ns != new->webhook_repeat_ns ||
	                                  old->am_resend_ns != new->am_resend_ns ||
	                                  old->notify_queue != new->notify_queue},
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) && used < sizeof(names); i++)
		if (fixed[i].changed)
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "",
			                         fixed[i].name);
	if (used)
		pw_log(LOG_WARNING, "reload: %s changed; needs a restart (still running with the old value)",
		       names);
}

/* Name each rule whose settings the reload changes, with its new settings. */
static void log_rule_changes(const struct pw_detector_config *old, const struct pw_detector_config *new)
{
	if (old->warmup_ns != new->warmup_ns)
		pw_log(LOG_INFO, "reload: baseline-warmup %.3g s -> %.3g s", (double)old->warmup_ns / 1e9,
		       (double)new->warmup_ns / 1e9);
	for (int i = 0; i < PW_ALERT_COUNT; i++) {
		const struct pw_rule_config *a = &old->rules[i], *b = &new->rules[i];
		if (a->enabled == b->enabled && a->for_ns == b->for_ns && a->resolve_ns == b->resolve_ns &&
		    a->threshold == b->threshold && a->critical == b->critical && a->sigmas == b->sigmas &&
		    a->adopt_ns == b->adopt_ns)
			continue;
		pw_log(LOG_INFO,
		       "reload: rule %s: enabled=%s for=%.3gs resolve=%.3gs threshold=%g critical=%g "
		       "sigmas=%g adopt=%.3gs",
		       pw_alert_name_str((enum pw_alert_name)i), b->enabled ? "true" : "false",
		       (double)b->for_ns / 1e9, (double)b->resolve_ns / 1e9, b->threshold, b->critical,
		       b->sigmas, (double)b->adopt_ns / 1e9);
	}
}

/* SIGHUP: read the config file again (flags still win). Invalid: one line, nothing changes. Valid:
 * rule settings go to the detector thread, the log level applies at once; baselines, alert state and
 * queued notifications are untouched; what only a restart can change is named. */
static void reload(struct daemon *d)
{
	struct pw_options fresh;
	char err[1400];

	if (pw_options_load(&fresh, d->argc, d->argv, err, sizeof(err)) != 0) {
		pw_log(LOG_ERR, "reload rejected: %s; keeping the running configuration", err);
		return;
	}
	/* Resolve times that follow the interval follow the one in effect, not a new one in the file. */
	for (int i = 0; i < PW_ALERT_COUNT; i++)
		if (!(fresh.rule_resolve_set >> i & 1u))
			fresh.detector.rules[i].resolve_ns = 3 * d->opts.interval_ns;
	log_restart_needed(&d->opts, &fresh);
	log_rule_changes(&d->opts.detector, &fresh.detector);
	pw_detector_thread_reconfigure(d->parts.detector_thread, &fresh.detector);
	if (fresh.log_level != d->opts.log_level)
		pw_log_set_level(fresh.log_level);
	/* Receivers kept by name keep their queues; the notifier applies the list on its own thread. */
	if (d->parts.notifier) {
		if (pw_notifier_reconfigure(d->parts.notifier, &fresh.receivers) < 0)
			pw_log(LOG_ERR, "reload: receivers not changed: out of memory");
	} else if (fresh.receivers.n > 0) {
		pw_log(LOG_WARNING,
		       "reload: receivers were added; alert delivery starts only with a restart");
	}
	/* [auth]: the HTTP thread adopts a new checker (empty caches) before its next request. */
	if (memcmp(&fresh.auth, &d->opts.auth, sizeof(fresh.auth)) != 0) {
		if (pw_http_reconfigure_auth(d->parts.http, &fresh.auth) < 0) {
			pw_log(LOG_ERR, "reload: [auth] not changed: out of memory");
			fresh.auth = d->opts.auth;
		} else {
			pw_log(LOG_INFO, "reload: [auth] applied: %u user%s; cached logins forgotten",
			       fresh.auth.n_users, fresh.auth.n_users == 1 ? "" : "s");
		}
	}
	if (pw_options_config_exposed(&fresh, err, sizeof(err)))
		pw_log(LOG_WARNING, "%s", err);
	/* Only fields no other thread reads after start are updated in the running copy. */
	d->opts.detector = fresh.detector;
	d->opts.log_level = fresh.log_level;
	d->opts.alert_for_ns = fresh.alert_for_ns;
	d->opts.rule_for_set = fresh.rule_for_set;
	d->opts.rule_resolve_set = fresh.rule_resolve_set;
	d->opts.auth = fresh.auth; /* the HTTP thread read it once, at start */
	pw_log(LOG_NOTICE, "reload: configuration %s applied", fresh.config);
}

/* The main thread waits for signals, waking every STATUS_PERIOD_S only when systemd listens, to
 * refresh STATUS=. Returns on SIGTERM or SIGINT. */
static void serve_until_signal(struct daemon *d, const sigset_t *set)
{
	bool systemd = getenv("NOTIFY_SOCKET") != NULL;
	const struct timespec every = {STATUS_PERIOD_S, 0};

	for (;;) {
		int sig = systemd ? sigtimedwait(set, NULL, &every) : sigwaitinfo(set, NULL);
		if (sig < 0) {
			if (errno == EAGAIN)
				notify_status(d);
			continue;
		}
		if (sig == SIGTERM || sig == SIGINT) {
			sd_notify(0, "STOPPING=1");
			pw_log(LOG_INFO, "%s received, stopping", strsignal(sig));
			return;
		}
		if (sig == SIGHUP) {
			sd_notify(0, "RELOADING=1");
			pw_log(LOG_INFO, "SIGHUP received, reloading %s", d->opts.config);
			reload(d);
			sd_notify(0, "READY=1");
			notify_status(d);
		}
	}
}

static int run(struct daemon *d)
{
	char err[1400];
	sigset_t set;
	int r = EXIT_FAILURE;

	block_signals(&set);
	if (take_listen_socket(&d->opts, err, sizeof(err)) < 0 ||
	    start_parts(&d->opts, &d->parts, err, sizeof(err)) < 0) {
		pw_log(LOG_ERR, "%s", err);
	} else {
		pw_log(LOG_INFO, "listening on %s://%s, sampling every %.3g s, %u CPUs, history %u samples",
		       d->opts.tls_cert[0] ? "https" : "http", d->opts.listen,
		       (double)d->opts.interval_ns / 1e9, pw_collector_cpu_cap(d->parts.collector),
		       (uint32_t)(d->opts.history_ns / d->opts.interval_ns));
		sd_notify(0, "READY=1");
		notify_status(d);
		serve_until_signal(d, &set);
		r = EXIT_SUCCESS;
	}
	stop_parts(&d->parts);
	if (r == EXIT_SUCCESS)
		pw_log(LOG_INFO, "stopped");
	return r;
}

/* Allocations from 256 KiB up get their own mappings, returned to the kernel when freed. glibc
 * would otherwise raise this threshold to the largest block freed so far (the CPU probe's 720 KiB,
 * then /history's megabytes), after which those blocks come from the thread's arena, whose top
 * malloc_trim() cannot shrink: 1.6 MiB of an hour's /history stayed resident at 16 CPUs. */
#define MMAP_THRESHOLD_BYTES (256 * 1024)

int main(int argc, char **argv)
{
	static struct daemon d;
	char err[1400];

	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
	int r = pw_options_load(&d.opts, argc, argv, err, sizeof(err));

	if (r < 0) {
		fprintf(stderr, "perfwatchd: %s\n", err);
		return 2;
	}
	if (r > 0)
		return EXIT_SUCCESS;
	bool exposed = pw_options_config_exposed(&d.opts, err, sizeof(err));
	if (d.opts.check_config) {
		if (exposed)
			fprintf(stderr, "perfwatchd: warning: %s\n", err);
		printf("perfwatchd: configuration OK\n");
		return EXIT_SUCCESS;
	}
	if (d.opts.replay[0])
		return pw_replay_run(&d.opts);
	d.argc = argc;
	d.argv = argv;
	pw_log_init(d.opts.log_level);
	if (exposed)
		pw_log(LOG_WARNING, "%s", err);
	return run(&d);
}
