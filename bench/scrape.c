/* scrape.c — a tiny HTTP/1.1 client that scrapes one URL K times in a row and reports latencies.
 *
 * Two ways to connect, as Prometheus users meet them:
 *   default       a new TCP connection per scrape ("Connection: close"); a latency runs from
 *                 before connect() to the last byte of the body;
 *   --keepalive   one connection reused while the server keeps it open, as Prometheus' Go HTTP
 *                 client does; a latency runs from before send() to the last byte (plus connect()
 *                 when the server closed the previous connection).
 * --gzip sends "Accept-Encoding: gzip"; --prometheus = --keepalive --gzip and Prometheus 2.x's
 * Accept header (OpenMetrics preferred), i.e. what a real Prometheus scrape asks for.
 *
 * Bodies are framed by Content-Length, chunked transfer coding or connection close, and counted as
 * they arrive on the wire (still compressed when gzip was granted). Loopback only: the target must
 * be a numeric 127.0.0.0/8 address or [::1].
 *
 * Prints a summary and one machine-readable "RESULT key=value..." line (latencies in microseconds).
 * Exit status 1 when any scrape failed or answered other than 200. */
#define _GNU_SOURCE
#include "percentile.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROMETHEUS_ACCEPT                                                                                    \
	"application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"      \
	"text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

struct scrape_opts {
	const char *target, *path, *accept;
	long count, warmup;
	int timeout_ms;
	bool keepalive, gzip, quiet;
};

struct target {
	struct sockaddr_storage addr;
	socklen_t addr_len;
	char host[80]; /* for the Host header */
};

struct response {
	int status;
	size_t body_bytes;
	bool gzip;         /* Content-Encoding: gzip */
	bool server_close; /* the connection cannot be reused */
};

