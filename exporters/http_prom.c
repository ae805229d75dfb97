/* http_prom.c — the HTTP server's self-metrics: connections it cut, and logins it refused. Every
 * series is always there, zero included, so alerts need no absent() guard. */
#include "http_stats.h"

#include "prom_family.h"

static const struct pw_prom_family connections_cut = PW_PROM_COUNTER(
        "http_connections_cut", "Connections closed by the server: no whole request before the deadline, or "
                                "kept-alive and shed near the connection limit (perfwatch).");
static const struct pw_prom_family auth_failures =
        PW_PROM_COUNTER("http_auth_failures",
                        "Requests to protected endpoints refused: 401 for missing or wrong credentials, "
                        "429 while logins are throttled (perfwatch).");

static void counter_series(struct pw_outbuf *out, const struct pw_prom_family *family, const char *reason,
                           uint64_t value)
{
	pw_prom_sample_name(out, family);
	pw_outbuf_printf(out, "{reason=\"%s\"} ", reason);
	pw_outbuf_u64(out, value);
	pw_outbuf_putc(out, '\n');
}

void pw_http_prom_render(struct pw_outbuf *out, bool om, const struct pw_http_stats *stats)
{
	if (!stats)
		return;
	pw_prom_banner(out, om, &connections_cut);
	counter_series(out, &connections_cut, "deadline", stats->cut_deadline);
	counter_series(out, &connections_cut, "shed", stats->cut_shed);
	pw_prom_banner(out, om, &auth_failures);
	counter_series(out, &auth_failures, "bad_credentials", stats->auth_bad_credentials);
	counter_series(out, &auth_failures, "throttled", stats->auth_throttled);
}
