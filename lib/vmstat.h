/* vmstat.h — parser for /proc/vmstat, the paging/swap/reclaim counters.
 *
 * Kernel doc: none formal; names from mm/vmstat.c vmstat_text[]. Quirks: workingset_refault was
 * split into _anon/_file in 5.9; pgscan/pgsteal are split by kswapd/direct/khugepaged (and
 * _anon/_file since 5.8); absent keys stay absent. Units: pages, except pgpgin/pgpgout (kB). */
#ifndef PW_VMSTAT_H
#define PW_VMSTAT_H

#include "pw_types.h"

enum pw_vmstat_field {
	PW_VM_PSWPIN,
	PW_VM_PSWPOUT,
	PW_VM_PGPGIN,
	PW_VM_PGPGOUT,
	PW_VM_PGFAULT,
	PW_VM_PGMAJFAULT,
	PW_VM_WORKINGSET_REFAULT, /* pre-5.9 single counter */
	PW_VM_WORKINGSET_REFAULT_ANON,
	PW_VM_WORKINGSET_REFAULT_FILE,
	PW_VM_WORKINGSET_ACTIVATE_FILE,
	PW_VM_PGSCAN_KSWAPD,
	PW_VM_PGSCAN_DIRECT,
	PW_VM_PGSTEAL_KSWAPD,
	PW_VM_PGSTEAL_DIRECT,
	PW_VM_OOM_KILL,
	PW_VM_COUNT
};

struct pw_vmstat {
	uint64_t value[PW_VM_COUNT];
	uint32_t present; /* bit (1u << field) when the key was seen */
};

/* The key as /proc/vmstat spells it ("pswpin"). */
const char *pw_vmstat_field_name(enum pw_vmstat_field field);

/* Parse /proc/vmstat content. Unknown keys are ignored. Returns 0, -EINVAL (a line without a
 * number) or -ERANGE. Thread-safe. */
int pw_vmstat_parse(const char *buf, size_t len, struct pw_vmstat *ret);

#endif
