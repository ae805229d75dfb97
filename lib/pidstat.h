/* pidstat.h — parser for one /proc/[pid]/stat: who a process is and the CPU time it used.
 *
 * Kernel doc: Documentation/filesystems/proc.rst (Table 1-4); fs/proc/array.c do_task_stat() prints
 * "%d (%s) %c" then the numeric fields. comm is any bytes the task chose (prctl PR_SET_NAME): it may
 * hold spaces, parentheses and ") ", so the fields after it are found from the LAST ')'. */
#ifndef PW_PIDSTAT_H
#define PW_PIDSTAT_H

#include "pw_types.h"

#define PW_COMM_MAX 32 /* TASK_COMM_LEN is 16; workqueue workers print longer names */

struct pw_pidstat {
	int32_t pid;
	char comm[PW_COMM_MAX]; /* NUL-terminated, truncated */
	char state;             /* R, S, D, Z, ... */
	uint64_t utime, stime;  /* fields 14, 15: USER_HZ ticks */
	uint64_t starttime;     /* field 22: ticks after boot; with pid, who this is (pids are reused) */
};

/* Parse the content of one /proc/[pid]/stat. Returns 0; -EINVAL when malformed or cut short
 * (fewer than 22 fields, no "(comm)"); -ERANGE when a number does not fit. ret is untouched on
 * failure. Thread-safe. */
int pw_pidstat_parse(const char *buf, size_t len, struct pw_pidstat *ret);

#endif
