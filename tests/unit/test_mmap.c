/* test_mmap.c - host tests of the memory-map normaliser (boot/mmap.c) and the UEFI conversion (boot/efi_mmap.c). */
#include "check.h"
#include "efi_mmap.h"
#include "mmap.h"

#define PG 4096ull

static struct boot_mem_range out[64];

static struct boot_mem_range R(uint64_t base, uint64_t len, uint32_t type)
{
	struct boot_mem_range r = { base, len, type, 0 };
	return r;
}

static int same(const struct boot_mem_range *r, uint64_t base, uint64_t len, uint32_t type)
{
	return r->base == base && r->length == len && r->type == type;
}

TEST(sorts_and_merges_adjacent_ranges_of_one_type)
{
	struct boot_mem_range raw[] = {
		R(0x200000, 0x100000, BOOT_MEM_USABLE),
		R(0x100000, 0x100000, BOOT_MEM_USABLE),
		R(0x300000, 0x1000, BOOT_MEM_ACPI_RECLAIM),
	};
	struct mmap_stats st;
	uint32_t n = mmap_normalise(raw, 3, out, 64, &st);
	CHECK_EQ_U(n, 2);
	CHECK(same(&out[0], 0x100000, 0x200000, BOOT_MEM_USABLE));
	CHECK(same(&out[1], 0x300000, 0x1000, BOOT_MEM_ACPI_RECLAIM));
	CHECK_EQ_U(st.overlaps, 0);
}

TEST(overlap_goes_to_the_more_restrictive_type)
{
	struct boot_mem_range raw[] = {
		R(0, 16 * PG, BOOT_MEM_USABLE),
		R(4 * PG, 2 * PG, BOOT_MEM_RESERVED),
		R(14 * PG, 4 * PG, BOOT_MEM_ACPI_NVS),
	};
	struct mmap_stats st;
	uint32_t n = mmap_normalise(raw, 3, out, 64, &st);
	CHECK_EQ_U(n, 4);
	CHECK(same(&out[0], 0, 4 * PG, BOOT_MEM_USABLE));
	CHECK(same(&out[1], 4 * PG, 2 * PG, BOOT_MEM_RESERVED));
	CHECK(same(&out[2], 6 * PG, 8 * PG, BOOT_MEM_USABLE));
	CHECK(same(&out[3], 14 * PG, 4 * PG, BOOT_MEM_ACPI_NVS));
	CHECK(st.overlaps >= 2);
	CHECK_EQ_U(mmap_total(out, n, BOOT_MEM_USABLE), 12 * PG);
}

TEST(usable_shrinks_inward_others_widen_outward)
{
	struct boot_mem_range raw[] = {
		R(0x1800, 0x3000, BOOT_MEM_USABLE),        /* -> [0x2000, 0x4000) */
		R(0x10800, 0x100, BOOT_MEM_RESERVED),      /* -> [0x10000, 0x11000) */
		R(0x20010, 0x10, BOOT_MEM_USABLE),         /* less than a page: gone */
	};
	struct mmap_stats st;
	uint32_t n = mmap_normalise(raw, 3, out, 64, &st);
	CHECK_EQ_U(n, 2);
	CHECK(same(&out[0], 0x2000, 0x2000, BOOT_MEM_USABLE));
	CHECK(same(&out[1], 0x10000, 0x1000, BOOT_MEM_RESERVED));
	CHECK_EQ_U(st.unaligned, 3);
	CHECK_EQ_U(st.empty, 1);
}

TEST(holes_stay_holes_and_empty_or_wrapping_entries_are_counted)
{
	struct boot_mem_range raw[] = {
		R(0, 0x1000, BOOT_MEM_USABLE),
		R(0x10000, 0, BOOT_MEM_USABLE),
		R(~0ull - 0x1fff, 0x10000, BOOT_MEM_RESERVED), /* wraps */
		R(0x100000, 0x1000, BOOT_MEM_USABLE),
	};
	struct mmap_stats st;
	uint32_t n = mmap_normalise(raw, 4, out, 64, &st);
	CHECK_EQ_U(st.empty, 1);
	CHECK_EQ_U(st.wrapped, 1);
	CHECK(n >= 2);
	CHECK(same(&out[0], 0, 0x1000, BOOT_MEM_USABLE));
	CHECK(same(&out[1], 0x100000, 0x1000, BOOT_MEM_USABLE));
	for (uint32_t i = 1; i < n; i++)
		CHECK(out[i - 1].base + out[i - 1].length <= out[i].base);
}

