/* prom_family.h — a /metrics family's sample name and its HELP/TYPE banners in both exposition
 * formats, assembled at compile time, and the one writer of a banner. Every renderer of /metrics
 * (prometheus.c, http_prom.c, notify_prom.c) declares its families with these macros.
 *
 * The formats differ only in the banners: text 0.0.4 names a counter family by its samples
 * ("_total") and puts HELP first; OpenMetrics names it without "_total" (an info family without
 * "_info"), puts TYPE first and adds "# UNIT" when the name ends in one. */
#ifndef PW_PROM_FAMILY_H
#define PW_PROM_FAMILY_H

#include "outbuf.h"

struct pw_prom_family {
	const char *sample; /* name of its samples: the family name plus _total (counter), _info (info) */
	size_t sample_len;
	const char *text_banner; /* # HELP and # TYPE, text format 0.0.4 */
	size_t text_len;
	const char *om_banner; /* # TYPE, # UNIT and # HELP, OpenMetrics */
	size_t om_len;
};

#define PW_PROM_STR_LEN(str) str, sizeof(str) - 1

/* name: without the perfwatch_ prefix and the sample suffix; help: plain ASCII without backslash
 * or newline, so it never needs escaping; unit_line: OpenMetrics # UNIT, when the name ends in one. */
#define PW_PROM_FAMILY(name, suffix, text_type, om_type, unit_line, help)                                    \
	{                                                                                                    \
		PW_PROM_STR_LEN("perfwatch_" name suffix),                                                   \
		        PW_PROM_STR_LEN("# HELP perfwatch_" name suffix " " help                             \
		                        "\n# TYPE perfwatch_" name suffix " " text_type "\n"),               \
		        PW_PROM_STR_LEN("# TYPE perfwatch_" name " " om_type "\n" unit_line                  \
		                        "# HELP perfwatch_" name " " help "\n"),                             \
	}
#define PW_PROM_UNIT_LINE(name, unit) "# UNIT perfwatch_" name " " unit "\n"
#define PW_PROM_COUNTER(name, help) PW_PROM_FAMILY(name, "_total", "counter", "counter", "", help)
#define PW_PROM_COUNTER_UNIT(name, unit, help)                                                               \
	PW_PROM_FAMILY(name, "_total", "counter", "counter", PW_PROM_UNIT_LINE(name, unit), help)
#define PW_PROM_GAUGE(name, help) PW_PROM_FAMILY(name, "", "gauge", "gauge", "", help)
#define PW_PROM_GAUGE_UNIT(name, unit, help)                                                                 \
	PW_PROM_FAMILY(name, "", "gauge", "gauge", PW_PROM_UNIT_LINE(name, unit), help)
#define PW_PROM_INFO(name, help) PW_PROM_FAMILY(name, "_info", "gauge", "info", "", help)
#define PW_PROM_HISTOGRAM(name, help) PW_PROM_FAMILY(name, "", "histogram", "histogram", "", help)

/* Append family's banner: OpenMetrics when om, else the text format. */
static inline void pw_prom_banner(struct pw_outbuf *out, bool om, const struct pw_prom_family *family)
{
	if (om)
		pw_outbuf_append(out, family->om_banner, family->om_len);
	else
		pw_outbuf_append(out, family->text_banner, family->text_len);
}

/* Append family's sample name. */
static inline void pw_prom_sample_name(struct pw_outbuf *out, const struct pw_prom_family *family)
{
	pw_outbuf_append(out, family->sample, family->sample_len);
}

#endif
