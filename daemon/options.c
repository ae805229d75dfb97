/* options.c — defaults < config file (libinih) < command line, all through one option table. */
#define _GNU_SOURCE
#include "options.h"

#include "duration.h"
#include "http_host.h"
#include "http_tls.h"
#include "state_file.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)
#define MIN_INTERVAL_NS (10 * NS_PER_MS)
#define MAX_INTERVAL_NS (3600 * NS_PER_S)
#define MAX_HISTORY_SAMPLES 10000000

enum opt_kind {
	OPT_LISTEN,
	OPT_DURATION,
	OPT_PATH,
	OPT_BOOL,
	OPT_LOG_LEVEL,
	OPT_RECEIVER, /* repeatable: each --webhook / --alertmanager adds a receiver */
	OPT_NAME,     /* a short non-empty text without blanks */
	OPT_UINT,
	OPT_BYTES, /* a size: 1GiB, 500MiB, 64KiB, or bytes */
	OPT_TEXT,
	OPT_HOSTS, /* names and addresses, blank or comma separated (http_host.h) */
	OPT_CLI_ONLY
};

struct opt_def {
	const char *name;
	enum opt_kind kind;
	size_t offset;
	const char *arg;
	const char *help;
};

#define FIELD(f) offsetof(struct pw_options, f)

static const struct opt_def opt_table[] = {
        {"listen", OPT_LISTEN, FIELD(listen), "ADDR:PORT",
         "address to serve HTTP on (default 127.0.0.1:10071)"},
        {"interval", OPT_DURATION, FIELD(interval_ns), "DUR",
         "sampling interval: 100ms, 1s, 1m (default 1s)"},
        {"history", OPT_DURATION, FIELD(history_ns), "DUR",
         "how much history to keep in memory (default 1h)"},
        {"procfs", OPT_PATH, FIELD(procfs), "DIR", "procfs root to read (default /proc)"},
        {"sysfs", OPT_PATH, FIELD(sysfs), "DIR", "sysfs root to read (default /sys)"},
        {"interrupts-per-cpu", OPT_BOOL, FIELD(interrupts_per_cpu), NULL,
         "also export interrupt and softirq counts per CPU (many series on big hosts)"},
        {"log-level", OPT_LOG_LEVEL, FIELD(log_level), "LEVEL",
         "error, warning, notice, info or debug (default info)"},
        {"alert-for", OPT_DURATION, FIELD(alert_for_ns), "DUR",
         "how long a rule's condition must hold before its alert fires (default 30s)"},
        {"baseline-warmup", OPT_DURATION, FIELD(detector.warmup_ns), "DUR",
         "learning time before rules that compare with baselines may fire (default 10m)"},
        {"state-dir", OPT_PATH, FIELD(state_dir), "DIR",
         "keep learned baselines in DIR/baselines across restarts (default: not kept)"},
        {"state-interval", OPT_DURATION, FIELD(state_interval_ns), "DUR",
         "how often baselines are saved to the state dir, and at shutdown (default 60s)"},
        {"retention-time", OPT_DURATION, FIELD(retention_ns), "DUR",
         "keep history on disk in STATE_DIR/history this long (default 7d)"},
        {"retention-size", OPT_BYTES, FIELD(retention_size), "SIZE",
         "and at most this much of it: oldest files go first (default 1GiB)"},
        /* flight recorder: --replay and --json are a mode of their own, command line only */
        {"record", OPT_PATH, FIELD(record), "FILE",
         "append every sample to FILE, compact, for --replay (default: not recorded)"},
        {"replay", OPT_CLI_ONLY, FIELD(replay), "FILE|DIR",
         "run the detector over a recording, or the history on disk of a state dir, print each alert "
         "transition, exit"},
        {"since", OPT_CLI_ONLY, FIELD(replay_since), "TIME",
         "with --replay DIR: from this time (-2h, RFC 3339, Unix seconds; default: the oldest kept)"},
        {"until", OPT_CLI_ONLY, FIELD(replay_until), "TIME",
         "with --replay DIR: up to this time (default now)"},
        {"to-store", OPT_CLI_ONLY, FIELD(replay_to_store), "DIR",
         "with --replay FILE: also keep the recording as history in state dir DIR, as the daemon would"},
        {"to-recording", OPT_CLI_ONLY, FIELD(replay_to_recording), "FILE",
         "with --replay FILE: also write the recording to the new FILE in this build's format (version 3)"},
        {"json", OPT_CLI_ONLY, FIELD(replay_json), NULL, "with --replay: one JSON object per line"},
        /* alert delivery: daemon/notifier.c, docs/alerting.md */
        {"webhook", OPT_RECEIVER, 0, "URL",
         "POST alerts to URL in Alertmanager's webhook format (repeatable)"},
        {"alertmanager", OPT_RECEIVER, 0, "URL",
         "push alerts to the Alertmanager at base URL, API v2 (repeatable)"},
        {"instance", OPT_NAME, FIELD(instance), "NAME", "instance label of alerts (default: the host name)"},
        {"webhook-repeat-interval", OPT_DURATION, FIELD(webhook_repeat_ns), "DUR",
         "send still-firing alerts to webhooks again this often (default 4h)"},
        {"alertmanager-resend", OPT_DURATION, FIELD(am_resend_ns), "DUR",
         "push firing alerts to Alertmanager again this often (default 1m)"},
        {"notify-queue", OPT_UINT, FIELD(notify_queue), "N",
         "notifications kept for delivery; when full the oldest is dropped (default 1024)"},
        /* HTTP security and limits */
        {"tls-cert", OPT_PATH, FIELD(tls_cert), "FILE",
         "serve HTTPS with this PEM certificate (chain); needs --tls-key"},
        {"tls-key", OPT_PATH, FIELD(tls_key), "FILE", "the PEM private key of --tls-cert"},
        {"tls-priorities", OPT_TEXT, FIELD(tls_priorities), "STR",
         "GnuTLS priority string (default " PW_TLS_DEFAULT_PRIORITIES ")"},
        {"http-max-connections", OPT_UINT, FIELD(http_max_connections), "N",
         "open HTTP connections at most (default 512)"},
        {"http-max-connections-per-ip", OPT_UINT, FIELD(http_max_connections_per_ip), "N",
         "open HTTP connections per client address at most (default 32)"},
        {"http-timeout", OPT_DURATION, FIELD(http_timeout_ns), "DUR",
         "time a client has to send a whole request, and idle limit (default 10s)"},
        {"http-max-header-bytes", OPT_UINT, FIELD(http_max_header_bytes), "N",
         "memory per connection, which bounds a request's headers (default 32768)"},
        {"http-allowed-hosts", OPT_HOSTS, FIELD(http_allowed_hosts), "NAMES",
         "Host header names answered besides the listen address ('*': any; default: none)"},
        {"config", OPT_CLI_ONLY, 0, "FILE", "config file (default " PW_DEFAULT_CONFIG " if it exists)"},
        {"check-config", OPT_CLI_ONLY, 0, NULL, "validate flags and config file, then exit"},
        {"help", OPT_CLI_ONLY, 0, NULL, "show this help and exit"},
        {"version", OPT_CLI_ONLY, 0, NULL, "show the version and exit"},
};

