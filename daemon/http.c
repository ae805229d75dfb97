/* http.c — routing and responses. MHD runs one internal polling thread, so the render buffers below
 * are used by one handler at a time and reach a steady size after the first scrapes. */
#include "http.h"

#include "alerts_json.h"
#include "clock.h"
#include "gzip.h"
#include "history.h"
#include "history_store.h"
#include "http_auth.h"
#include "http_guard.h"
#include "http_history.h"
#include "http_host.h"
#include "http_respond.h"
#include "http_tls.h"
#include "log.h"
#include "prometheus.h"
#include "status_json.h"
#include "status_text.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define STATUS_WINDOW_NS (60 * INT64_C(1000000000))
#define STATUS_TOP_N 5
/* Compressing a small body costs more time than it saves on any network (16 KiB for 2 CPUs takes
 * ~80 us to gzip); big hosts' bodies (400 KiB at 256 CPUs) are worth it. */
#define GZIP_MIN_BYTES (64 * 1024)

struct pw_http {
	struct MHD_Daemon *mhd;
	const struct pw_options *opts;
	const struct pw_sampler *sampler;
	const struct pw_detector_thread *detector_thread;
	struct pw_detector_view view; /* scratch copy of the detector's newest view */
	struct pw_sample *sample;     /* scratch copy of the newest sample */
	void *point;                  /* scratch for history points */
	struct pw_outbuf body, gz;
	double last_scrape_seconds;
	uint64_t scrapes;
	struct pw_ratelimit mhd_log_limit;
	struct pw_notifier *notifier;       /* NULL: no receivers */
	struct pw_notifier_snapshot notify; /* scratch copy of its counters */
	struct pw_tls_material tls;         /* PEM text MHD reads at start; empty without TLS */
	struct pw_auth *auth;               /* NULL: no endpoint needs a password; the HTTP thread's own */
	/* A reload's [auth] checker, handed over under auth_lock and taken by the HTTP thread before
	 * its next request: only that thread ever uses or frees h->auth. */
	pthread_mutex_t auth_lock;
	struct pw_auth *auth_pending;
	atomic_bool auth_swap;
	struct pw_guard *guard;     /* request receive deadlines (slowloris) */
	struct pw_http_hosts hosts; /* Host names answered besides the listen address (DNS rebinding) */
	struct pw_ratelimit host_log_limit;
	struct pw_ratelimit auth_log_limit;
	/* Refused logins; only MHD's one polling thread writes and reads them. */
	uint64_t auth_bad_credentials, auth_throttled;
	/* /history and /ui */
	struct pw_http_history *history;
};

static enum MHD_Result respond_text(struct MHD_Connection *conn, unsigned status, const char *text)
{
	return pw_http_respond(conn, status, "text/plain; charset=utf-8", text, strlen(text), NULL);
}

/* The newest sample into the scratch copy, or NULL before the first. */
static const struct pw_sample *latest(struct pw_http *h)
{
	return pw_ring_read_latest(pw_sampler_latest(h->sampler), h->sample) ? h->sample : NULL;
}

/* The detector's newest view into the scratch copy; before it judged its first sample, an empty
 * view that says the baselines are still learning. */
static const struct pw_detector_view *detector_view(struct pw_http *h)
{
	if (!pw_detector_thread_view(h->detector_thread, &h->view))
		memset(&h->view, 0, sizeof(h->view));
	return &h->view;
}

/* Send body, gzipped when the client takes it and it is worth it. */
static enum MHD_Result respond_body(struct pw_http *h, struct MHD_Connection *conn, const char *type)
{
	const char *accept =
	        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);

	if (h->body.len >= GZIP_MIN_BYTES && pw_gzip_accepted(accept) &&
	    pw_gzip_compress(h->body.data, h->body.len, &h->gz) == 0)
		return pw_http_respond(conn, MHD_HTTP_OK, type, h->gz.data, h->gz.len, "gzip");
	return pw_http_respond(conn, MHD_HTTP_OK, type, h->body.data, h->body.len, NULL);
}