/* A growable receive buffer; [start, len) holds bytes not consumed yet. */
struct rbuf {
	char *data;
	size_t cap, len;
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int parse_target(const char *text, struct target *t)
{
	char host[64];
	const char *colon = strrchr(text, ':');

	memset(t, 0, sizeof(*t));
	if (!colon || (size_t)(colon - text) >= sizeof(host))
		return -EINVAL;
	memcpy(host, text, (size_t)(colon - text));
	host[colon - text] = '\0';
	long port = strtol(colon + 1, NULL, 10);
	if (port <= 0 || port > 65535)
		return -EINVAL;
	snprintf(t->host, sizeof(t->host), "%s", text);
	if (host[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&t->addr;
		host[strlen(host) - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1 || !IN6_IS_ADDR_LOOPBACK(&a->sin6_addr))
			return -EINVAL;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		t->addr_len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&t->addr;
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1 || (ntohl(a->sin_addr.s_addr) >> 24) != 127)
			return -EINVAL;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		t->addr_len = sizeof(*a);
	}
	return 0;
}

static int dial(const struct target *t, int timeout_ms)
{
	struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
	int one = 1;
	int fd = socket(t->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (const struct sockaddr *)&t->addr, t->addr_len) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EPIPE;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Append what the socket has to b; 0 at EOF, >0 bytes read, -errno. */
static ssize_t fill(int fd, struct rbuf *b)
{
	if (b->cap - b->len < 65536) {
		size_t cap = b->cap ? b->cap * 2 : 262144;
		char *p = realloc(b->data, cap);
		if (!p)
			return -ENOMEM;
		b->data = p;
		b->cap = cap;
	}
	for (;;) {
		ssize_t n = recv(fd, b->data + b->len, b->cap - b->len - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		b->len += (size_t)n;
		b->data[b->len] = '\0';
		return n;
	}
}

/* The value of header name in the block [h, end), or NULL; value runs to "\r\n". */
static const char *header(const char *h, const char *end, const char *name, size_t *ret_len)
{
	size_t nlen = strlen(name);

	for (const char *line = strstr(h, "\r\n"); line && line < end; line = strstr(line + 2, "\r\n")) {
		const char *p = line + 2;
		if ((size_t)(end - p) > nlen && strncasecmp(p, name, nlen) == 0 && p[nlen] == ':') {
			p += nlen + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			*ret_len = strcspn(p, "\r\n");
			return p;
		}
	}
	return NULL;
}

static bool header_has(const char *h, const char *end, const char *name, const char *token)
{
	size_t len;
	const char *v = header(h, end, name, &len);

	return v && memmem(v, len, token, strlen(token)) != NULL;
}

/* Chunked body starting at b->data[pos]: >0 when complete (sets *ret_bytes to the payload), 0 when
 * more input is needed, -EPROTO when malformed. */
static int parse_chunked(const struct rbuf *b, size_t pos, size_t *ret_bytes)
{
	size_t bytes = 0;

	for (;;) {
		const char *line = b->data + pos;
		const char *eol = memmem(line, b->len - pos, "\r\n", 2);
		if (!eol)
			return 0;
		char *end;
		unsigned long long size = strtoull(line, &end, 16);
		if (end == line)
			return -EPROTO;
		pos = (size_t)(eol + 2 - b->data);
		if (size == 0) {
			/* trailers, then an empty line */
			if (b->len - pos >= 2 && memcmp(b->data + pos, "\r\n", 2) == 0)
				return *ret_bytes = bytes, 1;
			return memmem(b->data + pos, b->len - pos, "\r\n\r\n", 4) ? (*ret_bytes = bytes, 1)
			                                                          : 0;
		}
		if (b->len - pos < size + 2)
			return 0;
		bytes += size;
		pos += size + 2;
	}
}

/* Read one response from fd. */
static int read_response(int fd, struct rbuf *b, struct response *ret)
{
	char *hend = NULL;
	ssize_t n;

	b->len = 0;
	memset(ret, 0, sizeof(*ret));
	while (!b->len || !(hend = strstr(b->data, "\r\n\r\n")))
		if ((n = fill(fd, b)) <= 0)
			return n < 0 ? (int)n : -EPROTO;
	size_t body_at = (size_t)(hend + 4 - b->data);
	if (sscanf(b->data, "HTTP/1.%*d %d", &ret->status) != 1)
		return -EPROTO;
	ret->gzip = header_has(b->data, hend + 2, "Content-Encoding", "gzip");
	ret->server_close =
	        header_has(b->data, hend + 2, "Connection", "close") || strncmp(b->data, "HTTP/1.0", 8) == 0;
	size_t vlen;
	const char *cl = header(b->data, hend + 2, "Content-Length", &vlen);
	bool chunked = header_has(b->data, hend + 2, "Transfer-Encoding", "chunked");
	if (chunked) {
		size_t bytes;
		int r;
		while ((r = parse_chunked(b, body_at, &bytes)) == 0)
			if ((n = fill(fd, b)) <= 0)
				return n < 0 ? (int)n : -EPROTO;
		if (r < 0)
			return r;
		ret->body_bytes = bytes;
	} else if (cl) {
		size_t want = (size_t)strtoull(cl, NULL, 10);
		while (b->len - body_at < want)
			if ((n = fill(fd, b)) <= 0)
				return n < 0 ? (int)n : -EPROTO;
		ret->body_bytes = want;
	} else {
		while ((n = fill(fd, b)) > 0)
			;
		if (n < 0)
			return (int)n;
		ret->body_bytes = b->len - body_at;
		ret->server_close = true;
	}
	return 0;
}

static double pct_us(const int64_t *v, long n, double q)
{
	return (double)bench_percentile(v, n, q) / 1e3;
}

static void usage(FILE *to)
{
	fprintf(to, "Usage: scrape [-n COUNT] [--warmup N] [--keepalive] [--gzip] [--prometheus] [--accept "
	            "TYPE]\n"
	            "              [--path /metrics] [--timeout-ms MS] [--quiet] 127.0.0.1:PORT\n");
}

static void parse_args(int argc, char **argv, struct scrape_opts *o)
{
	static const struct option longopts[] = {
	        {"count", required_argument, NULL, 'n'},
	        {"warmup", required_argument, NULL, 'w'},
	        {"keepalive", no_argument, NULL, 'k'},
	        {"gzip", no_argument, NULL, 'z'},
	        {"prometheus", no_argument, NULL, 'P'},
	        {"accept", required_argument, NULL, 'a'},
	        {"path", required_argument, NULL, 'p'},
	        {"timeout-ms", required_argument, NULL, 't'},
	        {"quiet", no_argument, NULL, 'q'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	int c;

	*o = (struct scrape_opts){.path = "/metrics", .count = 1000, .warmup = 5, .timeout_ms = 10000};
	while ((c = getopt_long(argc, argv, "n:kzq", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			o->count = strtol(optarg, NULL, 10);
			break;
		case 'w':
			o->warmup = strtol(optarg, NULL, 10);
			break;
		case 'k':
			o->keepalive = true;
			break;
		case 'z':
			o->gzip = true;
			break;
		case 'P':
			o->keepalive = o->gzip = true;
			o->accept = PROMETHEUS_ACCEPT;
			break;
		case 'a':
			o->accept = optarg;
			break;
		case 'p':
			o->path = optarg;
			break;
		case 't':
			o->timeout_ms = (int)strtol(optarg, NULL, 10);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind != argc - 1 || o->count < 1 || o->warmup < 0 || o->timeout_ms < 1) {
		usage(stderr);
		exit(2);
	}
	o->target = argv[optind];
}

struct run_stats {
	long ok, failed, non200, gzipped, connects;
	size_t bytes_total, bytes_last;
};

/* One scrape on *fd (dialled when < 0); returns latency in ns or -errno. */
static int64_t scrape_once(const struct scrape_opts *o, const struct target *t, const char *req,
                           size_t req_len, int *fd, struct rbuf *b, struct run_stats *st)
{
	struct response resp;
	int64_t start = mono_ns();
	int r;

	if (*fd < 0) {
		if ((*fd = dial(t, o->timeout_ms)) < 0) {
			r = *fd;
			*fd = -1;
			return r;
		}
		st->connects++;
	}
	if ((r = send_all(*fd, req, req_len)) < 0 || (r = read_response(*fd, b, &resp)) < 0) {
		close(*fd);
		*fd = -1;
		return r;
	}
	int64_t latency = mono_ns() - start;
	if (!o->keepalive || resp.server_close) {
		close(*fd);
		*fd = -1;
	}
	if (resp.status != 200)
		st->non200++;
	st->gzipped += resp.gzip;
	st->bytes_total += resp.body_bytes;
	st->bytes_last = resp.body_bytes;
	return latency;
}

int main(int argc, char **argv)
{
	struct scrape_opts o;
	struct target t;
	struct rbuf b = {0};
	struct run_stats st = {0}, warm = {0};
	char req[1024];
	int fd = -1;

	parse_args(argc, argv, &o);
	if (parse_target(o.target, &t) < 0) {
		fprintf(stderr, "scrape: target must be 127.x.y.z:PORT or [::1]:PORT, got '%s'\n", o.target);
		return 2;
	}
	int req_len = snprintf(
	        req, sizeof(req),
	        "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: perfwatch-bench-scrape/1\r\n%s%s%s%s%s\r\n",
	        o.path, t.host, o.accept ? "Accept: " : "", o.accept ? o.accept : "", o.accept ? "\r\n" : "",
	        o.gzip ? "Accept-Encoding: gzip\r\n" : "", o.keepalive ? "" : "Connection: close\r\n");
	if (req_len < 0 || (size_t)req_len >= sizeof(req))
		return fprintf(stderr, "scrape: request too long\n"), 2;
	int64_t *lat = calloc((size_t)o.count, sizeof(*lat));
	if (!lat)
		return fprintf(stderr, "scrape: out of memory\n"), 1;

	for (long i = 0; i < o.warmup; i++)
		if (scrape_once(&o, &t, req, (size_t)req_len, &fd, &b, &warm) < 0)
			warm.failed++;
	int64_t t0 = mono_ns();
	long n = 0;
	for (long i = 0; i < o.count; i++) {
		int64_t l = scrape_once(&o, &t, req, (size_t)req_len, &fd, &b, &st);
		if (l < 0) {
			if (st.failed++ == 0)
				fprintf(stderr, "scrape: %s%s: %s\n", o.target, o.path, strerror((int)-l));
			continue;
		}
		lat[n++] = l;
	}
	int64_t elapsed = mono_ns() - t0;
	if (fd >= 0)
		close(fd);
	if (n == 0) {
		fprintf(stderr, "scrape: every scrape failed\n");
		free(lat);
		free(b.data);
		return 1;
	}
	double mean = 0;
	for (long i = 0; i < n; i++)
		mean += (double)lat[i];
	mean /= (double)n * 1e3;
	bench_sort_i64(lat, n);
	if (!o.quiet)
		printf("scrape %s%s: %ld ok, %ld failed, %ld non-200; %s%s; %ld connections\n"
		       "  latency p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms, mean %.3f ms; %.0f "
		       "scrapes/s\n"
		       "  body %zu bytes per scrape (%s)\n",
		       o.target, o.path, n, st.failed, st.non200,
		       o.keepalive ? "keep-alive" : "new connection each", o.gzip ? ", gzip asked" : "",
		       st.connects, pct_us(lat, n, 0.5) / 1e3, pct_us(lat, n, 0.9) / 1e3,
		       pct_us(lat, n, 0.99) / 1e3, (double)lat[n - 1] / 1e6, mean / 1e3,
		       (double)n / ((double)elapsed / 1e9), st.bytes_total / (size_t)n,
		       st.gzipped ? "gzip" : "identity");
	printf("RESULT ok=%ld failed=%ld non200=%ld connections=%ld gzip_responses=%ld bytes=%zu p50_us=%.1f "
	       "p90_us=%.1f p99_us=%.1f max_us=%.1f mean_us=%.1f elapsed_ms=%.1f\n",
	       n, st.failed, st.non200, st.connects, st.gzipped, st.bytes_total / (size_t)n,
	       pct_us(lat, n, 0.5), pct_us(lat, n, 0.9), pct_us(lat, n, 0.99), (double)lat[n - 1] / 1e3, mean,
	       (double)elapsed / 1e6);
	free(lat);
	free(b.data);
	return st.failed || st.non200 ? 1 : 0;
}
