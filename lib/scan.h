/* scan.h — a bounded cursor over a byte buffer, the one tokenizer every /proc parser shares.
 *
 * Never reads past the end given at init and never needs a NUL. "Blank" is space or tab; newlines
 * end lines and are only crossed by pw_scan_next_line(). */
#ifndef PW_SCAN_H
#define PW_SCAN_H

#include "pw_types.h"

struct pw_scan {
	const char *pos;
	const char *end;
};

void pw_scan_init(struct pw_scan *scan, const char *buf, size_t len);

/* True when the whole buffer has been consumed. */
bool pw_scan_eof(const struct pw_scan *scan);

/* True at a newline or at the end of the buffer (after skipping blanks). */
bool pw_scan_at_eol(struct pw_scan *scan);

void pw_scan_skip_blanks(struct pw_scan *scan);

/* Move past the next newline (or to the end). */
void pw_scan_next_line(struct pw_scan *scan);

/* Skip blanks, then read a decimal unsigned number. Returns 0, -EINVAL if no digit is there (the
 * cursor does not move), -ERANGE if it does not fit 64 bits. */
int pw_scan_u64(struct pw_scan *scan, uint64_t *ret);

/* Skip blanks, then read a number with at most two decimals ("10.86", "3", "0.5") as hundredths.
 * Returns 0, -EINVAL or -ERANGE (does not fit 32 bits). */
int pw_scan_hundredths(struct pw_scan *scan, uint32_t *ret);

/* Skip blanks, then return the next token (up to a blank or newline) without copying.
 * Returns 0, or -EINVAL at end of line. */
int pw_scan_token(struct pw_scan *scan, const char **ret_start, size_t *ret_len);

/* Return the rest of the current line with surrounding blanks trimmed (may be empty) and leave the
 * cursor at its newline. */
void pw_scan_rest_of_line(struct pw_scan *scan, const char **ret_start, size_t *ret_len);

/* Copy src[0..len) into dst as a NUL-terminated string, truncating to size - 1 bytes. */
void pw_copy_label(char *dst, size_t size, const char *src, size_t len);

/* True if token[0..len) equals the NUL-terminated word. */
bool pw_token_is(const char *token, size_t len, const char *word);

#endif