/* How perfwatchd's own files fare, for /metrics and /status. */
static void own_files(struct pw_http *h, struct pw_files_stats *ret)
{
	*ret = (struct pw_files_stats){0};
	if (h->detector_thread)
		pw_detector_thread_files(h->detector_thread, ret);
	if (h->notifier)
		pw_notifier_file_stats(h->notifier, &ret->file[PW_FILE_NOTIFICATIONS]);
}

static enum MHD_Result serve_metrics(struct pw_http *h, struct MHD_Connection *conn)
{
	int64_t start = pw_mono_ns();
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	struct pw_prom_options options = {
	        .format = pw_prom_negotiate(accept),
	        .interrupts_per_cpu = h->opts->interrupts_per_cpu,
	};
	struct pw_prom_self self = {
	        .version = PW_VERSION,
	        .interval_seconds = (double)h->opts->interval_ns / 1e9,
	        .last_scrape_seconds = h->scrapes ? h->last_scrape_seconds : -1.0,
	        .scrapes_total = h->scrapes,
	        .history_capacity = pw_ring_capacity(pw_sampler_history(h->sampler)),
	        .history_bytes = pw_sampler_ring_bytes(h->sampler),
	};

	struct pw_http_stats http = {
	        .auth_bad_credentials = h->auth_bad_credentials,
	        .auth_throttled = h->auth_throttled,
	};
	pw_guard_stats(h->guard, &http.cut_deadline, &http.cut_shed);
	self.http = &http;
	self.detector = detector_view(h);
	if (h->notifier) {
		pw_notifier_stats(h->notifier, &h->notify);
		self.notify = &h->notify.view;
	}
	struct pw_files_stats files;
	own_files(h, &files);
	self.files = &files;
	pw_outbuf_reset(&h->body);
	if (pw_prom_render(&h->body, latest(h), &options, &self) < 0)
		return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	enum MHD_Result r = respond_body(h, conn, pw_prom_content_type(options.format));
	h->scrapes++;
	h->last_scrape_seconds = (double)(pw_mono_ns() - start) / 1e9;
	return r;
}

/* ?format=text, or an Accept that names text/plain and not JSON (curl sends * / *: JSON stays
 * the default for tools). */
static bool wants_text(struct MHD_Connection *conn)
{
	const char *format = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "format");
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);

	if (format)
		return strcmp(format, "text") == 0;
	return accept && strstr(accept, "text/plain") && !strstr(accept, "application/json");
}

static enum MHD_Result serve_status(struct pw_http *h, struct MHD_Connection *conn)
{
	struct pw_files_stats files;
	struct pw_history_summary recent;
	int64_t now_mono = pw_mono_ns();
	const struct pw_ring *history = pw_sampler_history(h->sampler);
	struct pw_status_self self = {
	        .version = PW_VERSION,
	        .interval_seconds = (double)h->opts->interval_ns / 1e9,
	        .now_real_ns = pw_real_ns(),
	        .now_mono_ns = now_mono,
	        .history_samples = (uint32_t)(pw_ring_head(history) < pw_ring_capacity(history)
	                                              ? pw_ring_head(history)
	                                              : pw_ring_capacity(history)),
	        .top_n = STATUS_TOP_N,
	};

	pw_history_summarize(history, now_mono - STATUS_WINDOW_NS, h->point, &recent);
	self.recent = &recent;
	self.detector = detector_view(h);
	/* A writer the disk keeps waiting is named here; /healthz follows the sampler only. */
	own_files(h, &files);
	self.files = &files;
	if (wants_text(conn)) {
		pw_outbuf_reset(&h->body);
		if (pw_status_render_text(&h->body, latest(h), &self) < 0)
			return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
		return respond_body(h, conn, "text/plain; charset=utf-8");
	}
	pw_outbuf_reset(&h->body);
	if (pw_status_render_into(latest(h), &self, &h->body) < 0)
		return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return respond_body(h, conn, "application/json");
}

static enum MHD_Result serve_alerts(struct pw_http *h, struct MHD_Connection *conn)
{
	pw_outbuf_reset(&h->body);
	if (pw_alerts_render_into(detector_view(h), &h->body) < 0)
		return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return respond_body(h, conn, "application/json");
}

static enum MHD_Result serve_healthz(struct pw_http *h, struct MHD_Connection *conn)
{
	char text[128];
	int64_t last = pw_sampler_last_mono_ns(h->sampler);
	double age = (double)(pw_mono_ns() - last) / 1e9;