#define OPT_COUNT (sizeof(opt_table) / sizeof(opt_table[0]))

static void defaults(struct pw_options *o)
{
	/* All but the receivers' slots: they are 250 KiB, zeroed one at a time as receivers are added
	 * (receiver.c), so the pages of slots never used are never touched and stay out of RSS. */
	size_t list = offsetof(struct pw_options, receivers.list), after = list + sizeof(o->receivers.list);
	memset(o, 0, list);
	memset((char *)o + after, 0, sizeof(*o) - after);
	snprintf(o->listen, sizeof(o->listen), "127.0.0.1:%d", PW_DEFAULT_PORT);
	pw_parse_listen(o->listen, &o->listen_addr, &o->listen_addr_len);
	o->listen_fd = -1;
	o->interval_ns = NS_PER_S;
	o->history_ns = 3600 * NS_PER_S;
	snprintf(o->procfs, sizeof(o->procfs), "/proc");
	snprintf(o->sysfs, sizeof(o->sysfs), "/sys");
	o->log_level = LOG_INFO;
	o->alert_for_ns = 30 * NS_PER_S;
	o->state_interval_ns = 60 * NS_PER_S;
	o->retention_ns = 7 * 86400 * NS_PER_S;
	o->retention_size = UINT64_C(1) << 30;
	if (gethostname(o->instance, sizeof(o->instance)) < 0 || !o->instance[0])
		snprintf(o->instance, sizeof(o->instance), "localhost");
	o->instance[sizeof(o->instance) - 1] = '\0';
	o->webhook_repeat_ns = 4 * 3600 * NS_PER_S;
	o->am_resend_ns = 60 * NS_PER_S;
	o->notify_queue = 1024;
	snprintf(o->tls_priorities, sizeof(o->tls_priorities), "%s", PW_TLS_DEFAULT_PRIORITIES);
	o->http_max_connections = 512;
	o->http_max_connections_per_ip = 32;
	o->http_timeout_ns = 10 * NS_PER_S;
	o->http_max_header_bytes = 32 * 1024;
	pw_detector_config_defaults(&o->detector, o->alert_for_ns, o->interval_ns);
}

