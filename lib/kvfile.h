/* kvfile.h — the shared half of the parsers for files of "<key>[:] <value> [unit]" lines
 * (/proc/vmstat, /proc/meminfo): the keys a parser keeps, their values and a present mask.
 *
 * These files are read every second and have far more lines than kept keys, so each key is found
 * by binary search in a table sorted by (length, name), not compared with every kept key. */
#ifndef PW_KVFILE_H
#define PW_KVFILE_H

#include "pw_types.h"

struct pw_kvfile_key {
	const char *name;
	size_t len;
};

/* clang-format off */
#define PW_KVFILE_KEY(s) { s, sizeof(s) - 1 }
/* clang-format on */

/* A parser's kept keys; static const data. */
struct pw_kvfile {
	const struct pw_kvfile_key *keys; /* indexed by field, count entries */
	const unsigned char *sorted;      /* the fields ordered by (name length, name) */
	unsigned count;                   /* at most 32: present is a 32-bit mask */
	char key_suffix;                  /* ':' when every key token ends with it (meminfo), else 0 */
};

/* Parse buf[0..len): each line a key token, then a number; the value of a kept key goes to
 * values[field] (count entries, left alone for keys not seen) and sets bit (1u << field) in
 * *ret_present. Unknown keys are skipped, but their line must still carry a number. Returns 0,
 * -EINVAL (empty, malformed) or -ERANGE (a kept value overflows); on error the outputs hold what was
 * parsed so far. Thread-safe. */
int pw_kvfile_parse(const struct pw_kvfile *table, const char *buf, size_t len, uint64_t *values,
                    uint32_t *ret_present);

#endif
