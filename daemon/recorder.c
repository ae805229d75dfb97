/* recorder.c — the flight recorder's file: header once, then one write per record. A write that
 * fails (disk full, EIO) is undone with ftruncate so the file never holds half a record in its
 * middle, and nothing more is written until a keyframe, which needs nothing before it. A file
 * removed or moved away while open is noticed within a second and a new one started at the path,
 * so samples do not go on into a file nobody can see (which, on a full disk, holds its space until
 * we exit). */
#include "recorder.h"

#include "log.h"
#include "rec_schema.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define NS_PER_S INT64_C(1000000000)
/* How often a file that cannot be opened is tried again, and how often the path is checked to
 * still name the open file: a second of sample time (one stat or open; the complaints about it go
 * out at most once a minute). */
#define RETRY_NS NS_PER_S

struct pw_recorder {
	char *path;
	struct pw_rec_header hdr;
	unsigned char *head; /* what a new file starts with: the header and the schema block */
	size_t head_len;
	int fd;                   /* -1: not open */
	off_t good_end;           /* end of the last record that reached the file; 0: no header yet */
	bool failing;             /* the last write failed */
	bool complained_at_start; /* the open at start failed and said so */
	bool closed;              /* pw_recorder_close was called */
	int64_t retry_ns;  /* sample time of the next open attempt; -1: a second after the first sample */
	int64_t check_ns;  /* sample time of the next check that the path still names the open file */
	uint64_t last_seq; /* the record the file ends with; 0: the next one written must be a keyframe */
	uint64_t written;  /* samples recorded by this run */
	uint64_t lost;     /* samples not recorded */
	struct pw_ratelimit complain;
	/* For /metrics (pw_recorder_stats, any thread): copies of lost and of "not writing now". */
	atomic_uint_fast64_t lost_shared;
	atomic_bool failing_shared;
};

/* Something is in the file that appending would damage or misrepresent: refuse it (the caller
 * suggests moving it away). */
static int refuse(char *err, size_t n, bool *ret_refuse, const char *why)
{
	snprintf(err, n, "%s", why);
	*ret_refuse = true;
	return -EPROTO;
}

/* Judge the header and schema block at the start of a file (got bytes at head, as many as ours
 * would take): 0 when the file is ours to append to, 1 when it holds our own start cut short by a
 * crash at our first write, or -EPROTO with the reason in why. */
static int judge_head(const struct pw_recorder *rec, const unsigned char *head, size_t got,
                      struct pw_rec_header *ret, char *why, size_t n)
{
	if (got < rec->head_len && memcmp(head, rec->head, got) == 0)
		return 1;
	int r = pw_rec_header_decode(head, got, ret);
	if (r == -EPROTO)
		return snprintf(why, n, "not a perfwatch recording of this format version"), -EPROTO;
	if (r < 0)
		return snprintf(why, n, "corrupt recording header"), -EPROTO;
	if (pw_rec_header_same(ret, &rec->hdr, why, n) < 0)
		return -EPROTO;
	if (ret->version == PW_REC_VERSION_RAW) /* no block: of our struct sizes, its records are ours */
		return 0;
	/* The same struct and schema sizes, yet other fields: our records would be misread. */
	if (got < rec->head_len || memcmp(head + PW_REC_HEADER_SIZE, rec->head + PW_REC_HEADER_SIZE,
	                                  rec->head_len - PW_REC_HEADER_SIZE) != 0)
		return snprintf(why, n,
		                "recorded by a perfwatchd with another sample layout (its schema differs); "
		                "convert it with --replay FILE --to-recording NEW"),
		       -EPROTO;
	return 0;
}

/* Check the header of a non-empty file and walk its frames to the end of the last whole record;
 * a record cut short there (a crash mid-write) is cut off. Sets rec->good_end. */
static int adopt_existing(struct pw_recorder *rec, int fd, off_t size, char *err, size_t n, bool *ret_refuse)
{
	unsigned char *head = malloc(rec->head_len), frame[PW_REC_FRAME_SIZE];
	struct pw_rec_header have;
	char why[512];
	off_t off;

	if (!head)
		return snprintf(err, n, "out of memory"), -ENOMEM;
	ssize_t got = pread(fd, head, rec->head_len, 0);
	if (got < 0) {
		free(head);
		return snprintf(err, n, "cannot read: %s", strerror(errno)), -errno;
	}
	int r = judge_head(rec, head, (size_t)got, &have, why, sizeof(why));
	free(head);
	if (r < 0)
		return refuse(err, n, ret_refuse, why);
	off = r == 1 ? 0 : (off_t)pw_rec_data_offset(&have);
	while (off && off < size) {
		got = pread(fd, frame, sizeof(frame), off);
		if (got < 0)
			return snprintf(err, n, "cannot read: %s", strerror(errno)), -errno;
		ssize_t len = pw_rec_frame_length(&have, frame, (size_t)got);
		if (len < 0) {
			snprintf(why, sizeof(why), "corrupt record at offset %lld", (long long)off);
			return refuse(err, n, ret_refuse, why);
		}
		if (len == 0 || off + len > size)
			break;
		off += len;
	}
	if (off < size) {
		if (ftruncate(fd, off) < 0)
			return snprintf(err, n, "cannot cut off a partial record: %s", strerror(errno)),
			       -errno;
		pw_log(LOG_NOTICE, "record %s: cut off %lld bytes of a record the last run did not finish",
		       rec->path, (long long)(size - off));
	}
	rec->good_end = off;
	return 0;
}

