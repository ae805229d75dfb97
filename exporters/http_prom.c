/* http_prom.c — the HTTP server's self-metrics: connections it cut, and logins it refused. Counter
 * families follow prometheus.c: "_total" samples, and in OpenMetrics a TYPE line without the
 * suffix. Every series is always there, zero included, so alerts need no absent() guard. */
#include "http_stats.h"

static void counter_banner(struct pw_outbuf *out, bool om, const char *name, const char *help)
{
	if (om)
		pw_outbuf_printf(out, "# TYPE perfwatch_%s counter\n# HELP perfwatch_%s %s\n", name, name,
		                 help);
	else
		pw_outbuf_printf(out, "# HELP perfwatch_%s_total %s\n# TYPE perfwatch_%s_total counter\n",
		                 name, help, name);
}

static void counter_series(struct pw_outbuf *out, const char *name, const char *reason, uint64_t value)
{
	pw_outbuf_printf(out, "perfwatch_%s_total{reason=\"%s\"} ", name, reason);
	pw_outbuf_u64(out, value);
	pw_outbuf_putc(out, '\n');
}

void pw_http_prom_render(struct pw_outbuf *out, bool om, const struct pw_http_stats *stats)
{
	if (!stats)
		return;
	counter_banner(out, om, "http_connections_cut",
	               "Connections closed by the server: no whole request before the deadline, or "
	               "kept-alive and shed near the connection limit (perfwatch).");
	counter_series(out, "http_connections_cut", "deadline", stats->cut_deadline);
	counter_series(out, "http_connections_cut", "shed", stats->cut_shed);
	counter_banner(out, om, "http_auth_failures",
	               "Requests to protected endpoints refused: 401 for missing or wrong credentials, "
	               "429 while logins are throttled (perfwatch).");
	counter_series(out, "http_auth_failures", "bad_credentials", stats->auth_bad_credentials);
	counter_series(out, "http_auth_failures", "throttled", stats->auth_throttled);
}
