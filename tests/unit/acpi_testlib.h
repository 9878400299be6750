/* acpi_testlib.h - what the ACPI host test programs (test_acpi.c, test_acpi_bad.c, test_acpi_files.c) share: the q35 layouts they build, CHECK helpers over their parse result, and table-damaging helpers.
 *
 * Include after check.h: CHECK_EQ_I and CHECK_ERR use its per-program
 * counters, and CHECK_ERR reads the including file's `info`. */
#ifndef QB_TESTS_ACPI_TESTLIB_H
#define QB_TESTS_ACPI_TESTLIB_H

#include <stdbool.h>
#include <stdint.h>

#include "acpi_fixture.h"

#define MIB (1024ull * 1024)

/* Layouts for fx_build_q35() (acpi_testlib.c). */
extern const struct fx_q35 smp1, smp4, smp8_numa2, x2apic300, smp4_max8;

/* Compare two signed integers (return codes, node numbers) and print both on failure. */
#define CHECK_EQ_I(a, b)                                                       \
	do {                                                                   \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
		if (check_a_ != check_b_) {                                    \
			printf("  FAIL %s:%d: %s: %s == %s (%lld != %lld)\n",  \
			       __FILE__, __LINE__, check_cur_name, #a, #b,     \
			       check_a_, check_b_);                            \
			check_cur_failed = 1;                                  \
		}                                                              \
	} while (0)

/* Check error i exactly: signature, message and context value. */
#define CHECK_ERR(i, sig_, msg_, value_)                                       \
	do {                                                                   \
		CHECK(info.n_errors > (i));                                    \
		if (info.n_errors > (i)) {                                     \
			CHECK_STR(info.errors[i].sig, sig_);                   \
			CHECK_STR(info.errors[i].msg, msg_);                   \
			CHECK_EQ_U(info.errors[i].value, value_);              \
		}                                                              \
	} while (0)

/* Flip one bit of the byte at off in the region at phys. */
void flip(uint64_t phys, uint32_t off);

/* Set the header length of the table at phys, checksum fixed or not. */
void set_len(uint64_t phys, uint32_t len, bool fix);

#endif
