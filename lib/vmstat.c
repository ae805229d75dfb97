/* vmstat.c — parser for /proc/vmstat ("<key> <value>" per line, ~190 lines on 6.x kernels).
 *
 * Kernel source: mm/vmstat.c vmstat_text[] (no formal doc). Quirks: workingset_refault and
 * workingset_activate became _anon/_file pairs in 5.9; pgscan_* and pgsteal_* were per zone
 * ("pgscan_kswapd_normal") before 4.8 and are then simply absent here; a node counter that drifts
 * below zero prints as a value near 2^64.
 * Keys are looked up and lines walked by kvfile.h. */
#include "vmstat.h"

#include "kvfile.h"

_Static_assert(PW_VM_COUNT <= 32, "present is a 32-bit mask");

static const struct pw_kvfile_key vm_keys[PW_VM_COUNT] = {
        [PW_VM_PSWPIN] = PW_KVFILE_KEY("pswpin"),
        [PW_VM_PSWPOUT] = PW_KVFILE_KEY("pswpout"),
        [PW_VM_PGPGIN] = PW_KVFILE_KEY("pgpgin"),
        [PW_VM_PGPGOUT] = PW_KVFILE_KEY("pgpgout"),
        [PW_VM_PGFAULT] = PW_KVFILE_KEY("pgfault"),
        [PW_VM_PGMAJFAULT] = PW_KVFILE_KEY("pgmajfault"),
        [PW_VM_WORKINGSET_REFAULT] = PW_KVFILE_KEY("workingset_refault"),
        [PW_VM_WORKINGSET_REFAULT_ANON] = PW_KVFILE_KEY("workingset_refault_anon"),
        [PW_VM_WORKINGSET_REFAULT_FILE] = PW_KVFILE_KEY("workingset_refault_file"),
        [PW_VM_WORKINGSET_ACTIVATE_FILE] = PW_KVFILE_KEY("workingset_activate_file"),
        [PW_VM_PGSCAN_KSWAPD] = PW_KVFILE_KEY("pgscan_kswapd"),
        [PW_VM_PGSCAN_DIRECT] = PW_KVFILE_KEY("pgscan_direct"),
        [PW_VM_PGSTEAL_KSWAPD] = PW_KVFILE_KEY("pgsteal_kswapd"),
        [PW_VM_PGSTEAL_DIRECT] = PW_KVFILE_KEY("pgsteal_direct"),
        [PW_VM_OOM_KILL] = PW_KVFILE_KEY("oom_kill"),
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

static const struct pw_kvfile vm_table = {
        .keys = vm_keys, .sorted = vm_sorted, .count = PW_VM_COUNT, .key_suffix = 0};

int pw_vmstat_parse(const char *buf, size_t len, struct pw_vmstat *ret)
{
	struct pw_vmstat parsed = {0};
	int r = pw_kvfile_parse(&vm_table, buf, len, parsed.value, &parsed.present);

	if (r < 0)
		return r;
	*ret = parsed;
	return 0;
}