	if (last == 0)
		return respond_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "starting: no sample yet\n");
	if (age >= 3.0 * (double)h->opts->interval_ns / 1e9) {
		snprintf(text, sizeof(text), "stale: last sample %.1f s ago\n", age);
		return respond_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, text);
	}
	snprintf(text, sizeof(text), "ok: last sample %.3f s ago\n", age);
	return respond_text(conn, MHD_HTTP_OK, text);
}

/* The credentials of a Basic Authorization header, NULL when there is none or no password. */
struct credentials {
	const char *user, *password;
	void *block[2]; /* what MHD allocated */
};

static void credentials_get(struct MHD_Connection *conn, struct credentials *c)
{
	memset(c, 0, sizeof(*c));
#if MHD_VERSION >= 0x00097701 /* the two-string API is deprecated from 0.9.77 on */
	struct MHD_BasicAuthInfo *info = MHD_basic_auth_get_username_password3(conn);
	if (info && info->password) {
		c->user = info->username;
		c->password = info->password;
	}
	c->block[0] = info;
#else
	char *password = NULL;
	char *user = MHD_basic_auth_get_username_password(conn, &password);
	c->user = user;
	c->password = password;
	c->block[0] = user;
	c->block[1] = password;
#endif
}

static void credentials_free(struct credentials *c)
{
	if (c->password)
		explicit_bzero((char *)c->password, strlen(c->password));
	for (int i = 0; i < 2; i++)
		if (c->block[i])
			MHD_free(c->block[i]);
}

static void log_refusal(struct pw_http *h, enum pw_auth_result r, const char *user, int64_t now)
{
	uint64_t suppressed;
	char name[65];

	if (!user || !pw_ratelimit_allow(&h->auth_log_limit, now, &suppressed))
		return;
	/* The name is the client's: no control characters into the log. */
	snprintf(name, sizeof(name), "%s", user);
	for (char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	pw_log(LOG_NOTICE, "http: %s for user '%s' (%llu similar messages suppressed)",
	       r == PW_AUTH_DENIED ? "wrong password or unknown user" : "auth attempts throttled", name,
	       (unsigned long long)suppressed);
}

static bool loopback(const struct sockaddr_storage *a);

/* Take a checker pw_http_reconfigure_auth handed over; the old one's failure records and budget
 * carry over, its caches go. */
static void adopt_auth(struct pw_http *h)
{
	pthread_mutex_lock(&h->auth_lock);
	struct pw_auth *fresh = h->auth_pending;
	h->auth_pending = NULL;
	atomic_store_explicit(&h->auth_swap, false, memory_order_relaxed);
	pthread_mutex_unlock(&h->auth_lock);
	pw_auth_inherit(fresh, h->auth);
	pw_auth_free(h->auth);
	h->auth = fresh;
}

int pw_http_reconfigure_auth(struct pw_http *h, const struct pw_auth_config *cfg)
{
	struct pw_auth *fresh = pw_auth_new(cfg);

	if (!fresh && pw_auth_protected(cfg))
		return -ENOMEM;
	if (fresh && !h->opts->tls_cert[0] && !loopback(&h->opts->listen_addr))
		pw_log(LOG_WARNING, "http: basic auth on %s without TLS sends passwords in clear text",
		       h->opts->listen);
	pthread_mutex_lock(&h->auth_lock);
	struct pw_auth *unused = h->auth_pending;
	h->auth_pending = fresh;
	atomic_store_explicit(&h->auth_swap, true, memory_order_release);
	pthread_mutex_unlock(&h->auth_lock);
	pw_auth_free(unused);
	return 0;
}

/* Basic auth for a protected endpoint: true to go on, else *ret is the queued 401 or 429. */
static bool authorized(struct pw_http *h, struct MHD_Connection *conn, enum MHD_Result *ret)
{
	const union MHD_ConnectionInfo *ci =
	        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	struct credentials c;
	int64_t now = pw_mono_ns();

	credentials_get(conn, &c);
	enum pw_auth_result r = pw_auth_check(h->auth, c.user, c.password, ci ? ci->client_addr : NULL, now);
	if (r != PW_AUTH_OK)
		log_refusal(h, r, c.user, now);
	credentials_free(&c);
	if (r == PW_AUTH_OK)
		return true;
	*(r == PW_AUTH_THROTTLED ? &h->auth_throttled : &h->auth_bad_credentials) += 1;
	const char *text = r == PW_AUTH_THROTTLED ? "too many failed logins; retry later\n"
	                                          : "authentication required\n";
	struct MHD_Response *resp =
	        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return *ret = MHD_NO, false;
	pw_http_safety_headers(resp);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (r == PW_AUTH_THROTTLED) {
		/* One failure token comes back every 12 s. */
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "12");
		*ret = MHD_queue_response(conn, MHD_HTTP_TOO_MANY_REQUESTS, resp);
	} else {
#if MHD_VERSION >= 0x00097701
		*ret = MHD_queue_basic_auth_required_response3(conn, "perfwatch", MHD_NO, resp);
#else
		*ret = MHD_queue_basic_auth_fail_response(conn, "perfwatch", resp);
#endif
	}
	MHD_destroy_response(resp);
	return false;
}