int pw_parse_listen(const char *text, struct sockaddr_storage *ret, socklen_t *ret_len)
{
	char host[64];
	const char *colon = strrchr(text, ':');
	struct sockaddr_storage addr;
	memset(&addr, 0, sizeof(addr));

	if (!colon || (size_t)(colon - text) >= sizeof(host))
		return -EINVAL;
	char *end;
	errno = 0;
	long port = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end || errno || port < 0 || port > 65535)
		return -EINVAL;
	memcpy(host, text, (size_t)(colon - text));
	host[colon - text] = '\0';
	if (host[0] == '\0')
		snprintf(host, sizeof(host), "127.0.0.1");
	size_t hl = strlen(host);
	struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
	if (host[0] == '[' && host[hl - 1] == ']') {
		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &v6->sin6_addr) != 1)
			return -EINVAL;
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		*ret_len = sizeof(*v6);
	} else {
		if (inet_pton(AF_INET, host, &v4->sin_addr) != 1)
			return -EINVAL;
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		*ret_len = sizeof(*v4);
	}
	*ret = addr;
	return 0;
}

static int parse_bool(const char *value, bool *ret)
{
	static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no",
	                                                                            "off"};

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(value, yes[i]) == 0)
			return *ret = true, 0;
		if (strcasecmp(value, no[i]) == 0)
			return *ret = false, 0;
	}
	return -EINVAL;
}

static int parse_log_level(const char *value, int *ret)
{
	static const struct {
		const char *name;
		int level;
	} levels[] = {{"error", LOG_ERR},
	              {"warning", LOG_WARNING},
	              {"notice", LOG_NOTICE},
	              {"info", LOG_INFO},
	              {"debug", LOG_DEBUG}};

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (strcmp(value, levels[i].name) == 0)
			return *ret = levels[i].level, 0;
	return -EINVAL;
}

static int parse_uint(const char *value, uint32_t *ret)
{
	char *end;

	errno = 0;
	unsigned long long v = strtoull(value, &end, 10);
	if (!isdigit((unsigned char)value[0]) || *end || errno || v > UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

/* "1GiB", "500MiB", "64KiB", "4096B" or "4096": binary units, as du and systemd read them. */
static int parse_bytes(const char *text, uint64_t *ret)
{
	static const struct {
		const char *suffix;
		unsigned shift;
	} units[] = {{"", 0},     {"B", 0},  {"K", 10},   {"KiB", 10}, {"M", 20},
	             {"MiB", 20}, {"G", 30}, {"GiB", 30}, {"T", 40},   {"TiB", 40}};
	char *end;

	if (!(*text >= '0' && *text <= '9'))
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].suffix) == 0) {
			if (v > (UINT64_MAX >> units[i].shift))
				return -EINVAL;
			*ret = (uint64_t)v << units[i].shift;
			return 0;
		}
	return -EINVAL;
}

/* Set one option from its text form; on error writes the reason into why. */
static int apply(struct pw_options *o, const struct opt_def *def, const char *value, char *why, size_t n)
{
	char *field = (char *)o + def->offset;

	switch (def->kind) {
	case OPT_LISTEN:
		if (strlen(value) >= sizeof(o->listen) ||
		    pw_parse_listen(value, &o->listen_addr, &o->listen_addr_len) < 0)
			return snprintf(why, n, "invalid address '%s' (want IP:PORT or [IPv6]:PORT)", value),
			       -EINVAL;
		snprintf(o->listen, sizeof(o->listen), "%s", value);
		return 0;
	case OPT_DURATION:
		if (pw_parse_duration(value, (int64_t *)(void *)field) < 0)
			return snprintf(why, n, "invalid duration '%s' (want e.g. 100ms, 1s, 1m, 1h)", value),
			       -EINVAL;
		return 0;
	case OPT_PATH:
		if (!*value || strlen(value) >= sizeof(o->procfs))
			return snprintf(why, n, "invalid path '%s'", value), -EINVAL;
		snprintf(field, sizeof(o->procfs), "%s", value);
		return 0;
	case OPT_BOOL:
		if (parse_bool(value, (bool *)(void *)field) < 0)
			return snprintf(why, n, "invalid boolean '%s' (want true or false)", value), -EINVAL;
		return 0;
	case OPT_LOG_LEVEL:
		if (parse_log_level(value, (int *)(void *)field) < 0)
			return snprintf(why, n,
			                "invalid log level '%s' (want error, warning, notice, info, debug)",
			                value),
			       -EINVAL;
		return 0;
	case OPT_RECEIVER:
		return pw_receivers_add_url(
		        &o->receivers, def->name[0] == 'w' ? PW_RECEIVER_WEBHOOK : PW_RECEIVER_ALERTMANAGER,
		        value, why, n);
	case OPT_NAME:
		if (!*value || strlen(value) >= sizeof(o->instance) || strpbrk(value, " \t\r\n"))
			return snprintf(why, n, "invalid name '%s' (want 1-255 characters, no blanks)",
			                value),
			       -EINVAL;
		snprintf(field, sizeof(o->instance), "%s", value);
		return 0;
	case OPT_UINT:
		if (parse_uint(value, (uint32_t *)(void *)field) < 0)
			return snprintf(why, n, "invalid number '%s' (want a whole number)", value), -EINVAL;
		return 0;
	case OPT_BYTES:
		if (parse_bytes(value, (uint64_t *)(void *)field) < 0)
			return snprintf(why, n, "invalid size '%s' (want e.g. 1GiB, 500MiB, 64KiB)", value),
			       -EINVAL;
		return 0;
	case OPT_TEXT:
		if (!*value || strlen(value) >= sizeof(o->tls_priorities))
			return snprintf(why, n, "invalid value '%s' (empty or too long)", value), -EINVAL;
		snprintf(field, sizeof(o->tls_priorities), "%s", value);
		return 0;
	case OPT_HOSTS: {
		struct pw_http_hosts hosts; /* checked here, so --check-config and a reload say so */
		if (strlen(value) >= sizeof(o->http_allowed_hosts))
			return snprintf(why, n, "list too long (at most %zu bytes)",
			                sizeof(o->http_allowed_hosts) - 1),
			       -EINVAL;
		if (pw_http_hosts_parse(value, &hosts, why, n) < 0)
			return -EINVAL;
		snprintf(field, sizeof(o->http_allowed_hosts), "%s", value);
		return 0;
	}
	case OPT_CLI_ONLY:
		break;
	}
	return snprintf(why, n, "'%s' can only be given on the command line", def->name), -EINVAL;
}

