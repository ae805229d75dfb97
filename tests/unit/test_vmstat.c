/* test_vmstat.c — pw_vmstat_parse over real captures, quirk files and broken input. */
#include "fixture_util.h"
#include "vmstat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIT(f) (1u << (f))
#define ALL_FIELDS ((1u << PW_VM_COUNT) - 1)
/* 5.9+ kernels print the _anon/_file split instead of the single refault counter. */
#define MODERN_FIELDS (ALL_FIELDS & ~BIT(PW_VM_WORKINGSET_REFAULT))

PW_TEST_PARSER_WRAPPERS(struct pw_vmstat, pw_vmstat_parse)

START_TEST(test_field_names_round_trip)
{
	/* Also proves the binary-search table is in strcmp order: every name must be found. */
	for (int f = 0; f < PW_VM_COUNT; f++) {
		char line[64];
		struct pw_vmstat vm;

		snprintf(line, sizeof(line), "%s %d\n", pw_vmstat_field_name(f), 7000 + f);
		ck_assert_int_eq(parse_str(line, &vm), 0);
		ck_assert_msg(vm.present == BIT(f), "field %s not found", pw_vmstat_field_name(f));
		ck_assert_uint_eq(vm.value[f], 7000 + f);
	}
	ck_assert_str_eq(pw_vmstat_field_name(PW_VM_PGMAJFAULT), "pgmajfault");
	ck_assert_str_eq(pw_vmstat_field_name(PW_VM_COUNT), "unknown");
}
END_TEST

START_TEST(test_near_miss_keys_ignored)
{
	struct pw_vmstat vm;

	/* The keys around ours in a real file: prefixes and extensions are other counters. */
	ck_assert_int_eq(parse_str("pgscan_kswapd_normal 5\npgscan_direct_throttle 6\npgsteal 7\npgpg 8\n"
	                           "workingset_refault_x 9\nworkingset_activate_anon 10\npswp 11\n"
	                           "PGFAULT 12\na 1\nzzz 2\noom_kill 3\n",
	                           &vm),
	                 0);
	ck_assert_uint_eq(vm.present, BIT(PW_VM_OOM_KILL));
	ck_assert_uint_eq(vm.value[PW_VM_OOM_KILL], 3);
}
END_TEST

START_TEST(test_format_variants)
{
	static const char nul[] = "pgfault 1\0 junk\npgmajfault 2\n";
	struct pw_vmstat vm;

	/* No final newline, tabs, extra columns. */
	ck_assert_int_eq(parse_str("pswpin\t4 extra\npswpout 5", &vm), 0);
	ck_assert_uint_eq(vm.present, BIT(PW_VM_PSWPIN) | BIT(PW_VM_PSWPOUT));
	ck_assert_uint_eq(vm.value[PW_VM_PSWPIN], 4);
	ck_assert_uint_eq(vm.value[PW_VM_PSWPOUT], 5);
	/* An embedded NUL is just a byte: the parser goes by length. */
	ck_assert_int_eq(parse_exact(nul, sizeof(nul) - 1, &vm), 0);
	ck_assert_uint_eq(vm.value[PW_VM_PGFAULT], 1);
	ck_assert_uint_eq(vm.value[PW_VM_PGMAJFAULT], 2);
	/* A file of counters we do not keep is valid and has nothing present. */
	ck_assert_int_eq(parse_str("nr_free_pages 1\n", &vm), 0);
	ck_assert_uint_eq(vm.present, 0);
}
END_TEST

START_TEST(test_quirk_pre_5_9)
{
	struct pw_vmstat vm = parse_fixture("quirks/vmstat-pre-5.9/vmstat");

	ck_assert_uint_eq(vm.present, ALL_FIELDS & ~(BIT(PW_VM_WORKINGSET_REFAULT_ANON) |
	                                             BIT(PW_VM_WORKINGSET_REFAULT_FILE) |
	                                             BIT(PW_VM_WORKINGSET_ACTIVATE_FILE)));
	ck_assert_uint_eq(vm.value[PW_VM_WORKINGSET_REFAULT], 48211932);
	ck_assert_uint_eq(vm.value[PW_VM_WORKINGSET_REFAULT_ANON], 0);
	ck_assert_uint_eq(vm.value[PW_VM_PSWPIN], 10922361);
	ck_assert_uint_eq(vm.value[PW_VM_PSWPOUT], 21187029);
	ck_assert_uint_eq(vm.value[PW_VM_PGSCAN_KSWAPD], 402118836);
	ck_assert_uint_eq(vm.value[PW_VM_PGSTEAL_DIRECT], 17223410);
	ck_assert_uint_eq(vm.value[PW_VM_OOM_KILL], 3);
}
END_TEST