/* Found by tests/fuzz/fuzz_mb2 (tests/fuzz/regress/mb2/): rounding a usable base
 * in the last page up to a page wrapped to 0, making [0, 2^64 - 4 KiB) usable. */
TEST(usable_starting_in_the_last_page_is_empty_not_everything)
{
	struct boot_mem_range raw[] = {
		R(0x100000, 0x100000, BOOT_MEM_USABLE),
		R(~0ull - 0xfe, 0x9fc02, BOOT_MEM_USABLE),  /* in the last page, and wraps */
		R(~0ull - 0xffe, 0x800, BOOT_MEM_USABLE),   /* in the last page, no whole page */
	};
	struct mmap_stats st;
	uint32_t n = mmap_normalise(raw, 3, out, 64, &st);
	CHECK_EQ_U(n, 1);
	CHECK(same(&out[0], 0x100000, 0x100000, BOOT_MEM_USABLE));
	CHECK_EQ_U(st.empty, 2);
	CHECK_EQ_U(st.wrapped, 1);
}

TEST(output_overflow_is_counted_not_silent)
{
	struct boot_mem_range raw[8];
	for (int i = 0; i < 8; i++)
		raw[i] = R((uint64_t)i * 2 * PG, PG, i % 2 ? BOOT_MEM_USABLE : BOOT_MEM_RESERVED);
	struct mmap_stats st;
	uint32_t n = mmap_normalise(raw, 8, out, 5, &st);
	CHECK_EQ_U(n, 5);
	CHECK_EQ_U(st.dropped, 3);
}

TEST(efi_types_and_descriptor_stride)
{
	/* Firmware descriptors may be larger than the spec struct: 48 bytes here. */
	unsigned char map[48 * 4];
	memset(map, 0xee, sizeof(map));
	uint32_t types[4] = { EFI_MT_CONVENTIONAL, EFI_MT_BS_DATA, EFI_MT_RT_CODE, EFI_MT_ACPI_NVS };
	for (int i = 0; i < 4; i++) {
		struct efi_mem_desc d = { types[i], 0, (uint64_t)i * 0x10000, 0, 2, EFI_MMAP_ATTR_WB };
		memcpy(map + 48 * i, &d, sizeof(d));
	}
	struct boot_mem_range raw[4];
	struct efi_mmap_result r = efi_mmap_convert(map, sizeof(map), 48, raw, 4);
	CHECK_EQ_U(r.error, 0);
	CHECK_EQ_U(r.count, 4);
	CHECK(same(&raw[0], 0, 2 * PG, BOOT_MEM_USABLE));
	CHECK(same(&raw[1], 0x10000, 2 * PG, BOOT_MEM_USABLE)); /* boot services data is free after exit */
	CHECK(same(&raw[2], 0x20000, 2 * PG, BOOT_MEM_FW_CODE));
	CHECK(same(&raw[3], 0x30000, 2 * PG, BOOT_MEM_ACPI_NVS));
	CHECK_EQ_U(efi_mmap_type(EFI_MT_LOADER_DATA, EFI_MMAP_ATTR_WB), BOOT_MEM_LOADER);
	CHECK_EQ_U(efi_mmap_type(EFI_MT_UNACCEPTED, EFI_MMAP_ATTR_WB), BOOT_MEM_RESERVED);
	CHECK_EQ_U(efi_mmap_type(0x80000001u, EFI_MMAP_ATTR_WB), BOOT_MEM_RESERVED);
}

