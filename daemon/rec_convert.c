/* rec_convert.c — a recording written again in this build's format, sample by sample. */
#include "rec_convert.h"

#include "rec_schema.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pw_rec_convert {
	char *path;
	FILE *file;
	struct pw_rec_encoder *enc;
	bool first;
	int err; /* the first write error: -errno */
};

static void write_bytes(struct pw_rec_convert *conv, const void *buf, size_t len)
{
	if (!conv->err && fwrite(buf, 1, len, conv->file) != len)
		conv->err = errno ? -errno : -EIO;
}

/* The header and this build's schema block. */
static void write_head(struct pw_rec_convert *conv, const struct pw_rec_header *hdr)
{
	unsigned char head[PW_REC_HEADER_SIZE], *schema = malloc(hdr->schema_size);

	if (!schema) {
		conv->err = -ENOMEM;
		return;
	}
	pw_rec_header_encode(hdr, head);
	pw_rec_schema_encode(schema);
	write_bytes(conv, head, sizeof(head));
	write_bytes(conv, schema, hdr->schema_size);
	free(schema);
}

struct pw_rec_convert *pw_rec_convert_open(const char *path, const struct pw_rec_header *src, char *err,
                                           size_t n)
{
	struct pw_rec_header hdr;
	struct pw_rec_convert *conv = calloc(1, sizeof(*conv));

	pw_rec_header_init(&hdr, src->cpu_cap, src->line_cap, src->with_matrix, src->user_hz, src->page_size,
	                   src->interval_ns);
	if (!conv || !(conv->path = strdup(path)) || !(conv->enc = pw_rec_encoder_new(&hdr))) {
		snprintf(err, n, "--to-recording %s: out of memory", path);
		goto fail;
	}
	/* A conversion makes a file, it never replaces or extends one. */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0640);
	if (fd < 0 || !(conv->file = fdopen(fd, "wb"))) {
		snprintf(err, n, "--to-recording %s: %s%s", path, strerror(errno),
		         errno == EEXIST ? " (not overwriting it)" : "");
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	conv->first = true;
	write_head(conv, &hdr);
	return conv;
fail:
	if (conv)
		pw_rec_encoder_free(conv->enc), free(conv->path);
	free(conv);
	return NULL;
}

int pw_rec_convert_add(struct pw_rec_convert *conv, const struct pw_sample *s, uint32_t flags)
{
	const void *record;
	size_t len;

	/* The encoder starts its first segment itself; each later one starts on a keyframe. */
	if ((flags & PW_REC_SEGMENT) && !conv->first)
		pw_rec_encoder_resync(conv->enc, true);
	conv->first = false;
	int r = pw_rec_encode(conv->enc, s, &record, &len);
	if (r < 0 && !conv->err)
		conv->err = r;
	if (r == 0)
		write_bytes(conv, record, len);
	return conv->err;
}

int pw_rec_convert_close(struct pw_rec_convert *conv, char *err, size_t n)
{
	if (!conv)
		return 0;
	if (!conv->err && (fflush(conv->file) != 0 || fsync(fileno(conv->file)) != 0))
		conv->err = -errno;
	if (fclose(conv->file) != 0 && !conv->err)
		conv->err = -errno;
	int r = conv->err;
	if (r < 0) {
		snprintf(err, n, "--to-recording %s: cannot write: %s (removed it)", conv->path,
		         strerror(-r));
		unlink(conv->path);
	}
	pw_rec_encoder_free(conv->enc);
	free(conv->path);
	free(conv);
	return r;
}
