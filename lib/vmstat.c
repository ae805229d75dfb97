/* vmstat.c — parser for /proc/vmstat ("<key> <value>" per line, ~190 lines on 6.x kernels).
 *
 * Kernel source: mm/vmstat.c vmstat_text[] (no formal doc). Quirks: workingset_refault and
 * workingset_activate became _anon/_file pairs in 5.9; pgscan_* and pgsteal_* were per zone
 * ("pgscan_kswapd_normal") before 4.8 and are then simply absent here; a node counter that drifts
 * below zero prints as a value near 2^64. The file is read every second, so keys are found by
 * binary search in a table sorted by (length, name), not by comparing each line with every key. */
#include "vmstat.h"

#include "scan.h"

#include <errno.h>
#include <string.h>

_Static_assert(PW_VM_COUNT <= 32, "present is a 32-bit mask");

/* clang-format off */
#define KEY(s) { s, sizeof(s) - 1 }
/* clang-format on */

static const struct {
	const char *name;
	size_t len;
} vm_keys[PW_VM_COUNT] = {
        [PW_VM_PSWPIN] = KEY("pswpin"),
        [PW_VM_PSWPOUT] = KEY("pswpout"),
        [PW_VM_PGPGIN] = KEY("pgpgin"),
        [PW_VM_PGPGOUT] = KEY("pgpgout"),
        [PW_VM_PGFAULT] = KEY("pgfault"),
        [PW_VM_PGMAJFAULT] = KEY("pgmajfault"),
        [PW_VM_WORKINGSET_REFAULT] = KEY("workingset_refault"),
        [PW_VM_WORKINGSET_REFAULT_ANON] = KEY("workingset_refault_anon"),
        [PW_VM_WORKINGSET_REFAULT_FILE] = KEY("workingset_refault_file"),
        [PW_VM_WORKINGSET_ACTIVATE_FILE] = KEY("workingset_activate_file"),
        [PW_VM_PGSCAN_KSWAPD] = KEY("pgscan_kswapd"),
        [PW_VM_PGSCAN_DIRECT] = KEY("pgscan_direct"),
        [PW_VM_PGSTEAL_KSWAPD] = KEY("pgsteal_kswapd"),
        [PW_VM_PGSTEAL_DIRECT] = KEY("pgsteal_direct"),
        [PW_VM_OOM_KILL] = KEY("oom_kill"),
};

/* The fields ordered by (name length, name); the unit test looks every name up, so a misplaced
 * entry fails it. */
static const unsigned char vm_sorted[PW_VM_COUNT] = {
        PW_VM_PGPGIN,
        PW_VM_PSWPIN,
        PW_VM_PGFAULT,
        PW_VM_PGPGOUT,
        PW_VM_PSWPOUT,
        PW_VM_OOM_KILL,
        PW_VM_PGMAJFAULT,
        PW_VM_PGSCAN_DIRECT,
        PW_VM_PGSCAN_KSWAPD,
        PW_VM_PGSTEAL_DIRECT,
        PW_VM_PGSTEAL_KSWAPD,
        PW_VM_WORKINGSET_REFAULT,
        PW_VM_WORKINGSET_REFAULT_ANON,
        PW_VM_WORKINGSET_REFAULT_FILE,
        PW_VM_WORKINGSET_ACTIVATE_FILE,
};

const char *pw_vmstat_field_name(enum pw_vmstat_field field)
{
	return (unsigned)field < PW_VM_COUNT ? vm_keys[field].name : "unknown";
}

/* Order by length, then bytes: most lines of the file have a length none of our keys has, so the
 * search usually ends on integer compares without touching memcmp. */
static int key_cmp(const char *key, size_t len, unsigned field)
{
	if (len != vm_keys[field].len)
		return len < vm_keys[field].len ? -1 : 1;
	return memcmp(key, vm_keys[field].name, len);
}

/* The field named key[0..len), or -1. */
static int vm_lookup(const char *key, size_t len)
{
	size_t lo = 0, hi = PW_VM_COUNT;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(key, len, vm_sorted[mid]);

		if (c == 0)
			return vm_sorted[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* One "<key> <value>" line; the cursor ends at the next line. */
static int vm_parse_line(struct pw_scan *scan, struct pw_vmstat *vm)
{
	const char *key;
	size_t key_len;
	uint64_t value;

	if (pw_scan_token(scan, &key, &key_len) < 0)
		return -EINVAL;
	int field = vm_lookup(key, key_len);
	int r = pw_scan_u64(scan, &value);

	/* Every line must carry a number, but only a kept counter may fail the file on overflow. */
	if (r == -EINVAL || (r == -ERANGE && field >= 0))
		return r;
	if (r == 0 && field >= 0) {
		vm->value[field] = value;
		vm->present |= 1u << field;
	}
	pw_scan_next_line(scan);
	return 0;
}

int pw_vmstat_parse(const char *buf, size_t len, struct pw_vmstat *ret)
{
	struct pw_vmstat vm = {0};
	struct pw_scan scan;

	/* An empty read is a failed source, not a kernel without counters. */
	if (len == 0)
		return -EINVAL;
	pw_scan_init(&scan, buf, len);
	while (!pw_scan_eof(&scan)) {
		int r = vm_parse_line(&scan, &vm);

		if (r < 0)
			return r;
	}
	*ret = vm;
	return 0;
}