START_TEST(test_quirk_huge_counter)
{
	struct pw_vmstat vm = parse_fixture("quirks/vmstat-huge-counter/vmstat");

	ck_assert_uint_eq(vm.present, MODERN_FIELDS);
	ck_assert_uint_eq(vm.value[PW_VM_PGFAULT], UINT64_MAX);
	ck_assert_uint_eq(vm.value[PW_VM_PGMAJFAULT], 18446744073709551000u);
	ck_assert_uint_eq(vm.value[PW_VM_PGPGIN], 1268933);
}
END_TEST

START_TEST(test_malformed_inputs)
{
	static const char *const bad[] = {
	        "",
	        "\n",
	        "garbage\n",
	        "pgfault\n",
	        "pgfault x\n",
	        "pgfault -5\n",
	        "nr_free_pages\n", /* unknown key, but still a line without a number */
	        "pgfault 1\n\npgmajfault 2\n",
	        " \n",
	};

	pw_test_each_refused(parse_result, bad, sizeof(bad) / sizeof(bad[0]));
}
END_TEST

START_TEST(test_overflow)
{
	struct pw_vmstat vm;

	ck_assert_int_eq(parse_str("pgfault 18446744073709551616\n", &vm), -ERANGE);
	ck_assert_int_eq(parse_str("oom_kill 99999999999999999999999\n", &vm), -ERANGE);
	/* An overflow in a counter we do not keep does not fail the sample. */
	ck_assert_int_eq(parse_str("nr_isolated_anon 18446744073709551616\npgfault 1\n", &vm), 0);
	ck_assert_uint_eq(vm.present, BIT(PW_VM_PGFAULT));
}
END_TEST

START_TEST(test_output_untouched_on_error)
{
	struct pw_vmstat vm, before;

	memset(&vm, 0xa5, sizeof(vm));
	memcpy(&before, &vm, sizeof(vm));
	ck_assert_int_eq(parse_str("pgfault 1\npgmajfault\n", &vm), -EINVAL);
	ck_assert_mem_eq(&vm, &before, sizeof(vm));
	ck_assert_int_eq(parse_str("pgfault 1\npswpin 18446744073709551616\n", &vm), -ERANGE);
	ck_assert_mem_eq(&vm, &before, sizeof(vm));
}
END_TEST

/* A prefix only loses counters, and a cut number only loses digits. */
static int parse_prefix(const char *buf, size_t len, void *ret, const void *whole)
{
	struct pw_vmstat *part = ret;
	const struct pw_vmstat *full = whole;
	int r = pw_vmstat_parse(buf, len, part);

	if (r < 0)
		return r;
	ck_assert_uint_eq(part->present & ~full->present, 0);
	for (int f = 0; f < PW_VM_COUNT; f++)
		if (part->present & BIT(f))
			ck_assert_uint_le(part->value[f], full->value[f]);
	return r;
}

START_TEST(test_truncated_every_offset)
{
	static const char relpath[] = "kernels/vm-2cpu-idle-1/proc/vmstat";
	size_t len;
	char *buf = pw_fixture_read(relpath, &len);
	struct pw_vmstat full, part;

	ck_assert_int_eq(parse_exact(buf, len, &full), 0);
	pw_test_every_prefix(relpath, buf, len, parse_prefix, &part, &full);
	ck_assert_uint_eq(part.present, full.present);
	ck_assert_mem_eq(part.value, full.value, sizeof(full.value));
	free(buf);
}
END_TEST

START_TEST(test_random_garbage)
{
	static const char alphabet[] = "pgfaultswinomk_r 0123456789\n\t\0\xff";

	pw_test_random_garbage(parse_result, alphabet, sizeof(alphabet) - 1, 4242, 160, 20000);
}
END_TEST

