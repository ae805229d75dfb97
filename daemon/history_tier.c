/* history_tier.c — one tier of the history store: its files (history_tier.h). */
#define _GNU_SOURCE /* O_NOFOLLOW, O_DIRECTORY with openat */
#include "history_tier.h"

#include "log.h"
#include "prefault.h"
#include "store_codec.h"
#include "warm_buffers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NS_PER_S INT64_C(1000000000)
#define NS_PER_MS INT64_C(1000000)
#define FILE_SUFFIX ".pwh"
#define FILE_BYTES_MIN (4u << 10)
#define BLOCK_BYTES_MAX (64u << 10) /* the block being filled, in memory */
#define BLOCK_POINTS_MIN 32
#define FILES_MAX 100000u                                  /* a directory with more is not read past this */
#define READ_FILE_MAX (PW_STORE_PAYLOAD_MAX + (64u << 20)) /* bytes of one file a reader takes */
#define RETRY_NS NS_PER_S
#define PENDING_KEEP_MAX BLOCK_BYTES_MAX /* rows kept for the head while it cannot be written */

struct data_file {
	int64_t first_ms; /* from its name */
	uint64_t size;
};

struct pw_history_tier {
	char *dir;
	char prefix[16], head_name[32]; /* "samples", "samples.head" */
	uint32_t tier;                  /* enum pw_store_tier: in the files' headers */
	int64_t interval_ns, retention_ns, file_span_ns;
	int64_t newest_ms; /* the newest point in a block or the head; INT64_MIN: none */
	uint64_t retention_size, file_bytes_max;
	uint32_t cpu_cap, block_cap;
	size_t point_size;

	/* The writer's alone. */
	/* Files are open only while written (between samples nothing is, so the file system can be
	 * remounted read-only); the directory stays open. -1: not open. */
	int dir_fd, head_fd, data_fd;
	bool appending;    /* the newest data file is this run's: blocks go on into it */
	bool ready;        /* the directory is set up and recovered */
	int64_t retry_ns;  /* monotonic time of the next setup attempt */
	uint64_t head_len; /* bytes of the head that hold whole frames */
	bool head_has_dict;
	struct pw_store_dict head_dict, row_dict, block_dict;
	/* What the head's dictionary was built from (pw_store_dict_build: the CPUs and the lines): a
	 * point of the same shape needs no dictionary built and compared. */
	uint16_t head_ncpu;
	char head_lines[PW_HISTORY_LINES][PW_IRQ_NAME_MAX];
	void *block;             /* the block being filled: block_cap points */
	uint32_t nblock;         /* points in it */
	struct data_file *files; /* the data files, oldest first */
	uint32_t nfiles, files_cap;
	struct pw_store_buf buf;
	/* Rows encoded since the last flush, for the head: written together (group commit). */
	struct pw_store_buf pending;
	bool pending_has_dict; /* its first row carries a dictionary: it may start a fresh head */
	struct pw_ratelimit complain;
	uint64_t points_written;

	/* Any thread. */
	atomic_uint_fast64_t errors, dropped;
	atomic_bool failing;
};

/* ---- small helpers ---- */

static void complain(struct pw_history_tier *st, int64_t now_ns, const char *what, int err)
{
	uint64_t suppressed = 0;

	atomic_fetch_add(&st->errors, 1);
	atomic_store(&st->failing, true);
	if (pw_ratelimit_allow(&st->complain, now_ns, &suppressed))
		pw_log(LOG_WARNING,
		       "history store %s: %s tier: %s: %s; sampling and detection go on, retried with the "
		       "next sample (%" PRIu64 " failures not logged)",
		       st->dir, st->prefix, what, strerror(err), suppressed);
}

/* "samples-1714564800000.pwh": the tier's prefix and its first point's Unix ms. */
static void file_name(const char *prefix, int64_t first_ms, char *buf, size_t size)
{
	snprintf(buf, size, "%s-%013" PRId64 FILE_SUFFIX, prefix, first_ms);
}

static bool parse_file_name(const char *prefix, const char *name, int64_t *ret_ms)
{
	size_t plen = strlen(prefix) + 1, slen = strlen(FILE_SUFFIX), len = strlen(name);
	int64_t ms = 0;

	if (len != plen + 13 + slen || strncmp(name, prefix, plen - 1) != 0 || name[plen - 1] != '-' ||
	    strcmp(name + len - slen, FILE_SUFFIX) != 0)
		return false;
	for (size_t i = plen; i < plen + 13; i++) {
		if (name[i] < '0' || name[i] > '9')
			return false;
		ms = ms * 10 + (name[i] - '0');
	}
	*ret_ms = ms;
	return true;
}

static int write_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

/* The whole of a file (at most max bytes), read from fd into *buf, which has room for *cap bytes and
 * is replaced by a larger one (faulted in) when short. A reader reuses one buffer across the files
 * of a window: a fresh one per file took a page fault per 4 KiB. */
static int read_whole_into(int fd, size_t max, unsigned char **buf, size_t *cap, size_t *ret_len)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		return -errno;
	if (!S_ISREG(sb.st_mode))
		return -EINVAL;
	size_t size = (size_t)sb.st_size < max ? (size_t)sb.st_size : max;
	if (!*buf || size > *cap) {
		free(*buf);
		*cap = 0;
		if (!(*buf = malloc(size ? size : 1)))
			return -ENOMEM;
		pw_prefault(*buf, size);
		*cap = size;
	}
	size_t got = 0;
	while (got < size) {
		ssize_t n = pread(fd, *buf + got, size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* shrunk under us: what we have */
		got += (size_t)n;
	}
	*ret_len = got;
	return 0;
}