TEST(efi_attributes_decide_what_is_general_ram)
{
	const uint64_t ram = EFI_MMAP_ATTR_UC | EFI_MMAP_ATTR_WC | EFI_MMAP_ATTR_WT | EFI_MMAP_ATTR_WB;
	CHECK_EQ_U(efi_mmap_type(EFI_MT_CONVENTIONAL, ram), BOOT_MEM_USABLE);
	/* CXL or HBM the firmware marks specific-purpose: never handed out. */
	CHECK_EQ_U(efi_mmap_type(EFI_MT_CONVENTIONAL, ram | EFI_MMAP_ATTR_SP), BOOT_MEM_SPECIFIC);
	CHECK_EQ_U(efi_mmap_type(EFI_MT_BS_DATA, EFI_MMAP_ATTR_WB | EFI_MMAP_ATTR_SP), BOOT_MEM_SPECIFIC);
	/* RAM that may not be cached write-back: not general RAM either. */
	CHECK_EQ_U(efi_mmap_type(EFI_MT_CONVENTIONAL, EFI_MMAP_ATTR_UC), BOOT_MEM_NOT_WB);
	CHECK_EQ_U(efi_mmap_type(EFI_MT_BS_CODE, 0), BOOT_MEM_NOT_WB);
	/* The runtime services' MMIO (a flash or reset register), kept apart to be mapped. */
	CHECK_EQ_U(efi_mmap_type(EFI_MT_MMIO, EFI_MMAP_ATTR_UC | EFI_MMAP_ATTR_RUNTIME), BOOT_MEM_MMIO_RUNTIME);
	CHECK_EQ_U(efi_mmap_type(EFI_MT_MMIO, EFI_MMAP_ATTR_UC), BOOT_MEM_MMIO);

	/* In a map, each keeps its own type and never merges with usable RAM. */
	struct boot_mem_range raw[3] = {
		{ 0x100000, 0x100000, efi_mmap_type(EFI_MT_CONVENTIONAL, ram), 0 },
		{ 0x200000, 0x100000, efi_mmap_type(EFI_MT_CONVENTIONAL, ram | EFI_MMAP_ATTR_SP), 0 },
		{ 0x300000, 0x100000, efi_mmap_type(EFI_MT_CONVENTIONAL, EFI_MMAP_ATTR_UC), 0 },
	};
	struct mmap_stats st;
	uint32_t n = mmap_normalise(raw, 3, out, 8, &st);
	CHECK_EQ_U(n, 3);
	CHECK(same(&out[0], 0x100000, 0x100000, BOOT_MEM_USABLE));
	CHECK(same(&out[1], 0x200000, 0x100000, BOOT_MEM_SPECIFIC));
	CHECK(same(&out[2], 0x300000, 0x100000, BOOT_MEM_NOT_WB));
	CHECK_EQ_U(mmap_total(out, n, BOOT_MEM_USABLE), 0x100000);
}

TEST(efi_malformed_maps_are_rejected)
{
	unsigned char map[40] = { 0 };
	struct boot_mem_range raw[2];
	CHECK(efi_mmap_convert(map, sizeof(map), 24, raw, 2).error == -1); /* too small */
	CHECK(efi_mmap_convert(map, sizeof(map), 44, raw, 2).error == -1); /* not 8-aligned */
	struct efi_mem_desc d = { EFI_MT_CONVENTIONAL, 0, 0xfffffffffffff000ull, 0, 16, 0 };
	memcpy(map, &d, sizeof(d));
	struct efi_mmap_result r = efi_mmap_convert(map, sizeof(map), 40, raw, 2);
	CHECK_EQ_U(r.bad, 1);   /* page count overflows the address space */
	CHECK_EQ_U(r.count, 0);
	d.phys_start = 0;
	d.pages = 1;
	memcpy(map, &d, sizeof(d));
	r = efi_mmap_convert(map, sizeof(map), 40, raw, 0);
	CHECK_EQ_U(r.dropped, 1);
}

int main(void)
{
	RUN(sorts_and_merges_adjacent_ranges_of_one_type);
	RUN(overlap_goes_to_the_more_restrictive_type);
	RUN(usable_shrinks_inward_others_widen_outward);
	RUN(holes_stay_holes_and_empty_or_wrapping_entries_are_counted);
	RUN(usable_starting_in_the_last_page_is_empty_not_everything);
	RUN(output_overflow_is_counted_not_silent);
	RUN(efi_types_and_descriptor_stride);
	RUN(efi_malformed_maps_are_rejected);
	RUN(efi_attributes_decide_what_is_general_ram);
	return check_summary("mmap");
}