static enum MHD_Result count_host(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	(void)kind;
	(void)value;
	if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0)
		*(unsigned *)cls += 1;
	return MHD_YES;
}

/* DNS rebinding (http_host.h): only requests for this server's own address or names are answered,
 * before anything else (a password check included). A second Host header is refused: which one a
 * proxy on the way went by is unknown. The listen address is the passed socket's under socket
 * activation (main.c takes it from getsockname). */
static bool host_allowed(struct pw_http *h, struct MHD_Connection *conn, enum MHD_Result *ret)
{
	const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	unsigned n = 0;
	uint64_t suppressed;

	MHD_get_connection_values(conn, MHD_HEADER_KIND, count_host, &n);
	if (n <= 1 && pw_http_host_allowed(&h->hosts, (const struct sockaddr *)&h->opts->listen_addr, host))
		return true;
	/* The log escapes what the client sent (log.c). */
	if (pw_ratelimit_allow(&h->host_log_limit, pw_mono_ns(), &suppressed))
		pw_log(LOG_NOTICE,
		       "http: refused a request for Host '%.100s'%s: not this server's address or name (a "
		       "name it answers to goes in http-allowed-hosts) (%llu similar messages suppressed)",
		       host ? host : "", n > 1 ? " and more Host headers" : "",
		       (unsigned long long)suppressed);
	*ret = respond_text(conn, MHD_HTTP_MISDIRECTED_REQUEST,
	                    "misdirected request: this server does not answer to that Host (see "
	                    "http-allowed-hosts)\n");
	return false;
}

/* A request's state once its headers are in; a /history request waiting for the history thread has
 * its job there instead. */
static int headers_seen;

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **state)
{
	struct pw_http *h = cls;
	(void)version;
	(void)upload_data;

	/* Answer on the second call, once MHD knows the whole request (and any body) was read: an
	 * answer on the first call makes it close the connection, and Prometheus keeps connections
	 * alive. A body is never used here; it is skipped. */
	if (*state == NULL) {
		*state = &headers_seen;
		return MHD_YES;
	}
	if (*state != &headers_seen) { /* resumed: the history thread made the answer */
		struct pw_http_history_job *job = *state;
		*state = &headers_seen;
		return pw_http_history_answer(conn, job);
	}
	if (*upload_data_size != 0) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	pw_guard_request_received(h->guard, conn); /* its receive deadline no longer applies */
	enum MHD_Result refused;
	if (!host_allowed(h, conn, &refused))
		return refused;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
	if (atomic_load_explicit(&h->auth_swap, memory_order_acquire))
		adopt_auth(h);
	if (pw_auth_protects(h->auth, url)) {
		enum MHD_Result r;
		if (!authorized(h, conn, &r))
			return r;
	}
	if (strcmp(url, "/metrics") == 0)
		return serve_metrics(h, conn);
	if (strcmp(url, "/status") == 0)
		return serve_status(h, conn);
	if (strcmp(url, "/healthz") == 0)
		return serve_healthz(h, conn);
	if (strcmp(url, "/alerts") == 0)
		return serve_alerts(h, conn);
	if (strcmp(url, "/history") == 0) {
		struct pw_http_history_job *job = NULL;
		enum MHD_Result r = pw_http_history_serve(h->history, conn, &job);
		if (job)
			*state = job;
		return r;
	}
	if (strcmp(url, "/ui") == 0 ||
	    (strcmp(url, "/") == 0 &&
	     pw_http_ui_wanted(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT))))
		return pw_http_ui_serve(conn);
	if (strcmp(url, "/") == 0)
		return respond_text(
		        conn, MHD_HTTP_OK,
		        "perfwatchd " PW_VERSION "\n/metrics  Prometheus metrics\n"
		        "/status   what the machine is doing (JSON)\n/alerts   active alerts (JSON)\n"
		        "/healthz  sampler health\n/history  the last hour, second by second (JSON, CSV)\n"
		        "/ui       the last hour, plotted (open it in a browser)\n");
	return respond_text(conn, MHD_HTTP_NOT_FOUND, "not found\n");
}