/* The whole of a file (at most max bytes), read from fd into a buffer of its own. */
static int read_whole(int fd, size_t max, unsigned char **ret, size_t *ret_len)
{
	unsigned char *data = NULL;
	size_t cap = 0;
	int r = read_whole_into(fd, max, &data, &cap, ret_len);

	if (r < 0) {
		free(data);
		return r;
	}
	*ret = data;
	return 0;
}

static int open_in(int dir_fd, const char *name, int flags)
{
	return openat(dir_fd, name, flags | O_CLOEXEC | O_NOFOLLOW, 0600);
}

/* ---- the list of data files ---- */

static int files_add(struct pw_history_tier *st, int64_t first_ms, uint64_t size)
{
	if (st->nfiles == st->files_cap) {
		uint32_t cap = st->files_cap ? st->files_cap * 2 : 64;
		struct data_file *f = realloc(st->files, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		st->files = f;
		st->files_cap = cap;
	}
	st->files[st->nfiles++] = (struct data_file){first_ms, size};
	return 0;
}

static int by_first_ms(const void *a, const void *b)
{
	int64_t x = ((const struct data_file *)a)->first_ms, y = ((const struct data_file *)b)->first_ms;
	return (x > y) - (x < y);
}

/* Data files in dir_fd, oldest first, into *ret (malloc'ed). Returns the count or -errno. */
static int list_files(int dir_fd, const char *prefix, struct data_file **ret)
{
	int fd = dup(dir_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct data_file *files = NULL;
	uint32_t n = 0, cap = 0;
	struct dirent *e;

	if (!d) {
		int r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	rewinddir(d);
	while ((e = readdir(d)) && n < FILES_MAX) {
		int64_t ms;
		struct stat sb;
		if (!parse_file_name(prefix, e->d_name, &ms) ||
		    fstatat(dir_fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(sb.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			struct data_file *f = realloc(files, cap * sizeof(*f));
			if (!f) {
				free(files);
				closedir(d);
				return -ENOMEM;
			}
			files = f;
		}
		files[n++] = (struct data_file){ms, (uint64_t)sb.st_size};
	}
	closedir(d);
	if (n)
		qsort(files, n, sizeof(*files), by_first_ms);
	*ret = files;
	return (int)n;
}

/* ---- the writer ---- */

struct pw_history_tier *pw_history_tier_new(const struct pw_history_tier_config *cfg)
{
	struct pw_history_tier *st = calloc(1, sizeof(*st));

	if (!st || !(st->dir = strdup(cfg->dir))) {
		free(st);
		return NULL;
	}
	snprintf(st->prefix, sizeof(st->prefix), "%s", cfg->prefix);
	snprintf(st->head_name, sizeof(st->head_name), "%s.head", cfg->prefix);
	st->tier = cfg->tier;
	st->newest_ms = INT64_MIN;
	st->interval_ns = cfg->interval_ns > 0 ? cfg->interval_ns : NS_PER_S;
	st->retention_ns = cfg->retention_ns;
	st->retention_size = cfg->retention_size;
	st->cpu_cap = cfg->cpu_cap;
	st->point_size = pw_history_point_size(cfg->cpu_cap);
	/* Files of a sixteenth of what is kept: retention drops little at a time. */
	st->file_span_ns = st->retention_ns / 16;
	if (st->file_span_ns > cfg->file_span_max_ns)
		st->file_span_ns = cfg->file_span_max_ns;
	if (st->file_span_ns < st->interval_ns)
		st->file_span_ns = st->interval_ns;
	st->file_bytes_max =
	        st->retention_size / 16 > FILE_BYTES_MIN ? st->retention_size / 16 : FILE_BYTES_MIN;
	int64_t span = st->file_span_ns < cfg->block_span_ns ? st->file_span_ns : cfg->block_span_ns;
	int64_t ppi = cfg->points_per_interval ? cfg->points_per_interval : 1;
	int64_t points = span / st->interval_ns * ppi;
	/* A block in memory is at most BLOCK_BYTES_MAX (RSS stays flat once the first one is full),
	 * unless that is less than a few points (a host of thousands of CPUs). */
	int64_t by_bytes = (int64_t)(BLOCK_BYTES_MAX / st->point_size) / ppi * ppi;
	if (by_bytes < BLOCK_POINTS_MIN * ppi)
		by_bytes = BLOCK_POINTS_MIN * ppi;
	if (points > by_bytes)
		points = by_bytes;
	if (points < ppi)
		points = ppi;
	st->block_cap = points > PW_STORE_POINTS_MAX ? PW_STORE_POINTS_MAX / ppi * ppi : (uint32_t)points;
	st->dir_fd = st->head_fd = st->data_fd = -1;
	st->complain.period_ns = 60 * NS_PER_S;
	if (!(st->block = calloc(st->block_cap, st->point_size))) {
		free(st->dir);
		free(st);
		return NULL;
	}
	return st;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Start the data file for a block beginning at first_ms. */
static int open_new_file(struct pw_history_tier *st, int64_t first_ms)
{
	char name[64];
	unsigned char hdr[PW_STORE_HEADER_SIZE];
	struct pw_store_header h = {PW_STORE_VERSION, st->tier, st->interval_ns};

	/* Two runs within a millisecond of one another would share a name: never append blindly. */
	if (st->nfiles && first_ms <= st->files[st->nfiles - 1].first_ms)
		first_ms = st->files[st->nfiles - 1].first_ms + 1;
	file_name(st->prefix, first_ms, name, sizeof(name));
	close_fd(&st->data_fd);
	int fd = open_in(st->dir_fd, name, O_RDWR | O_CREAT | O_EXCL);
	if (fd < 0)
		return -errno;
	pw_store_header_encode(&h, hdr);
	int r = write_all(fd, hdr, sizeof(hdr), 0);
	if (r < 0 || (r = files_add(st, first_ms, sizeof(hdr))) < 0) {
		close(fd);
		unlinkat(st->dir_fd, name, 0);
		return r;
	}
	st->data_fd = fd;
	st->appending = true;
	return 0;
}

/* The head open for writing, holding st->head_len bytes of ours; a head that changed under us
 * (removed, cut) is started afresh. */
static int open_head(struct pw_history_tier *st)
{
	struct stat sb;
	unsigned char hdr[PW_STORE_HEADER_SIZE];
	struct pw_store_header h = {PW_STORE_VERSION, st->tier, st->interval_ns};

	if (st->head_fd >= 0)
		return 0;
	if ((st->head_fd = open_in(st->dir_fd, st->head_name, O_RDWR | O_CREAT)) < 0)
		return -errno;
	if (fstat(st->head_fd, &sb) < 0)
		return -errno;
	if ((uint64_t)sb.st_size == st->head_len && st->head_len >= PW_STORE_HEADER_SIZE)
		return 0;
	pw_store_header_encode(&h, hdr);
	int r = write_all(st->head_fd, hdr, sizeof(hdr), 0);
	if (r < 0 || ftruncate(st->head_fd, PW_STORE_HEADER_SIZE) < 0)
		return r < 0 ? r : -errno;
	st->head_len = PW_STORE_HEADER_SIZE;
	st->head_has_dict = false;
	return 0;
}

/* This run's newest data file, open for appending; -ENOENT when there is none (start one). */
static int open_data(struct pw_history_tier *st)
{
	char name[64];

	if (st->data_fd >= 0)
		return 0;
	if (!st->appending || !st->nfiles)
		return -ENOENT;
	file_name(st->prefix, st->files[st->nfiles - 1].first_ms, name, sizeof(name));
	if ((st->data_fd = open_in(st->dir_fd, name, O_RDWR)) < 0) {
		st->appending = false;
		return -errno;
	}
	return 0;
}

static int64_t point_ms(const struct pw_history_tier *st, uint32_t i)
{
	const struct pw_history_point *p =
	        (const void *)((const char *)st->block + (size_t)i * st->point_size);
	return p->real_ns / NS_PER_MS;
}

/* Drop files whose points are all older than the retention time, then the oldest while the store
 * is over its size; never the file being written. */
static void apply_retention(struct pw_history_tier *st, int64_t newest_ms)
{
	uint64_t total = 0;
	uint32_t drop = 0;
	char name[64];

	for (uint32_t i = 0; i < st->nfiles; i++)
		total += st->files[i].size;
	while (drop + 1 < st->nfiles) {
		/* A file's newest point is older than the next file's first. */
		bool old = st->retention_ns > 0 &&
		           st->files[drop + 1].first_ms <= newest_ms - st->retention_ns / NS_PER_MS;
		bool big = st->retention_size > 0 && total > st->retention_size;
		if (!old && !big)
			break;
		file_name(st->prefix, st->files[drop].first_ms, name, sizeof(name));
		if (unlinkat(st->dir_fd, name, 0) < 0 && errno != ENOENT)
			break;
		pw_log(LOG_DEBUG, "history store %s: dropped %s (%s)", st->dir, name,
		       old ? "older than retention-time" : "over retention-size");
		total -= st->files[drop].size;
		drop++;
	}
	if (drop) {
		memmove(st->files, st->files + drop, (st->nfiles - drop) * sizeof(*st->files));
		st->nfiles -= drop;
	}
}

static int empty_head(struct pw_history_tier *st)
{
	int r = open_head(st);
	if (r < 0)
		return r;
	if (ftruncate(st->head_fd, PW_STORE_HEADER_SIZE) < 0)
		return -errno;
	st->head_len = PW_STORE_HEADER_SIZE;
	st->head_has_dict = false;
	return 0;
}

/* Write the block's points to the data file (a new one when the current is full or old), then
 * empty the head. */
static int write_block(struct pw_history_tier *st, int64_t now_ns)
{
	int r;
	uint32_t n = st->nblock;
	const void *points = st->block;
	int64_t first = point_ms(st, 0), newest = point_ms(st, st->nblock - 1);

	if (n == 0)
		return 0;
	struct data_file *cur = open_data(st) == 0 ? &st->files[st->nfiles - 1] : NULL;
	if (!cur || cur->size >= st->file_bytes_max ||
	    first - cur->first_ms >= st->file_span_ns / NS_PER_MS) {
		if ((r = open_new_file(st, first)) < 0) {
			complain(st, now_ns, "cannot start a data file", -r);
			return r;
		}
		cur = &st->files[st->nfiles - 1];
	}
	st->buf.len = 0;
	st->buf.failed = false;
	if ((r = pw_store_dict_build(&st->block_dict, points, st->point_size, n)) < 0 ||
	    (r = pw_store_encode(PW_STORE_BLOCK, &st->block_dict, points, st->point_size, n, &st->buf)) < 0) {
		complain(st, now_ns, "cannot encode a block", -r);
		return r;
	}
	if ((r = write_all(st->data_fd, st->buf.data, st->buf.len, (off_t)cur->size)) < 0 ||
	    (fdatasync(st->data_fd) < 0 && (r = -errno) < 0)) {
		/* Never half a block in the middle of the file. */
		if (ftruncate(st->data_fd, (off_t)cur->size) < 0)
			st->appending = false; /* a new file for the next try */
		close_fd(&st->data_fd);
		complain(st, now_ns, "cannot write a block", -r);
		return r;
	}
	cur->size += st->buf.len;
	st->points_written += n;
	close_fd(&st->data_fd);
	st->pending.len = 0; /* their points are in the block just written */
	st->head_has_dict = false;
	if ((r = empty_head(st)) < 0)
		complain(st, now_ns, "cannot empty the head", -r);
	apply_retention(st, newest);
	return 0;
}

/* ---- start-up: setting up the directory and recovering from a crash ---- */

/* Walk the frames of the data file name (size bytes); cut a torn or corrupt tail; a file with no
 * readable frame is removed. Returns its size after, 0 when removed, or -errno. */
static int64_t repair_file(struct pw_history_tier *st, const char *name, bool check_payloads,
                           struct pw_store_decoder *dec, void *scratch, int64_t *newest_ms)
{
	int fd = open_in(st->dir_fd, name, O_RDWR);
	unsigned char *data = NULL;
	size_t len = 0, off = PW_STORE_HEADER_SIZE, good = PW_STORE_HEADER_SIZE;
	struct pw_store_header h;
	uint32_t frames = 0;

	if (fd < 0)
		return -errno;
	/* Bounded: a file this large is not one the store wrote (nor is it cut). */
	struct stat sb;
	int r = fstat(fd, &sb) < 0 ? -errno : read_whole(fd, READ_FILE_MAX, &data, &len);
	if (r < 0) {
		close(fd);
		return r;
	}
	bool whole = (uint64_t)sb.st_size == len;
	bool header_ok = pw_store_header_decode(data, len, &h) == 0 && h.tier == st->tier;
	pw_store_decoder_reset(dec);
	while (off < len) {
		uint32_t type;
		ssize_t n = pw_store_frame_length(data + off, len - off, &type);
		if (n <= 0 || type != PW_STORE_BLOCK)
			break;
		int got = check_payloads ? pw_store_decode(dec, data + off, (size_t)n, scratch,
		                                           st->point_size, st->cpu_cap, PW_STORE_POINTS_MAX)
		                         : 1;
		if (got <= 0)
			break;
		if (check_payloads) {
			const struct pw_history_point *last =
			        (const void *)((const char *)scratch + (size_t)(got - 1) * st->point_size);
			if (last->real_ns / NS_PER_MS > *newest_ms)
				*newest_ms = last->real_ns / NS_PER_MS;
		}
		off += (size_t)n;
		good = off;
		frames++;
	}
	free(data);
	if (frames == 0 && !header_ok) {
		close(fd);
		unlinkat(st->dir_fd, name, 0);
		pw_log(LOG_WARNING,
		       "history store %s: removed %s: not a history file, or nothing readable in it", st->dir,
		       name);
		return 0;
	}
	if (!header_ok) {
		unsigned char hdr[PW_STORE_HEADER_SIZE];
		struct pw_store_header mine = {PW_STORE_VERSION, st->tier, st->interval_ns};
		pw_store_header_encode(&mine, hdr);
		write_all(fd, hdr, sizeof(hdr), 0);
		pw_log(LOG_WARNING, "history store %s: %s: damaged header rewritten", st->dir, name);
	}
	if (good < len && whole) {
		if (ftruncate(fd, (off_t)good) == 0)
			pw_log(LOG_WARNING,
			       "history store %s: %s: cut %zu bytes of a torn or damaged tail (a crash while "
			       "writing, or damage); the %u blocks before it are kept",
			       st->dir, name, len - good, frames);
		else
			good = len;
	}
	close(fd);
	return whole ? (int64_t)good : (int64_t)sb.st_size;
}

/* The points the head holds (a crash left them), into the block; then the head is emptied. */
static void recover_head(struct pw_history_tier *st, struct pw_store_decoder *dec, int64_t newest_ms)
{
	unsigned char *data = NULL;
	size_t len = 0, off = PW_STORE_HEADER_SIZE;
	struct pw_store_header h;
	uint32_t cut = 0;

	if (read_whole(st->head_fd, READ_FILE_MAX, &data, &len) < 0)
		return;
	bool header_ok = pw_store_header_decode(data, len, &h) == 0;
	if (len > 0 && !header_ok)
		pw_log(LOG_WARNING, "history store %s: %s is not a history head: emptied", st->dir,
		       st->head_name);
	pw_store_decoder_reset(dec);
	while (header_ok && off < len) {
		ssize_t n = pw_store_frame_length(data + off, len - off, NULL);
		void *slot = (char *)st->block + (size_t)st->nblock * st->point_size;
		if (n <= 0 ||
		    pw_store_decode(dec, data + off, (size_t)n, slot, st->point_size, st->cpu_cap, 1) != 1) {
			cut = 1;
			break;
		}
		off += (size_t)n;
		/* Already in a block (the crash came between the block and emptying the head), or out of
		 * order: skipped. */
		const struct pw_history_point *p = slot;
		const struct pw_history_point *prev =
		        st->nblock ? (const void *)((const char *)slot - st->point_size) : NULL;
		bool newer = p->real_ns / NS_PER_MS > newest_ms && (!prev || p->real_ns >= prev->real_ns);
		if (newer) {
			st->newest_ms = p->real_ns / NS_PER_MS;
			st->nblock++;
		}
		if (st->nblock == st->block_cap) {
			write_block(st, 0);
			st->nblock = 0;
		}
	}
	if (st->nblock || cut)
		pw_log(LOG_NOTICE,
		       "history store %s: recovered %u points the last run had not put in a block yet%s",
		       st->dir, st->nblock, cut ? " (a torn last frame was cut)" : "");
	free(data);
	if (st->nblock)
		write_block(st, 0);
	st->nblock = 0;
	empty_head(st);
}

static int setup(struct pw_history_tier *st)
{
	struct data_file *files = NULL;
	struct pw_store_decoder *dec = pw_store_decoder_new();
	void *scratch = calloc(PW_STORE_POINTS_MAX, st->point_size);
	unsigned char hdr[PW_STORE_HEADER_SIZE];
	struct pw_store_header h = {PW_STORE_VERSION, st->tier, st->interval_ns};
	char name[64];
	int r = -ENOMEM;

	if (!dec || !scratch)
		goto out;
	if (mkdir(st->dir, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		goto out;
	}
	close_fd(&st->dir_fd);
	if ((st->dir_fd = open(st->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = -errno;
		goto out;
	}
	int n = list_files(st->dir_fd, st->prefix, &files);
	if (n < 0) {
		r = n;
		goto out;
	}
	st->nfiles = 0;
	/* The newest point in a block: head points at or before it are in a block already. */
	int64_t newest_ms = INT64_MIN;
	st->newest_ms = INT64_MIN;
	for (int i = 0; i < n; i++) {
		file_name(st->prefix, files[i].first_ms, name, sizeof(name));
		/* The newest may end in a torn block; the others were closed by a run that went on. */
		int64_t size = repair_file(st, name, i == n - 1, dec, scratch, &newest_ms);
		if (size > 0 && files_add(st, files[i].first_ms, (uint64_t)size) < 0)
			goto out;
	}
	close_fd(&st->head_fd);
	if ((st->head_fd = open_in(st->dir_fd, st->head_name, O_RDWR | O_CREAT)) < 0) {
		r = -errno;
		goto out;
	}
	st->ready = true; /* write_block may run now */
	st->newest_ms = newest_ms;
	recover_head(st, dec, newest_ms);
	pw_store_header_encode(&h, hdr);
	if ((r = write_all(st->head_fd, hdr, sizeof(hdr), 0)) < 0 || (r = empty_head(st)) < 0) {
		st->ready = false;
		goto out;
	}
	/* Appending resumes in a new file: the last run's file stays as it was closed. */
	close_fd(&st->data_fd);
	close_fd(&st->head_fd);
	st->appending = false;
	r = 0;
out:
	free(files);
	free(scratch);
	pw_store_decoder_free(dec);
	return r;
}

static bool shaped_as_head(const struct pw_history_tier *st, const struct pw_history_point *p)
{
	if (!st->head_has_dict || p->ncpu != st->head_ncpu)
		return false;
	for (int k = 0; k < PW_HISTORY_LINES; k++)
		if (strncmp(p->lines[k].irq, st->head_lines[k], PW_IRQ_NAME_MAX) != 0)
			return false;
	return true;
}

/* One point's row, encoded for the head; pw_history_tier_flush() writes it. */
static int encode_row(struct pw_history_tier *st, const struct pw_history_point *p)
{
	int r;
	size_t len = st->pending.len;

	bool same = shaped_as_head(st, p);
	if (!same) {
		if ((r = pw_store_dict_build(&st->row_dict, p, st->point_size, 1)) < 0)
			return r;
		same = st->head_has_dict && pw_store_dict_equal(&st->row_dict, &st->head_dict);
	}
	r = pw_store_encode(same ? PW_STORE_ROW : PW_STORE_ROW_DICT, same ? &st->head_dict : &st->row_dict, p,
	                    st->point_size, 1, &st->pending);
	if (r < 0) {
		st->pending.len = len;
		st->pending.failed = false;
		return r;
	}
	if (len == 0)
		st->pending_has_dict = !same;
	if (!same) {
		struct pw_store_dict t = st->head_dict;
		st->head_dict = st->row_dict;
		st->row_dict = t;
		st->head_has_dict = true;
	}
	st->head_ncpu = p->ncpu;
	for (int k = 0; k < PW_HISTORY_LINES; k++)
		memcpy(st->head_lines[k], p->lines[k].irq, PW_IRQ_NAME_MAX);
	return 0;
}

/* The rows encoded since the last flush, appended to the head in one write: from then on a kill
 * loses none of them. */
static int write_pending(struct pw_history_tier *st)
{
	int r;
	uint64_t len_before = st->head_len;
	bool has_dict = st->head_has_dict; /* as the pending rows leave it */

	if ((r = open_head(st)) < 0)
		return r;
	/* A head started afresh (it had changed under us) must begin with a dictionary: rows without
	 * one are dropped from the head (they are in the block all the same). */
	if (st->head_len != len_before && !st->pending_has_dict)
		return -ESTALE;
	if ((r = write_all(st->head_fd, st->pending.data, st->pending.len, (off_t)st->head_len)) < 0) {
		/* None of the rows stays: they are written whole at the next try (pw_history_tier_flush). */
		if (ftruncate(st->head_fd, (off_t)st->head_len) < 0)
			st->head_len = 0; /* unknown: the next open starts the head afresh */
		return r;
	}
	st->head_len += st->pending.len;
	st->head_has_dict = has_dict;
	return 0;
}

int pw_history_tier_prepare(struct pw_history_tier *st, int64_t now_ns)
{
	int r;

	if (st->ready)
		return 0;
	if (now_ns < st->retry_ns)
		return -EAGAIN;
	st->retry_ns = now_ns + RETRY_NS;
	if ((r = setup(st)) < 0) {
		complain(st, now_ns, "cannot set up the directory", -r);
		return r;
	}
	atomic_store(&st->failing, false); /* it wrote the head: the disk takes writes again */
	return 0;
}

int64_t pw_history_tier_newest_ms(const struct pw_history_tier *st)
{
	return st->newest_ms;
}

int64_t pw_history_tier_oldest_ms(const struct pw_history_tier *st)
{
	return st->nfiles ? st->files[0].first_ms : INT64_MIN;
}

const char *pw_history_tier_dir(const struct pw_history_tier *st)
{
	return st->dir;
}

void pw_history_tier_append(struct pw_history_tier *st, const struct pw_history_point *p, int64_t now_ns)
{
	int r;

	if (pw_history_tier_prepare(st, now_ns) == 0 && (r = encode_row(st, p)) < 0)
		complain(st, now_ns, "cannot encode a row for the head", -r);
	if (p->real_ns / NS_PER_MS > st->newest_ms)
		st->newest_ms = p->real_ns / NS_PER_MS;
	/* The block keeps the point whatever the head does: it reaches a data file with the block. */
	if (st->nblock == st->block_cap) {
		/* A block that could not be written: the oldest point goes. */
		memmove(st->block, (char *)st->block + st->point_size,
		        (size_t)(st->block_cap - 1) * st->point_size);
		st->nblock--;
		atomic_fetch_add(&st->dropped, 1);
	}
	memcpy((char *)st->block + (size_t)st->nblock * st->point_size, p, st->point_size);
	st->nblock++;
	if (st->nblock == st->block_cap && st->ready && write_block(st, now_ns) == 0)
		st->nblock = 0;
	close_fd(&st->head_fd);
	close_fd(&st->data_fd);
}

void pw_history_tier_flush(struct pw_history_tier *st, int64_t now_ns)
{
	/* A tier written seldom (the minutes) would show failing until its next point: it is set up
	 * again as soon as it can be. */
	if (!st->ready && atomic_load(&st->failing))
		pw_history_tier_prepare(st, now_ns);
	if (!st->pending.len)
		return;
	int r = write_pending(st);
	close_fd(&st->head_fd);
	if (r < 0 && r != -ESTALE) {
		complain(st, now_ns, "cannot write to the head", -r);
		if (r == -ENOENT) /* the directory is gone: set it up again */
			st->ready = false;
		/* Rows that could not be written are tried again with the next flush, so a tier written
		 * seldom (a minute's point) does not show failing until its next point; the disk's
		 * recovery is seen at once. Past a block's worth they go (they are in the block). */
		if (st->ready && st->pending.len <= PENDING_KEEP_MAX)
			return;
		st->head_has_dict = false; /* the head does not end with the dictionary the rows left */
	} else {
		atomic_store(&st->failing, false);
	}
	st->pending.len = 0;
	st->pending.failed = false;
}

void pw_history_tier_close(struct pw_history_tier *st)
{
	if (!st)
		return;
	if (st->ready && st->nblock && write_block(st, 0) == 0)
		st->nblock = 0;
	else
		pw_history_tier_flush(st, 0); /* the block stays for the next start, in the head */
	pw_log(LOG_INFO, "history store %s: %s tier: %" PRIu64 " points written in blocks by this run",
	       st->dir, st->prefix, st->points_written);
	close_fd(&st->head_fd);
	close_fd(&st->data_fd);
	close_fd(&st->dir_fd);
	st->ready = false;
}

void pw_history_tier_stats(const struct pw_history_tier *cst, struct pw_file_stats *ret)
{
	struct pw_history_tier *st = (struct pw_history_tier *)cst; /* atomics only */

	*ret = (struct pw_file_stats){.configured = st != NULL};
	if (!st)
		return;
	ret->errors = atomic_load(&st->errors);
	ret->failing = atomic_load(&st->failing);
	ret->dropped = atomic_load(&st->dropped);
}

void pw_history_tier_free(struct pw_history_tier *st)
{
	if (!st)
		return;
	close_fd(&st->head_fd);
	close_fd(&st->data_fd);
	close_fd(&st->dir_fd);
	pw_store_dict_done(&st->head_dict);
	pw_store_dict_done(&st->row_dict);
	pw_store_dict_done(&st->block_dict);
	pw_store_buf_done(&st->buf);
	pw_store_buf_done(&st->pending);
	free(st->files);
	free(st->block);
	free(st->dir);
	free(st);
}

/* ---- the reader ---- */

struct points_out {
	char *data;
	size_t point_size;
	uint32_t n, cap, max;
	uint32_t faulted;    /* data's first faulted points are in memory (pw_prefault) */
	uint32_t guess;      /* points of the last frame decoded: what the next may bring */
	int64_t last_ns;     /* the newest point taken: a point found twice is taken once */
	unsigned last_kinds; /* the stat kinds (a minute's mean, min, max) taken at last_ns */
};

static char *out_at(const struct points_out *o, uint32_t i)
{
	return o->data + (size_t)i * o->point_size;
}

struct file_buf {
	unsigned char *data;
	size_t cap;
};

/* Whether p belongs at o's end: inside the window, and not older than (nor a kind already taken
 * at the time of) the newest point taken. */
static bool wanted(const struct points_out *o, const struct pw_history_point *p, int64_t since_ns,
                   int64_t until_ns)
{
	unsigned kind = 1u << PW_HISTORY_STAT(p->flags);
	return p->real_ns > since_ns && p->real_ns <= until_ns &&
	       !(o->n && (p->real_ns < o->last_ns || (p->real_ns == o->last_ns && (o->last_kinds & kind))));
}

/* p, wanted, becomes the newest taken: its bytes are already at out_at(o, o->n). */
static void taken(struct points_out *o, const struct pw_history_point *p)
{
	unsigned kind = 1u << PW_HISTORY_STAT(p->flags);
	o->n++;
	o->last_kinds = o->last_ns == p->real_ns ? o->last_kinds | kind : kind;
	o->last_ns = p->real_ns;
}

#define PREFAULT_AHEAD_BYTES (256u << 10) /* pw_prefault's least */

/* Room in o for n more points. When the next frame (as many points as the one before) would pass
 * the pages faulted in, those ahead are faulted in with one call: a fault per page was most of
 * copying an hour off disk. */
static int room(struct points_out *o, uint32_t n)
{
	if (o->cap - o->n < n) {
		uint32_t cap = o->cap * 2 > o->n + n ? o->cap * 2 : o->n + n;
		char *d = realloc(o->data, (size_t)cap * o->point_size);
		if (!d)
			return -ENOMEM;
		o->data = d;
		o->cap = cap;
	}
	if (o->guess && o->n + o->guess > o->faulted) {
		uint32_t from = o->faulted > o->n ? o->faulted : o->n;
		uint32_t ahead = (uint32_t)((PREFAULT_AHEAD_BYTES + o->point_size - 1) / o->point_size);
		uint32_t to = from + (o->guess > ahead ? o->guess : ahead);
		to = to < o->cap ? to : o->cap;
		pw_prefault(out_at(o, from), (size_t)(to - from) * o->point_size);
		o->faulted = to;
	}
	return 0;
}

/* Keep, of the got points decoded at o's end, those wanted, moved down over the others. */
static int keep_decoded(struct points_out *o, uint32_t got, int64_t since_ns, int64_t until_ns)
{
	uint32_t at = o->n;
	for (uint32_t i = 0; i < got; i++) {
		const struct pw_history_point *p = (const void *)out_at(o, at + i);
		if (!wanted(o, p, since_ns, until_ns))
			continue;
		if (o->n == o->max)
			return -E2BIG;
		if (o->n != at + i)
			memcpy(out_at(o, o->n), p, o->point_size);
		taken(o, p);
	}
	return 0;
}

/* How a window is read: each frame of the files that overlap it goes to frame(), the head's last. */
struct window_reader {
	int (*frame)(struct window_reader *wr, const unsigned char *frame, size_t len);
	struct pw_store_decoder *dec;
	int64_t since_ns, until_ns;
};

/* The whole of file name into buf (*ret_len 0 when it is missing: dropped by retention meanwhile,
 * or never there). Returns 0 or -ENOMEM. */
static int read_named(int dir_fd, const char *name, struct file_buf *buf, size_t *ret_len)
{
	int fd = open_in(dir_fd, name, O_RDONLY);
	*ret_len = 0;
	if (fd < 0)
		return 0;
	int e = read_whole_into(fd, READ_FILE_MAX, &buf->data, &buf->cap, ret_len);
	close(fd);
	if (e < 0)
		*ret_len = 0;
	return e == -ENOMEM ? e : 0;
}

/* The frames of one file's bytes, up to a torn tail (being written now, or a crash). */
static int read_frames(struct window_reader *wr, const unsigned char *data, size_t len)
{
	struct pw_store_header h;
	size_t off = PW_STORE_HEADER_SIZE;
	int r = 0;

	if (pw_store_header_decode(data, len, &h) < 0)
		return 0;
	pw_store_decoder_reset(wr->dec);
	while (off < len && r == 0) {
		ssize_t n = pw_store_frame_length(data + off, len - off, NULL);
		if (n <= 0)
			break;
		r = wr->frame(wr, data + off, (size_t)n);
		off += (size_t)n;
	}
	return r;
}

/* The frames of the tier PREFIX in dir that may hold points of wr's window, oldest first. */
static int read_window(const char *dir, const char *prefix, struct window_reader *wr)
{
	struct data_file *files = NULL;
	struct file_buf head = {0}, file = {0};
	size_t head_len = 0, len = 0;
	char name[64];
	int r = 0, n = 0;

	int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir_fd < 0)
		return 0;
	if (!(wr->dec = pw_store_decoder_new())) {
		close(dir_fd);
		return -ENOMEM;
	}
	/* The head first: its points may move into a data file while we read, never out of both. Its
	 * frames go last, after the data files' (a point found twice is taken once). */
	snprintf(name, sizeof(name), "%s.head", prefix);
	if ((r = read_named(dir_fd, name, &head, &head_len)) < 0)
		goto out;
	if ((n = list_files(dir_fd, prefix, &files)) < 0) {
		r = n;
		goto out;
	}
	for (int i = 0; i < n && r == 0; i++) {
		/* Files hold points from their first up to the next file's first. */
		if (i + 1 < n && files[i + 1].first_ms * NS_PER_MS <= wr->since_ns)
			continue;
		if (files[i].first_ms * NS_PER_MS > wr->until_ns)
			break;
		file_name(prefix, files[i].first_ms, name, sizeof(name));
		if ((r = read_named(dir_fd, name, &file, &len)) == 0)
			r = read_frames(wr, file.data, len);
	}
	if (r == 0)
		r = read_frames(wr, head.data, head_len);
out:
	close(dir_fd);
	free(files);
	free(head.data);
	pw_warm_give(file.data);
	pw_store_decoder_free(wr->dec);
	return r;
}

struct points_reader {
	struct window_reader wr;
	struct points_out o;
	uint32_t cpu_cap;
};

/* A frame's points, decoded straight into o's end (a copy of each point out of a scratch was a
 * tenth of an hour's answer), the pages for each faulted in ahead at the size of the frame before;
 * those of the window kept. A damaged frame is skipped. */
static int points_frame(struct window_reader *wr, const unsigned char *frame, size_t len)
{
	struct points_reader *pr = (struct points_reader *)(void *)wr;
	struct points_out *o = &pr->o;
	int r = room(o, PW_STORE_POINTS_MAX);
	if (r < 0)
		return r;
	int got = pw_store_decode(wr->dec, frame, len, out_at(o, o->n), o->point_size, pr->cpu_cap,
	                          PW_STORE_POINTS_MAX);
	if (got == -ENOMEM)
		return got;
	if (got <= 0)
		return 0;
	o->guess = (uint32_t)got;
	return keep_decoded(o, (uint32_t)got, wr->since_ns, wr->until_ns);
}

int pw_history_tier_read(const char *dir, const char *prefix, uint32_t cpu_cap, size_t point_size,
                         int64_t since_ns, int64_t until_ns, uint32_t max_points, void **ret_points)
{
	struct points_reader pr = {.wr = {.frame = points_frame, .since_ns = since_ns, .until_ns = until_ns},
	                           .o = {.point_size = point_size, .max = max_points},
	                           .cpu_cap = cpu_cap};
	size_t cap = 0;

	*ret_points = NULL;
	if (point_size < pw_history_point_size(cpu_cap))
		return -EINVAL;
	/* In the largest buffer the answer before left (warm_buffers.h). */
	pr.o.data = pw_warm_take(SIZE_MAX, &cap);
	pr.o.cap = (uint32_t)(cap / point_size < UINT32_MAX ? cap / point_size : UINT32_MAX);
	int r = read_window(dir, prefix, &pr.wr);
	if (r < 0) {
		pw_warm_give(pr.o.data);
		return r;
	}
	*ret_points = pr.o.data;
	return (int)pr.o.n;
}

struct columns_reader {
	struct window_reader wr;
	struct pw_history_columns *cols;
};

static int columns_frame(struct window_reader *wr, const unsigned char *frame, size_t len)
{
	struct columns_reader *cr = (struct columns_reader *)(void *)wr;
	int got = pw_store_decode_columns(wr->dec, frame, len, cr->cols, wr->since_ns, wr->until_ns);
	return got == -EBADMSG || got >= 0 ? 0 : got; /* a damaged frame is skipped */
}

int pw_history_tier_read_columns(const char *dir, const char *prefix, int64_t since_ns, int64_t until_ns,
                                 struct pw_history_columns *cols)
{
	struct columns_reader cr = {
	        .wr = {.frame = columns_frame, .since_ns = since_ns, .until_ns = until_ns}, .cols = cols};
	return read_window(dir, prefix, &cr.wr);
}

/* The sampling interval in the header of file name; 0 when it cannot be read. */
static int64_t header_interval(int dir_fd, const char *name)
{
	unsigned char head[PW_STORE_HEADER_SIZE];
	struct pw_store_header h;
	int fd = open_in(dir_fd, name, O_RDONLY);
	ssize_t got = fd >= 0 ? read(fd, head, sizeof(head)) : -1;

	if (fd >= 0)
		close(fd);
	return got > 0 && pw_store_header_decode(head, (size_t)got, &h) == 0 ? h.interval_ns : 0;
}

int pw_history_tier_describe(const char *dir, const char *prefix, int64_t *ret_first_ms,
                             int64_t *ret_interval_ns)
{
	struct data_file *files = NULL;
	char name[64];
	int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	*ret_first_ms = INT64_MIN;
	*ret_interval_ns = 0;
	if (dir_fd < 0)
		return -errno;
	int n = list_files(dir_fd, prefix, &files);
	if (n > 0) {
		*ret_first_ms = files[0].first_ms;
		file_name(prefix, files[0].first_ms, name, sizeof(name));
	} else {
		snprintf(name, sizeof(name), "%s.head", prefix);
	}
	*ret_interval_ns = header_interval(dir_fd, name);
	close(dir_fd);
	free(files);
	return n < 0 ? n : 0;
}
