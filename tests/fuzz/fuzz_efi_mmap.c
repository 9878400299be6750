/* fuzz_efi_mmap.c - libFuzzer harness for the UEFI memory-map path: efi_mmap_convert() then mmap_normalise() (UEFI 2.10 §7.2.3; boot/efi_mmap.h, boot/mmap.h).
 *
 * Input: u32 DescriptorSize, u16 raw[] capacity (at most RAW_MAX), u16 out[]
 * capacity (at most QB_MAX_MEM_RANGES), then the GetMemoryMap() buffer, which
 * is copied to an exact-size heap block so ASan sees any read past it. The
 * seeds hold real OVMF maps (DescriptorSize 48). */
#include "efi_mmap.h"
#include "fuzz.h"
#include "fuzz_mmap_check.h"
#include "mmap.h"

/* ---- Constants ---------------------------------------------------------- */

#define HEAD_LEN 8
#define RAW_MAX 1024

/* ---- Private Variables -------------------------------------------------- */

static struct boot_mem_range raw[RAW_MAX + 1], out[QB_MAX_MEM_RANGES + 1];

/* ---- Public Functions --------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = fuzz_in(data, size);
	size_t desc_size = (size_t)fuzz_le(&in, 4);
	uint32_t raw_cap = (uint32_t)fuzz_le(&in, 2), out_cap = (uint32_t)fuzz_le(&in, 2);
	size_t map_size = fuzz_left(&in), descs = 0, zero = 0, accepted = 0;
	struct efi_mmap_result r;
	uint8_t *map;

	raw_cap = raw_cap < RAW_MAX ? raw_cap : RAW_MAX;
	out_cap = out_cap < QB_MAX_MEM_RANGES ? out_cap : QB_MAX_MEM_RANGES;
	map = malloc(map_size ? map_size : 1);
	if (!map)
		return 0;
	memcpy(map, data + (size < HEAD_LEN ? size : HEAD_LEN), map_size);

	/* A sentinel past raw_cap shows any write beyond it. */
	memset(raw, 0xa5, sizeof(raw));
	r = efi_mmap_convert(map, map_size, desc_size, raw, raw_cap);
	for (size_t k = 0; k < sizeof(raw[0]); k++)
		FUZZ_ASSERT(((uint8_t *)&raw[raw_cap])[k] == 0xa5);

	if (desc_size < sizeof(struct efi_mem_desc) || desc_size % 8) {
		FUZZ_ASSERT(r.error == -1 && r.count == 0 && r.dropped == 0 && r.bad == 0);
		free(map);
		return 0;
	}
	FUZZ_ASSERT(r.error == 0 && r.count <= raw_cap);
	FUZZ_ASSERT(r.dropped == 0 || r.count == raw_cap);

	/* Walk the map the way the spec says and compare, descriptor by descriptor. */
	for (size_t off = 0; map_size >= sizeof(struct efi_mem_desc) &&
			     off <= map_size - sizeof(struct efi_mem_desc); off += desc_size) {
		struct efi_mem_desc d;

		memcpy(&d, map + off, sizeof(d));
		descs++;
		if (!d.pages) {
			zero++;
			continue;
		}
		/* The end (exclusive) must be a 64-bit number: 2^64 itself is bad too. */
		if ((unsigned __int128)d.phys_start + (unsigned __int128)d.pages * EFI_MMAP_PAGE >
		    UINT64_MAX)
			continue;
		if (accepted < r.count) {
			const struct boot_mem_range *b = &raw[accepted];

			FUZZ_ASSERT(b->base == d.phys_start && b->length == d.pages * EFI_MMAP_PAGE);
			FUZZ_ASSERT(b->type == efi_mmap_type(d.type, d.attribute) && b->pad == 0);
		}
		accepted++;
	}
	FUZZ_ASSERT(r.count + r.dropped + r.bad + zero == descs);
	FUZZ_ASSERT(r.count + r.dropped == accepted);
	for (uint32_t i = 0; i < r.count; i++) {
		FUZZ_ASSERT(raw[i].type >= BOOT_MEM_USABLE && raw[i].type < BOOT_MEM_TYPE_COUNT);
		FUZZ_ASSERT(raw[i].base + raw[i].length - 1 >= raw[i].base);
	}

	fmc_normalise_and_check(raw, r.count, out, out_cap);
	free(map);
	return 0;
}