/* The guard's bookkeeping, and a /history job whose connection closed before its answer (at a
 * stop: MHD closes no connection while it is suspended). */
static void on_completed(void *cls, struct MHD_Connection *conn, void **state,
                         enum MHD_RequestTerminationCode code)
{
	struct pw_http *h = cls;
	pw_guard_on_completed(h->guard, conn, state, code);
	if (*state && *state != &headers_seen)
		pw_http_history_job_free(*state);
	*state = NULL;
}

/* MHD's own complaints (bad requests, resource limits), rate-limited: a hostile client must not
 * flood the log. */
__attribute__((format(printf, 2, 0))) static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
	struct pw_http *h = cls;
	uint64_t suppressed;
	char line[512];

	if (!pw_ratelimit_allow(&h->mhd_log_limit, pw_mono_ns(), &suppressed))
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	pw_log(LOG_NOTICE, "http: %s (%llu similar messages suppressed)", line,
	       (unsigned long long)suppressed);
}

static void http_free(struct pw_http *h)
{
	pw_guard_free(h->guard);
	pw_http_history_free(h->history);
	pw_auth_free(h->auth);
	pw_auth_free(h->auth_pending);
	pthread_mutex_destroy(&h->auth_lock);
	pw_tls_material_done(&h->tls);
	pw_outbuf_done(&h->body);
	pw_outbuf_done(&h->gz);
	free(h->sample);
	free(h->point);
	free(h);
}

/* Say so when the open-file limit cannot hold the connection limit. Not raised here: the shipped
 * unit's system call filter (~@resources) kills a process that calls setrlimit. */
static void check_fd_limit(unsigned connections)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)connections + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want)
		pw_log(LOG_WARNING,
		       "http: open file limit %llu is below http-max-connections + 64 = %llu "
		       "(raise LimitNOFILE= or ulimit -n)",
		       (unsigned long long)rl.rlim_cur, (unsigned long long)want);
}

static bool loopback(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr) >> 24) == 127;
	return a->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr);
}

/* TLS material into MHD options, the auth checker and the slowloris guard. */
static int secure(struct pw_http *h, const struct pw_options *opts, struct MHD_OptionItem *tls,
                  unsigned *flags, char *err, size_t n)
{
	if (opts->tls_cert[0]) {
		if (pw_tls_load(opts->tls_cert, opts->tls_key, opts->tls_priorities, &h->tls, err, n) < 0)
			return -1;
		*flags |= MHD_USE_TLS;
		tls[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, h->tls.cert};
		tls[1] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, h->tls.key};
		tls[2] =
		        (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)opts->tls_priorities};
		tls[3] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
	}
	h->auth = pw_auth_new(&opts->auth);
	if (!h->auth && pw_auth_protected(&opts->auth))
		return snprintf(err, n, "out of memory"), -1;
	if (h->auth && !opts->tls_cert[0] && !loopback(&opts->listen_addr))
		pw_log(LOG_WARNING, "http: basic auth on %s without TLS sends passwords in clear text",
		       opts->listen);
	if (!(h->guard = pw_guard_new(opts->http_timeout_ns, opts->http_max_connections)))
		return snprintf(err, n, "cannot start the HTTP guard thread: %s", strerror(errno)), -1;
	check_fd_limit(opts->http_max_connections);
	return 0;
}