START_TEST(test_vm_2cpu_idle_1_values)
{
	struct pw_vmstat vm = parse_fixture("kernels/vm-2cpu-idle-1/proc/vmstat");

	ck_assert_uint_eq(vm.present, MODERN_FIELDS);
	ck_assert_uint_eq(vm.value[PW_VM_PSWPIN], 0);
	ck_assert_uint_eq(vm.value[PW_VM_PSWPOUT], 0);
	ck_assert_uint_eq(vm.value[PW_VM_PGPGIN], 1268933);
	ck_assert_uint_eq(vm.value[PW_VM_PGPGOUT], 2260112);
	ck_assert_uint_eq(vm.value[PW_VM_PGFAULT], 1716858);
	ck_assert_uint_eq(vm.value[PW_VM_PGMAJFAULT], 962);
	ck_assert_uint_eq(vm.value[PW_VM_WORKINGSET_REFAULT_ANON], 0);
	ck_assert_uint_eq(vm.value[PW_VM_WORKINGSET_REFAULT_FILE], 30750);
	ck_assert_uint_eq(vm.value[PW_VM_WORKINGSET_ACTIVATE_FILE], 975);
	ck_assert_uint_eq(vm.value[PW_VM_PGSCAN_KSWAPD], 0);
	ck_assert_uint_eq(vm.value[PW_VM_PGSTEAL_DIRECT], 0);
	ck_assert_uint_eq(vm.value[PW_VM_OOM_KILL], 0);
}
END_TEST

START_TEST(test_host_16cpu_load_2_values)
{
	struct pw_vmstat vm = parse_fixture("kernels/host-16cpu-load-2/proc/vmstat");

	ck_assert_uint_eq(vm.present, MODERN_FIELDS);
	ck_assert_uint_eq(vm.value[PW_VM_PGPGIN], 768817);
	ck_assert_uint_eq(vm.value[PW_VM_PGPGOUT], 252);
	ck_assert_uint_eq(vm.value[PW_VM_PGFAULT], 479487);
	ck_assert_uint_eq(vm.value[PW_VM_PGMAJFAULT], 404);
}
END_TEST

static void check_capture(const char *id)
{
	struct pw_vmstat vm = parse_fixture(pw_fixture_kernel_path(id, "proc/vmstat"));
	const uint64_t *v = vm.value;

	ck_assert_msg(vm.present == MODERN_FIELDS, "%s: present %#x", id, vm.present);
	ck_assert_msg(v[PW_VM_PGMAJFAULT] <= v[PW_VM_PGFAULT], "%s: pgmajfault > pgfault", id);
	ck_assert_msg(v[PW_VM_PGSTEAL_KSWAPD] <= v[PW_VM_PGSCAN_KSWAPD], "%s: kswapd steal > scan", id);
	ck_assert_msg(v[PW_VM_PGSTEAL_DIRECT] <= v[PW_VM_PGSCAN_DIRECT], "%s: direct steal > scan", id);
	ck_assert_msg(v[PW_VM_PGFAULT] > 0, "%s: no page faults since boot", id);
}

START_TEST(test_every_capture)
{
	ck_assert_uint_gt(pw_fixture_each_kernel(check_capture), 0);
}
END_TEST

static Suite *vmstat_suite(void)
{
	Suite *s = suite_create("vmstat");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");
	TCase *kernels = tcase_create("kernels");

	tcase_add_test(core, test_field_names_round_trip);
	tcase_add_test(core, test_near_miss_keys_ignored);
	tcase_add_test(core, test_format_variants);
	tcase_add_test(core, test_quirk_pre_5_9);
	tcase_add_test(core, test_quirk_huge_counter);
	tcase_add_test(malformed, test_malformed_inputs);
	tcase_add_test(malformed, test_overflow);
	tcase_add_test(malformed, test_output_untouched_on_error);
	tcase_add_test(malformed, test_truncated_every_offset);
	tcase_add_test(malformed, test_random_garbage);
	tcase_add_test(kernels, test_vm_2cpu_idle_1_values);
	tcase_add_test(kernels, test_host_16cpu_load_2_values);
	tcase_add_test(kernels, test_every_capture);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	suite_add_tcase(s, kernels);
	return s;
}

int main(void)
{
	return pw_run_suite(vmstat_suite());
}