static const struct opt_def *find_opt(const char *name)
{
	for (size_t i = 0; i < OPT_COUNT; i++)
		if (strcmp(opt_table[i].name, name) == 0)
			return &opt_table[i];
	return NULL;
}

/* One key of a [rule.NAME] section: enabled, for, resolve, adopt, threshold, critical, sigmas. */
static int apply_rule(struct pw_options *o, const char *rule, const char *key, const char *value, char *why,
                      size_t n)
{
	int name = pw_alert_name_parse(rule);
	char *end;

	if (name < 0)
		return snprintf(why, n, "unknown rule [rule.%s]", rule), -EINVAL;
	struct pw_rule_config *rc = &o->detector.rules[name];
	if (strcmp(key, "enabled") == 0) {
		if (parse_bool(value, &rc->enabled) < 0)
			return snprintf(why, n, "invalid boolean '%s' (want true or false)", value), -EINVAL;
		return 0;
	}
	if (strcmp(key, "for") == 0 || strcmp(key, "resolve") == 0) {
		bool is_for = key[0] == 'f';
		if (pw_parse_duration(value, is_for ? &rc->for_ns : &rc->resolve_ns) < 0)
			return snprintf(why, n, "invalid duration '%s' (want e.g. 5s, 30s, 2m)", value),
			       -EINVAL;
		*(is_for ? &o->rule_for_set : &o->rule_resolve_set) |= 1u << name;
		return 0;
	}
	if (strcmp(key, "adopt") == 0) {
		if (pw_parse_duration(value, &rc->adopt_ns) < 0)
			return snprintf(why, n, "invalid duration '%s' (want e.g. 2m, 5m)", value), -EINVAL;
		return 0;
	}
	double *field = strcmp(key, "threshold") == 0  ? &rc->threshold
	                : strcmp(key, "critical") == 0 ? &rc->critical
	                : strcmp(key, "sigmas") == 0   ? &rc->sigmas
	                                               : NULL;
	if (!field)
		return snprintf(why, n,
		                "unknown key '%s' (want enabled, for, resolve, adopt, threshold, critical, "
		                "sigmas)",
		                key),
		       -EINVAL;
	errno = 0;
	double v = strtod(value, &end);
	if (end == value || *end || errno || !isfinite(v) || v < 0)
		return snprintf(why, n, "invalid number '%s' (want a finite number >= 0)", value), -EINVAL;
	*field = v;
	return 0;
}

/* A key given twice in one section (or in [perfwatchd] and before any section) where only one value
 * can hold; its first line, for the error. */
struct seen_key {
	char *name; /* "section\nkey" */
	int line;
};

struct ini_state {
	struct pw_options *opts;
	char why[256]; /* reason for the first bad line ... */
	int why_line;  /* ... and that line, so a reason never names the wrong line */
	FILE *file;
	int line, section_line; /* counted by read_line: receivers' errors name their section */
	bool key_in_section;    /* a key line came since the last section header */
	bool stop;              /* a line was refused in read_line: read no further */
	const char *long_value; /* the value of this line, too long for libinih's buffer; else NULL */
	struct seen_key *seen;
	size_t nseen;
	char buf[PW_CONFIG_LINE_MAX + 2]; /* the whole physical line */
};

static void refuse_line(struct ini_state *st, const char *why)
{
	if (!st->why[0]) {
		snprintf(st->why, sizeof(st->why), "%s", why);
		st->why_line = st->line;
	}
	st->stop = true;
}

