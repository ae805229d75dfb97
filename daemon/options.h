/* options.h — perfwatchd's settings: one table serves the command line, the config file and --help,
 * so a flag and its config key can never drift apart. */
#ifndef PW_OPTIONS_H
#define PW_OPTIONS_H

#include "detector.h"
#include "http_auth.h"
#include "receiver.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define PW_DEFAULT_CONFIG "/etc/perfwatch/perfwatchd.conf"
#define PW_DEFAULT_PORT 10071
#define PW_OPT_TEXT_MAX 1024 /* the command-line-only paths and times below */
/* The longest line of the config file, in bytes: room for a 4 KiB token or URL and its key. */
#define PW_CONFIG_LINE_MAX 8192

struct pw_options {
	char listen[128]; /* as given: "127.0.0.1:10071" */
	struct sockaddr_storage listen_addr;
	socklen_t listen_addr_len;
	int listen_fd; /* not an option: a listening socket systemd passed (sd_listen_fds), else -1 */
	int64_t interval_ns;
	int64_t history_ns;
	char procfs[1024];
	char sysfs[1024];
	char config[1024];
	bool config_given; /* --config named it: a missing file is then an error */
	bool check_config;
	bool interrupts_per_cpu;
	char state_dir[1024];               /* where baselines persist; empty: they do not */
	int64_t state_interval_ns;          /* how often they are saved (and at shutdown) */
	int64_t retention_ns;               /* history on disk (STATE_DIR/history): kept this long */
	uint64_t retention_size;            /* and at most this many bytes */
	int log_level;                      /* syslog priority: LOG_ERR .. LOG_DEBUG */
	int64_t alert_for_ns;               /* every rule's pending time unless its section sets one */
	struct pw_detector_config detector; /* warmup, and per-rule settings from [rule.NAME] sections */
	uint32_t rule_for_set;              /* bit per rule: its section set "for" */
	uint32_t rule_resolve_set;          /* bit per rule: its section set "resolve" */
	char record[1024];                  /* --record: append every sample here; empty: off */
	char replay[PW_OPT_TEXT_MAX];       /* --replay FILE|DIR: judge a recording or a store instead */
	char replay_since[PW_OPT_TEXT_MAX]; /* --since, --until: the store's window ("" whole) */
	char replay_until[PW_OPT_TEXT_MAX];
	char replay_to_store[PW_OPT_TEXT_MAX];     /* --to-store DIR: a recording replayed into a store */
	char replay_to_recording[PW_OPT_TEXT_MAX]; /* --to-recording FILE: written again, this build's format
	                                            */
	bool replay_json;                          /* --json: replay prints JSON lines */
	/* alert delivery (notifier.h) */
	struct pw_receivers receivers; /* --webhook, --alertmanager and [receiver.NAME] sections */
	char instance[256];            /* the "instance" label of alerts; default: the host name */
	int64_t webhook_repeat_ns;     /* still-firing alerts go to webhooks again this often */
	int64_t am_resend_ns;          /* and to Alertmanagers this often */
	uint32_t notify_queue;         /* notifications held for delivery before the oldest is dropped */
	/* HTTP security and limits */
	char tls_cert[1024];      /* PEM certificate chain; empty: plain HTTP */
	char tls_key[1024];       /* PEM private key for it */
	char tls_priorities[256]; /* GnuTLS priority string */
	uint32_t http_max_connections;
	uint32_t http_max_connections_per_ip;
	int64_t http_timeout_ns;        /* to receive a request whole, and idle time */
	uint32_t http_max_header_bytes; /* per-connection memory, bounds the request headers */
	char http_allowed_hosts[1024];  /* Host names answered besides the listen address (http_host.h) */
	struct pw_auth_config auth;     /* [auth] section */
};

/* Load defaults, then the config file, then the command line over it. On a bad flag, value or
 * config line, writes "file:line: reason" (or "--flag: reason") into err and returns -EINVAL.
 * Returns 1 when --help or --version was printed (exit 0), 0 to run. */
int pw_options_load(struct pw_options *opts, int argc, char **argv, char *err, size_t err_size);

/* Whether the config file opts came from holds a secret inline (a receiver's token, password,
 * credential header or a URL with a password) while every user may read it: then 1, with the
 * warning in msg (naming the file and the receiver, never the secret); else 0. */
int pw_options_config_exposed(const struct pw_options *opts, char *msg, size_t msg_size);

/* Parse "HOST:PORT", "[V6]:PORT" or ":PORT" (loopback) into an address. Returns 0 or -EINVAL. */
int pw_parse_listen(const char *text, struct sockaddr_storage *ret, socklen_t *ret_len);

#endif