struct pw_http *pw_http_start(const struct pw_options *opts, const struct pw_sampler *sampler,
                              const struct pw_detector_thread *detector_thread, struct pw_notifier *notifier,
                              char *err, size_t err_size)
{
	struct pw_http *h = calloc(1, sizeof(*h));
	/* Suspend and resume: /history is answered on the history thread (http_history.c). */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
	                 MHD_ALLOW_SUSPEND_RESUME;

	if (!h)
		return snprintf(err, err_size, "out of memory"), NULL;
	if (pw_http_hosts_parse(opts->http_allowed_hosts, &h->hosts, err, err_size) < 0) {
		free(h); /* checked with the options already */
		return NULL;
	}
	pthread_mutex_init(&h->auth_lock, NULL);
	h->opts = opts;
	h->sampler = sampler;
	h->detector_thread = detector_thread;
	h->notifier = notifier;
	h->mhd_log_limit.period_ns = 60 * INT64_C(1000000000);
	h->auth_log_limit.period_ns = 60 * INT64_C(1000000000);
	h->host_log_limit.period_ns = 60 * INT64_C(1000000000);
	pw_outbuf_init(&h->body);
	pw_outbuf_init(&h->gz);
	h->sample = malloc(pw_ring_payload_size(pw_sampler_latest(sampler)));
	h->point = malloc(pw_ring_payload_size(pw_sampler_history(sampler)));
	h->history = pw_http_history_new(sampler, detector_thread, opts->interval_ns, opts->history_ns);
	if (h->history && detector_thread)
		pw_http_history_set_transitions(h->history, pw_detector_thread_transitions(detector_thread));
	if (h->history && opts->state_dir[0]) {
		char dir[sizeof(opts->state_dir) + 16];
		pw_history_store_dir(opts->state_dir, dir, sizeof(dir));
		if (pw_http_history_set_store(h->history, dir) < 0) {
			pw_http_history_free(h->history);
			h->history = NULL;
		}
	}
	if (!h->sample || !h->point || !h->history) {
		http_free(h);
		return snprintf(err, err_size, "out of memory"), NULL;
	}
	/* A socket systemd passed (socket activation): MHD serves on it and binds nothing. */
	struct MHD_OptionItem passed_socket[] = {{MHD_OPTION_END, 0, NULL}, {MHD_OPTION_END, 0, NULL}};
	if (opts->listen_fd >= 0)
		passed_socket[0] = (struct MHD_OptionItem){MHD_OPTION_LISTEN_SOCKET, opts->listen_fd, NULL};
	if (opts->listen_addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	struct MHD_OptionItem tls[4] = {{MHD_OPTION_END, 0, NULL}};
	if (secure(h, opts, tls, &flags, err, err_size) < 0) {
		http_free(h);
		return NULL;
	}
	/* The logger goes first so MHD routes even option errors through it. The memory limit bounds
	 * a request's headers: an oversized header block gets 431, not memory. MHD's own idle timeout
	 * is a second longer than the guard's deadline: the guard, which counts its cuts, closes a
	 * stalled request or TLS handshake first (at equal times they raced, and a cut of MHD's went
	 * uncounted: seen once under load); MHD's alone closes a client that stops reading. */
	h->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, h,
	                          MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&opts->listen_addr,
	                          MHD_OPTION_CONNECTION_LIMIT, (unsigned)opts->http_max_connections,
	                          MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	                          (unsigned)opts->http_max_connections_per_ip, MHD_OPTION_CONNECTION_TIMEOUT,
	                          (unsigned)((opts->http_timeout_ns + 999999999) / 1000000000 + 1),
	                          MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)opts->http_max_header_bytes,
	                          MHD_OPTION_NOTIFY_CONNECTION, pw_guard_on_connection, h->guard,
	                          MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_ARRAY,
	                          passed_socket, MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
	if (!h->mhd) {
		snprintf(err, err_size, "cannot listen on %s (address in use or not local?)", opts->listen);
		http_free(h);
		return NULL;
	}
	return h;
}

void pw_http_stop(struct pw_http *h)
{
	if (!h)
		return;
	pw_http_history_stop(h->history); /* MHD must find no connection suspended */
	MHD_stop_daemon(h->mhd);
	http_free(h);
}
