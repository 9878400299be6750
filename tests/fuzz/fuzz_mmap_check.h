/* fuzz_mmap_check.h - runs mmap_normalise() (boot/mmap.h) on raw ranges and checks its promises against a simple reference, for the memory-map harnesses.
 *
 * Header-only: fuzz_efi_mmap.c and fuzz_mb2.c include it once each. The
 * reference decides the type of every elementary interval between raw range
 * boundaries by brute force, as mmap.h describes it: usable RAM trimmed
 * inwards to pages, everything else widened outwards, an end past 2^64
 * clipped, and where ranges overlap the most restrictive type wins. */
#ifndef QB_TESTS_FUZZ_MMAP_CHECK_H
#define QB_TESTS_FUZZ_MMAP_CHECK_H

#include <stdint.h>

#include "boot_info.h"
#include "fuzz.h"
#include "mmap.h"

#define FMC_MAX_RAW 2048               /* raw ranges the check takes */
#define FMC_PAGE_MASK (MMAP_PAGE - 1)
#define FMC_TOP (~0ull & ~FMC_PAGE_MASK) /* where a wrapping range is clipped */

/* mmap.h's order: unusable > reserved > MMIO > firmware > ACPI NVS > ACPI reclaim > loader > usable. */
static int fmc_priority(uint32_t type)
{
	switch (type) {
	case BOOT_MEM_USABLE: return 1;
	case BOOT_MEM_LOADER: return 2;
	case BOOT_MEM_ACPI_RECLAIM: return 3;
	case BOOT_MEM_ACPI_NVS: return 4;
	case BOOT_MEM_FW_DATA: return 5;
	case BOOT_MEM_FW_CODE: return 6;
	case BOOT_MEM_PERSISTENT: return 7;
	case BOOT_MEM_SPECIFIC: return 7;
	case BOOT_MEM_NOT_WB: return 7;
	case BOOT_MEM_MMIO: return 8;
	case BOOT_MEM_MMIO_RUNTIME: return 8;
	case BOOT_MEM_UNUSABLE: return 10;
	default: return 9;             /* reserved, and unknown types like it */
	}
}

/* One raw range after alignment: [base, end), empty when end <= base. */
struct fmc_span {
	uint64_t base, end;
	uint32_t type;
};

static void fmc_align(const struct boot_mem_range *r, struct fmc_span *s)
{
	uint64_t base = r->base, end = r->base + r->length;

	s->type = r->type;
	if (!r->length) {
		s->base = s->end = 0;
		return;
	}
	if (end < base)
		end = FMC_TOP;
	if (r->type == BOOT_MEM_USABLE) {
		base = (base + FMC_PAGE_MASK) & ~FMC_PAGE_MASK;
		if (base < r->base)        /* rounding up wrapped: nothing left */
			base = ~0ull;
		end &= ~FMC_PAGE_MASK;
	} else {
		base &= ~FMC_PAGE_MASK;
		end = end > ~0ull - MMAP_PAGE ? end & ~FMC_PAGE_MASK
					      : (end + FMC_PAGE_MASK) & ~FMC_PAGE_MASK;
	}
	s->base = base;
	s->end = end;
}

/* The output range holding address a, or -1. */
static int fmc_find(const struct boot_mem_range *out, uint32_t n, uint64_t a)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a < out[mid].base)
			hi = mid;
		else if (a - out[mid].base >= out[mid].length)
			lo = mid + 1;
		else
			return (int)mid;
	}
	return -1;
}

/* The shape mmap.h promises: sorted, non-overlapping, page-aligned, merged, within max. */
static void fmc_check_shape(const struct boot_mem_range *out, uint32_t n, uint32_t max)
{
	FUZZ_ASSERT(n <= max);
	for (uint32_t i = 0; i < n; i++) {
		const struct boot_mem_range *r = &out[i];

		FUZZ_ASSERT(r->length > 0);
		FUZZ_ASSERT(((r->base | r->length) & FMC_PAGE_MASK) == 0);
		FUZZ_ASSERT(r->base + r->length > r->base);  /* ends below 2^64 */
		FUZZ_ASSERT(r->type != 0 && r->pad == 0);
		if (i == 0)
			continue;
		FUZZ_ASSERT(out[i - 1].base + out[i - 1].length <= r->base);
		FUZZ_ASSERT(!(out[i - 1].base + out[i - 1].length == r->base &&
			      out[i - 1].type == r->type));
	}
}

/*
 * Normalise raw[0..n) into out[0..max) and check the result against the
 * reference; raw is left as mmap_normalise() left it. Returns the count.
 */
static uint32_t fmc_normalise_and_check(struct boot_mem_range *raw, uint32_t n,
					struct boot_mem_range *out, uint32_t max)
{
	static struct fmc_span span[FMC_MAX_RAW];
	static uint64_t bound[2 * FMC_MAX_RAW];
	static struct boot_mem_range again[QB_MAX_MEM_RANGES + 1];
	struct mmap_stats st, st2;
	uint32_t count, nb = 0, count2;
	uint64_t limit;

	FUZZ_ASSERT(n <= FMC_MAX_RAW);
	for (uint32_t i = 0; i < n; i++) {
		fmc_align(&raw[i], &span[i]);
		if (span[i].end > span[i].base) {
			bound[nb++] = span[i].base;
			bound[nb++] = span[i].end;
		}
	}
	memset(&st, 0xa5, sizeof(st));
	count = mmap_normalise(raw, n, out, max, &st);
	fmc_check_shape(out, count, max);
	FUZZ_ASSERT(st.dropped == 0 || count == max);
	FUZZ_ASSERT(mmap_normalise(raw, 0, out + count, 0, NULL) == 0);

	/* Every elementary interval below the last kept byte has the reference type. */
	limit = count ? out[count - 1].base + out[count - 1].length : 0;
	if (!st.dropped)
		limit = ~0ull;
	for (uint32_t b = 0; b < nb; b++) {
		uint64_t a = bound[b];
		int best = 0, at;

		if (a >= limit)
			continue;
		for (uint32_t i = 0; i < n; i++)
			if (span[i].base <= a && a < span[i].end && fmc_priority(span[i].type) > best)
				best = fmc_priority(span[i].type);
		at = fmc_find(out, count, a);
		if (!best) {
			FUZZ_ASSERT(at < 0);
			continue;
		}
		FUZZ_ASSERT(at >= 0 && fmc_priority(out[at].type) == best);
		for (uint32_t i = 0; i < n; i++)
			if (span[i].base <= a && a < span[i].end && span[i].type == out[at].type)
				best = -1;
		FUZZ_ASSERT(best == -1);  /* the type came from a range covering a */
	}

	/* A normalised map is a fixed point. */
	if (count <= QB_MAX_MEM_RANGES) {
		static struct boot_mem_range copy[QB_MAX_MEM_RANGES];

		memcpy(copy, out, count * sizeof(*out));
		count2 = mmap_normalise(copy, count, again, QB_MAX_MEM_RANGES + 1, &st2);
		FUZZ_ASSERT(count2 == count && !memcmp(again, out, count * sizeof(*out)));
		FUZZ_ASSERT(st2.overlaps == 0 && st2.unaligned == 0 && st2.wrapped == 0 &&
			    st2.empty == 0 && st2.dropped == 0);
	}
	return count;
}

#endif