/* One physical line into st->buf, without its newline; NUL bytes and lines over
 * PW_CONFIG_LINE_MAX are refused. Returns its length, or -1 at the end of the file. */
static ssize_t read_physical(struct ini_state *st)
{
	size_t len = 0;
	int c;

	while ((c = getc_unlocked(st->file)) != EOF && c != '\n') {
		if (c == '\0') {
			refuse_line(st, "NUL byte in line");
			return (ssize_t)len;
		}
		if (len == PW_CONFIG_LINE_MAX) {
			char why[64];
			snprintf(why, sizeof(why), "line longer than %d bytes", PW_CONFIG_LINE_MAX);
			refuse_line(st, why);
			return (ssize_t)len;
		}
		st->buf[len++] = (char)c;
	}
	if (c == EOF && len == 0)
		return -1;
	st->buf[len] = '\0';
	return (ssize_t)len;
}

/* The value libinih would make of the text after '=' or ':': blanks around it and an inline
 * comment (';' after a blank) removed. */
static const char *ini_value(char *v)
{
	while (isspace((unsigned char)*v))
		v++;
	for (char *p = v; *p; p++)
		if (*p == ';' && p > v && isspace((unsigned char)p[-1])) {
			*p = '\0';
			break;
		}
	for (size_t n = strlen(v); n && isspace((unsigned char)v[n - 1]); n--)
		v[n - 1] = '\0';
	return v;
}

/* The reader libinih calls for each line. It reads whole physical lines itself, so that libinih,
 * whose buffer holds INI_MAX_LINE (200) bytes, never sees part of one: a long comment is a comment
 * whatever it says, a long "key = value" line reaches the handler whole (st->long_value), and every
 * call is one line of the file, so libinih's line numbers are the file's. Lines lose their
 * indentation: libinih would read an indented line after a key as the continuation of that key's
 * value and call the handler again, replacing the value; such a line without '=' is refused. */