/* Open (or create) the file and take it over. Returns 0 or -errno with the reason in err; sets
 * *ret_refuse when the file is not ours to append to (trying again will not help). */
static int open_file(struct pw_recorder *rec, char *err, size_t n, bool *ret_refuse)
{
	struct stat st;
	/* Never through a symlink (root would create or append to its target), never blocking on a
	 * FIFO or device: only a regular file is a recording. */
	int fd = open(rec->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK,
	              0640);
	int r = 0;

	*ret_refuse = false;
	if (fd < 0 && errno == ELOOP)
		return refuse(err, n, ret_refuse, "a symbolic link: not following it");
	if (fd < 0)
		return snprintf(err, n, "cannot open: %s", strerror(errno)), -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		if (r == -EWOULDBLOCK)
			refuse(err, n, ret_refuse, "another process is recording into it");
		else
			snprintf(err, n, "cannot lock: %s", strerror(-r));
	} else if (fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(err, n, "cannot stat: %s", strerror(-r));
	} else if (!S_ISREG(st.st_mode)) {
		r = refuse(err, n, ret_refuse, "not a regular file");
	} else {
		rec->good_end = 0;
		if (st.st_size > 0)
			r = adopt_existing(rec, fd, st.st_size, err, n, ret_refuse);
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	rec->fd = fd;
	rec->last_seq = 0; /* a new file starts with a keyframe */
	return 0;
}

struct pw_recorder *pw_recorder_open(const char *path, const struct pw_rec_header *hdr, char *err,
                                     size_t err_size)
{
	struct pw_recorder *rec = calloc(1, sizeof(*rec));
	char why[1200];
	bool refused;

	/* Samples beyond the format's limits would make a file --replay refuses: say so at start. */
	if (pw_rec_header_check(hdr, why, sizeof(why)) < 0) {
		snprintf(err, err_size, "record %s: cannot record this host's samples: %s", path, why);
		free(rec);
		return NULL;
	}
	if (!rec || !(rec->path = strdup(path)) ||
	    !(rec->head = malloc(PW_REC_HEADER_SIZE + (size_t)hdr->schema_size))) {
		snprintf(err, err_size, "record %s: out of memory", path);
		pw_recorder_free(rec);
		return NULL;
	}
	rec->hdr = *hdr;
	rec->head_len = PW_REC_HEADER_SIZE + (size_t)hdr->schema_size;
	assert(hdr->version == PW_REC_VERSION && hdr->schema_size == pw_rec_schema_size()); /* this build's */
	pw_rec_header_encode(hdr, rec->head);
	pw_rec_schema_encode(rec->head + PW_REC_HEADER_SIZE);
	rec->fd = -1;
	rec->retry_ns = -1;
	rec->complain.period_ns = 60 * NS_PER_S;
	if (open_file(rec, why, sizeof(why), &refused) < 0) {
		if (refused) {
			snprintf(
			        err, err_size,
			        "record %s: %s; not appending to it (move it away or record to another file)",
			        path, why);
			pw_recorder_free(rec);
			return NULL;
		}
		pw_log(LOG_ERR, "record %s: %s; sampling goes on unrecorded, trying again every second", path,
		       why);
		rec->complained_at_start = true;
		atomic_store(&rec->failing_shared, true);
	}
	return rec;
}

/* Not open: try again once a second of sample time. True when the file is open now. */
static bool reopen(struct pw_recorder *rec, int64_t now_ns)
{
	char why[1200];
	uint64_t suppressed = 0;
	bool refused;

	if (rec->retry_ns < 0)
		rec->retry_ns = now_ns + RETRY_NS;
	if (now_ns < rec->retry_ns)
		return false;
	rec->retry_ns = now_ns + RETRY_NS;
	if (open_file(rec, why, sizeof(why), &refused) == 0) {
		pw_log(LOG_NOTICE, "record %s: open now, recording (%" PRIu64 " samples were not recorded)",
		       rec->path, rec->lost);
		rec->check_ns = now_ns + RETRY_NS;
		return true;
	}
	if (rec->complained_at_start) { /* that was the first complaint: the next a minute later */
		rec->complain.used = true;
		rec->complain.last_ns = now_ns;
		rec->complained_at_start = false;
	}
	if (pw_ratelimit_allow(&rec->complain, now_ns, &suppressed))
		pw_log(LOG_ERR,
		       "record %s: %s; %" PRIu64 " samples not recorded so far, trying again every second",
		       rec->path, why, rec->lost);
	return false;
}

/* Once a second: the open file must still be the one at the path. Removed (its directory too) or
 * moved away, it is closed, and a new file is started at the path (or tried each second). */