static char *read_line(char *str, int num, void *stream)
{
	struct ini_state *st = stream;
	ssize_t len;

	st->long_value = NULL;
	if (st->stop)
		return NULL;
	st->line++; /* before the read, which may refuse this line */
	if ((len = read_physical(st)) < 0)
		return NULL;
	if (st->stop)
		return snprintf(str, (size_t)num, "\x01\n"), str; /* a syntax error at this line */
	char *p = st->buf;
	if (st->line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3; /* a UTF-8 byte order mark */
	bool indented = isspace((unsigned char)*p);
	while (isspace((unsigned char)*p))
		p++;
	len = (ssize_t)strlen(p);
	if (*p == '\0' || *p == ';' || *p == '#')
		return snprintf(str, (size_t)num, "\n"), str; /* blank or comment, however long */
	if (*p == '[') {
		st->section_line = st->line;
		st->key_in_section = false;
	} else {
		if (indented && st->key_in_section && !strpbrk(p, "=:")) {
			refuse_line(st, "indented line without '=': continuation lines are not supported "
			                "(write the value on one line)");
			return snprintf(str, (size_t)num, "\x01\n"), str;
		}
		st->key_in_section = true;
	}
	if (len + 2 <= num) /* the line, '\n' and NUL fit libinih's buffer */
		return snprintf(str, (size_t)num, "%s\n", p), str;
	/* Too long for libinih: hand it "key =" and keep the value for the handler. */
	size_t key_len = strcspn(p, "=:");
	if (*p == '[' || (p[key_len] && (ssize_t)key_len + 4 > num)) {
		char why[64];
		snprintf(why, sizeof(why), "%s longer than %d bytes", *p == '[' ? "section header" : "key",
		         num - 4);
		refuse_line(st, why);
	}
	if (*p == '[' || !p[key_len] || (ssize_t)key_len + 4 > num)
		return snprintf(str, (size_t)num, "\x01\n"), str; /* a syntax error at this line */
	st->long_value = ini_value(p + key_len + 1);
	snprintf(str, (size_t)num, "%.*s=\n", (int)key_len, p);
	return str;
}

/* Keys that may be given more than once: each adds something. */
static bool repeatable(const char *section, const char *name)
{
	if (strncmp(section, "receiver.", 9) == 0)
		return strcmp(name, "header") == 0;
	if (!*section || strcmp(section, "perfwatchd") == 0)
		return strcmp(name, "webhook") == 0 || strcmp(name, "alertmanager") == 0;
	return false;
}

/* A single-valued key given again: the second would silently replace the first. Returns 0, or -1
 * with the reason in why (also when out of memory). */
static int check_repeat(struct ini_state *st, const char *section, const char *name, char *why, size_t n)
{
	char *key;

	if (repeatable(section, name))
		return 0;
	if (asprintf(&key, "%s\n%s", *section ? section : "perfwatchd", name) < 0)
		return snprintf(why, n, "out of memory"), -1;
	for (size_t i = 0; i < st->nseen; i++)
		if (strcmp(st->seen[i].name, key) == 0) {
			free(key);
			return snprintf(why, n, "'%s' given twice in [%s] (first on line %d)", name,
			                *section ? section : "perfwatchd", st->seen[i].line),
			       -1;
		}
	struct seen_key *grown = realloc(st->seen, (st->nseen + 1) * sizeof(*grown));
	if (!grown) {
		free(key);
		return snprintf(why, n, "out of memory"), -1;
	}
	st->seen = grown;
	st->seen[st->nseen++] = (struct seen_key){key, st->line};
	return 0;
}

static int on_ini_entry(void *user, const char *section, const char *name, const char *value)
{
	struct ini_state *st = user;
	const struct opt_def *def = find_opt(name);
	char why[256];

	if (st->long_value)
		value = st->long_value;
	if (check_repeat(st, section, name, why, sizeof(why)) < 0) {
		/* why says which key, and where it was first */
	} else if (strncmp(section, "rule.", 5) == 0) {
		if (apply_rule(st->opts, section + 5, name, value, why, sizeof(why)) == 0)
			return 1;
	} else if (strncmp(section, "receiver.", 9) == 0) {
		if (pw_receivers_apply_key(&st->opts->receivers, section + 9, st->section_line, name, value,
		                           why, sizeof(why)) == 0)
			return 1;
	} else if (strcmp(section, "auth") == 0) {
		if (pw_auth_config_set(&st->opts->auth, name, value, why, sizeof(why)) == 0)
			return 1;
	} else if (*section && strcmp(section, "perfwatchd") != 0)
		snprintf(why, sizeof(why),
		         "unknown section [%s] (want [perfwatchd], [rule.NAME], [receiver.NAME] or [auth])",
		         section);
	else if (!def || def->kind == OPT_CLI_ONLY)
		snprintf(why, sizeof(why), "unknown key '%s'", name);
	else if (apply(st->opts, def, value, why, sizeof(why)) == 0)
		return 1;
	if (!st->why[0]) {
		snprintf(st->why, sizeof(st->why), "%s", why);
		st->why_line = st->line;
	}
	return 0;
}

static int load_file(struct pw_options *o, char *err, size_t n)
{
	struct ini_state st = {.opts = o};
	char why[256];
	int bad_line;

	if (!o->config_given && access(o->config, F_OK) != 0)
		return 0; /* the default file is optional */
	if (!(st.file = fopen(o->config, "re")))
		return snprintf(err, n, "%s: cannot open: %s", o->config, strerror(errno)), -EINVAL;
	int line = ini_parse_stream(read_line, &st, on_ini_entry, &st);
	fclose(st.file);
	for (size_t i = 0; i < st.nseen; i++)
		free(st.seen[i].name);
	free(st.seen);
	if (line == 0 && pw_receivers_validate(&o->receivers, why, sizeof(why), &bad_line) < 0)
		return snprintf(err, n, "%s:%d: %s", o->config, bad_line, why), -EINVAL;
	if (line == -2)
		return snprintf(err, n, "%s: out of memory", o->config), -ENOMEM;
	if (line > 0)
		return snprintf(err, n, "%s:%d: %s", o->config, line,
		                st.why_line == line ? st.why
		                                    : "syntax error (want 'key = value' or '[perfwatchd]')"),
		       -EINVAL;
	return 0;
}

static void print_help(const char *prog)
{
	printf("Usage: %s [OPTION]...\n"
	       "Sample CPU, frequency, interrupt, swap and page-cache counters and serve them over HTTP\n"
	       "(/metrics for Prometheus, /status for people, /healthz).\n\n",
	       prog);
	for (size_t i = 0; i < OPT_COUNT; i++) {
		char flag[64];
		snprintf(flag, sizeof(flag), "--%s%s%s", opt_table[i].name, opt_table[i].arg ? " " : "",
		         opt_table[i].arg ? opt_table[i].arg : "");
		printf("  %-32s %s\n", flag, opt_table[i].help);
	}
	printf("\nEvery option but config, check-config, replay, since, until, to-store, to-recording, "
	       "json,\n"
	       "help and version can be set in the config file as 'name = value' (optionally under "
	       "[perfwatchd]);\n"
	       "flags override the file.\n"
	       "Each rule can be tuned in a [rule.NAME] section (NAME: InterruptTimeHigh, CpuFrequencyLow,\n"
	       "InterruptRateDrop, MemorySwapping, IoWaitHigh, SystemTimeHigh, StealHigh) with the keys\n"
	       "enabled, for, resolve, threshold, critical, sigmas and adopt (InterruptRateDrop: how long a\n"
	       "new level lasts before it becomes the baseline); see docs/detection.md.\n"
	       "Alert receivers are [receiver.NAME] sections (type = webhook or alertmanager, url, ...);\n"
	       "see docs/alerting.md.\n"
	       "Basic auth: an [auth] section with 'user.NAME = BCRYPT-HASH' lines protects every\n"
	       "endpoint but /healthz; 'protect = /metrics /status' narrows it to a list.\n");
}

static void build_longopts(struct option *longopts)
{
	for (size_t i = 0; i < OPT_COUNT; i++) {
		longopts[i].name = opt_table[i].name;
		longopts[i].has_arg = opt_table[i].arg                ? required_argument
		                      : opt_table[i].kind == OPT_BOOL ? optional_argument
		                                                      : no_argument;
		longopts[i].flag = NULL;
		longopts[i].val = 256 + (int)i;
	}
	memset(&longopts[OPT_COUNT], 0, sizeof(longopts[OPT_COUNT]));
}

/* First pass: the command-line-only options, and every flag checked for existence. */
static int scan_cli(struct pw_options *o, int argc, char **argv, const struct option *longopts, char *err,
                    size_t n)
{
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return snprintf(err, n, "%s: %s", argv[optind - 1],
			                c == '?' ? "unknown flag (see --help)" : "missing value"),
			       -EINVAL;
		const char *name = opt_table[c - 256].name;
		if (strcmp(name, "help") == 0)
			return print_help(argv[0]), 1;
		if (strcmp(name, "version") == 0)
			return printf("perfwatchd %s\n", PW_VERSION), 1;
		if (strcmp(name, "check-config") == 0)
			o->check_config = true;
		/* Command-line-only options with a field of their own: --replay FILE, --json. */
		const struct opt_def *def = &opt_table[c - 256];
		bool own_field = def->kind == OPT_CLI_ONLY && def->offset;
		if (own_field && def->arg) {
			/* Every such field is a char[PW_OPT_TEXT_MAX]. */
			if (!*optarg || strlen(optarg) >= PW_OPT_TEXT_MAX)
				return snprintf(err, n, "--%s: invalid value '%s'", name, optarg), -EINVAL;
			snprintf((char *)o + def->offset, PW_OPT_TEXT_MAX, "%s", optarg);
		} else if (own_field) {
			*(bool *)(void *)((char *)o + def->offset) = true;
		}
		if (strcmp(name, "config") == 0) {
			snprintf(o->config, sizeof(o->config), "%s", optarg);
			o->config_given = true;
		}
	}
	if (optind < argc)
		return snprintf(err, n, "%s: unexpected argument (see --help)", argv[optind]), -EINVAL;
	return 0;
}

/* Second pass: every other flag, over what the file set. */
static int apply_cli(struct pw_options *o, int argc, char **argv, const struct option *longopts, char *err,
                     size_t n)
{
	char why[256];
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		const struct opt_def *def = &opt_table[c - 256];
		if (def->kind == OPT_CLI_ONLY)
			continue;
		/* Every user can read a process's command line (/proc/PID/cmdline, ps). */
		if (def->kind == OPT_RECEIVER && pw_url_has_userinfo(optarg))
			return snprintf(
			               err, n,
			               "--%s: a URL with credentials on the command line is visible to every "
			               "user (ps, /proc/PID/cmdline); put the receiver in a [receiver.NAME] "
			               "section of %s, with basic_auth_user and basic_auth_password_file or "
			               "bearer_token_file",
			               def->name, o->config),
			       -EINVAL;
		if (apply(o, def, optarg ? optarg : "true", why, sizeof(why)) < 0)
			return snprintf(err, n, "--%s: %s", def->name, why), -EINVAL;
	}
	return 0;
}

/* The HTTP server's limits, TLS files (read and checked here, so --check-config reports them) and
 * [auth] section. */
static int validate_http(const struct pw_options *o, char *err, size_t n)
{
	struct pw_tls_material tls;

	if (o->http_max_connections < 1 || o->http_max_connections > 65536)
		return snprintf(err, n, "http-max-connections: must be between 1 and 65536"), -EINVAL;
	if (o->http_max_connections_per_ip < 1 || o->http_max_connections_per_ip > o->http_max_connections)
		return snprintf(err, n,
		                "http-max-connections-per-ip: must be between 1 and http-max-connections"),
		       -EINVAL;
	if (o->http_timeout_ns < NS_PER_S || o->http_timeout_ns > 3600 * NS_PER_S)
		return snprintf(err, n, "http-timeout: must be between 1s and 1h"), -EINVAL;
	if (o->http_max_header_bytes < 4096 || o->http_max_header_bytes > 16 * 1024 * 1024)
		return snprintf(err, n, "http-max-header-bytes: must be between 4096 and 16777216"), -EINVAL;
	if (!o->tls_cert[0] != !o->tls_key[0])
		return snprintf(err, n, "%s: TLS needs both --tls-cert and --tls-key",
		                o->tls_cert[0] ? "tls-key" : "tls-cert"),
		       -EINVAL;
	if (o->tls_cert[0]) {
		if (pw_tls_load(o->tls_cert, o->tls_key, o->tls_priorities, &tls, err, n) < 0)
			return -EINVAL;
		pw_tls_material_done(&tls);
	}
	return pw_auth_config_check(&o->auth, err, n);
}