static void check_path(struct pw_recorder *rec, int64_t now_ns)
{
	struct stat open_st, path_st;

	if (now_ns < rec->check_ns)
		return;
	rec->check_ns = now_ns + RETRY_NS;
	if (fstat(rec->fd, &open_st) == 0 && lstat(rec->path, &path_st) == 0 &&
	    open_st.st_dev == path_st.st_dev && open_st.st_ino == path_st.st_ino)
		return;
	pw_log(LOG_WARNING, "record %s: the file was removed or moved away; starting a new one there",
	       rec->path);
	fdatasync(rec->fd); /* what it holds is someone else's now: as at shutdown */
	close(rec->fd);
	rec->fd = -1;
	rec->retry_ns = now_ns; /* at once */
}

/* A write that did not complete: take back what reached the file, and start the next record afresh. */
static void write_failed(struct pw_recorder *rec, int err, int64_t now_ns)
{
	uint64_t suppressed = 0;

	if (ftruncate(rec->fd, rec->good_end) < 0) {
		close(rec->fd); /* reopening walks the file and cuts the partial record off */
		rec->fd = -1;
		rec->retry_ns = now_ns + RETRY_NS;
	}
	rec->last_seq = 0;
	rec->lost++;
	rec->failing = true;
	atomic_store(&rec->lost_shared, rec->lost);
	atomic_store(&rec->failing_shared, true);
	if (pw_ratelimit_allow(&rec->complain, now_ns, &suppressed))
		pw_log(LOG_ERR,
		       "record %s: cannot write: %s; %" PRIu64 " samples not recorded so far, sampling "
		       "and detection go on",
		       rec->path, strerror(err), rec->lost);
}

/* Write all of buf, continuing after a short write: the error, if any, is the call that failed
 * (a short write at a file-size limit or a full disk is followed by EFBIG or ENOSPC). */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -ENOSPC;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Not written: counted as a sample not recorded. */
static void lose(struct pw_recorder *rec)
{
	rec->lost++;
	atomic_store(&rec->lost_shared, rec->lost);
}

bool pw_recorder_append(struct pw_recorder *rec, void *record, size_t len, uint64_t seq, int64_t now_ns)
{
	uint32_t flags = pw_rec_frame_flags(record);
	int r = 0;

	if (rec->fd >= 0)
		check_path(rec, now_ns);
	if (rec->fd < 0 && !reopen(rec, now_ns)) {
		lose(rec);
		atomic_store(&rec->failing_shared, true);
		return true;
	}
	/* A delta decodes only against the record before it in the file: after a gap (dropped, failed,
	 * new file) wait for a keyframe. */
	if (!(flags & PW_REC_KEYFRAME) && (rec->last_seq == 0 || seq != rec->last_seq + 1)) {
		lose(rec);
		rec->last_seq = 0;
		return true;
	}
	/* This run's first record written starts its segment (replay starts a fresh detector there,
	 * as the daemon did), and no other: whichever record that turns out to be. */
	uint32_t want = rec->written ? flags & ~(uint32_t)PW_REC_SEGMENT : flags | PW_REC_SEGMENT;
	if (want != flags)
		pw_rec_frame_set_flags(record, want);
	if (rec->good_end == 0)
		r = write_all(rec->fd, rec->head, rec->head_len);
	if (r == 0)
		r = write_all(rec->fd, record, len);
	if (r < 0) {
		write_failed(rec, -r, now_ns);
		return true;
	}
	rec->good_end = rec->good_end ? rec->good_end + (off_t)len : (off_t)(rec->head_len + len);
	rec->last_seq = seq;
	rec->written++;
	if (rec->failing)
		pw_log(LOG_NOTICE, "record %s: writing again (%" PRIu64 " samples were not recorded)",
		       rec->path, rec->lost);
	rec->failing = false;
	atomic_store(&rec->failing_shared, false);
	return false;
}

const struct pw_rec_header *pw_recorder_header(const struct pw_recorder *rec)
{
	return &rec->hdr;
}

void pw_recorder_stats(const struct pw_recorder *rec, struct pw_file_stats *ret)
{
	*ret = (struct pw_file_stats){.configured = rec != NULL};
	if (!rec)
		return;
	ret->errors = atomic_load(&((struct pw_recorder *)rec)->lost_shared);
	ret->failing = atomic_load(&((struct pw_recorder *)rec)->failing_shared);
}

const char *pw_recorder_path(const struct pw_recorder *rec)
{
	return rec->path;
}

void pw_recorder_close(struct pw_recorder *rec)
{
	if (!rec || rec->closed || !rec->path)
		return;
	rec->closed = true;
	pw_log(rec->lost ? LOG_WARNING : LOG_INFO, "record %s: %" PRIu64 " samples recorded, %" PRIu64 " not",
	       rec->path, rec->written, rec->lost);
	if (rec->fd >= 0) {
		fdatasync(rec->fd); /* once, at the end: a crash before it costs at most the tail */
		close(rec->fd);
		rec->fd = -1;
	}
}

void pw_recorder_free(struct pw_recorder *rec)
{
	if (!rec)
		return;
	pw_recorder_close(rec);
	free(rec->path);
	free(rec->head);
	free(rec);
}