static int validate(const struct pw_options *o, char *err, size_t n)
{
	char path[1100], why[1100];

	if (o->interval_ns < MIN_INTERVAL_NS || o->interval_ns > MAX_INTERVAL_NS)
		return snprintf(err, n, "interval: must be between 10ms and 1h"), -EINVAL;
	if (o->history_ns < o->interval_ns)
		return snprintf(err, n, "history: must be at least one interval"), -EINVAL;
	if (o->history_ns / o->interval_ns > MAX_HISTORY_SAMPLES)
		return snprintf(err, n, "history: more than %d samples; raise interval or lower history",
		                MAX_HISTORY_SAMPLES),
		       -EINVAL;
	if (o->alert_for_ns > 24 * 3600 * NS_PER_S)
		return snprintf(err, n, "alert-for: at most 24h"), -EINVAL;
	snprintf(path, sizeof(path), "%s/stat", o->procfs);
	if (access(path, R_OK) != 0)
		return snprintf(err, n, "procfs: cannot read %s: %s", path, strerror(errno)), -EINVAL;
	if (o->state_interval_ns < MIN_INTERVAL_NS)
		return snprintf(err, n, "state-interval: must be at least 10ms"), -EINVAL;
	if (o->retention_ns < o->interval_ns)
		return snprintf(err, n, "retention-time: must be at least one interval"), -EINVAL;
	if (o->retention_size < (UINT64_C(64) << 10))
		return snprintf(err, n, "retention-size: must be at least 64KiB"), -EINVAL;
	const struct {
		const char *name;
		bool given;
	} replay_only[] = {{"json", o->replay_json},
	                   {"since", o->replay_since[0]},
	                   {"until", o->replay_until[0]},
	                   {"to-store", o->replay_to_store[0]},
	                   {"to-recording", o->replay_to_recording[0]}};
	for (size_t i = 0; i < sizeof(replay_only) / sizeof(replay_only[0]) && !o->replay[0]; i++)
		if (replay_only[i].given)
			return snprintf(err, n, "%s: only with --replay", replay_only[i].name), -EINVAL;
	if (o->state_dir[0] && pw_state_check_dir(o->state_dir, why, sizeof(why)) < 0)
		return snprintf(err, n, "state-dir: %s", why), -EINVAL;
	int line;
	if (pw_receivers_validate(&o->receivers, why, sizeof(why), &line) < 0)
		return snprintf(err, n, "%s", why), -EINVAL;
	if (o->webhook_repeat_ns < NS_PER_S || o->am_resend_ns < NS_PER_S)
		return snprintf(err, n, "webhook-repeat-interval, alertmanager-resend: at least 1s"), -EINVAL;
	if (o->notify_queue < 1 || o->notify_queue > 1000000)
		return snprintf(err, n, "notify-queue: want 1 to 1000000"), -EINVAL;
	return validate_http(o, err, n);
}

int pw_options_config_exposed(const struct pw_options *o, char *msg, size_t n)
{
	struct stat st;
	const struct pw_receiver *holder = NULL;

	for (uint32_t i = 0; i < o->receivers.n && !holder; i++)
		if (o->receivers.list[i].inline_secret)
			holder = &o->receivers.list[i];
	if (!holder || stat(o->config, &st) < 0 || !(st.st_mode & S_IROTH))
		return 0;
	snprintf(msg, n,
	         "%s holds a secret ([receiver.%s]) and every user may read it (mode %04o): move the "
	         "secret to a file of its own (the *_file keys; under systemd, LoadCredential=), or "
	         "chmod o-r the file if perfwatchd's user can still read it",
	         o->config, holder->name, (unsigned)(st.st_mode & 07777));
	return 1;
}

int pw_options_load(struct pw_options *o, int argc, char **argv, char *err, size_t n)
{
	struct option longopts[OPT_COUNT + 1];
	int r;

	defaults(o);
	snprintf(o->config, sizeof(o->config), "%s", PW_DEFAULT_CONFIG);
	build_longopts(longopts);
	if ((r = scan_cli(o, argc, argv, longopts, err, n)) != 0)
		return r;
	if ((r = load_file(o, err, n)) < 0)
		return r;
	if ((r = apply_cli(o, argc, argv, longopts, err, n)) < 0)
		return r;
	/* Rules without their own pending or resolve time follow --alert-for and the interval. */
	for (int i = 0; i < PW_ALERT_COUNT; i++) {
		if (!(o->rule_for_set >> i & 1u))
			o->detector.rules[i].for_ns = o->alert_for_ns;
		if (!(o->rule_resolve_set >> i & 1u))
			o->detector.rules[i].resolve_ns = 3 * o->interval_ns;
	}
	return validate(o, err, n);
}
