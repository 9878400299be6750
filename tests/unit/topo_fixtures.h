/* topo_fixtures.h - CPUID tables of real and modelled parts for the topology
 * tests, with the emulator that replays them, values derived from the field
 * definitions of the Intel SDM vol. 2A (CPUID) and the AMD APM vol. 3 / PPRs.
 *
 * A model lists (leaf, subleaf, EAX, EBX, ECX, EDX) as a CPU of that kind
 * answers for its BSP. Within one model only the APIC ID differs between
 * CPUs, so a fixture CPU is (APIC ID, model): the test's CPUID emulator
 * writes the APIC ID into leaf 1 EBX[31:24], 0xB / 0x1F EDX, 0x8000001E EAX
 * and the CoreId of 0x8000001E EBX[7:0]. Subleaves a model does not list read
 * as zeros, except that 0xB / 0x1F echo the subleaf in ECX[7:0] as hardware
 * does. Leaf 4 / 0x8000001D fields: EAX = type | level << 5 | self-init 0x100
 * | (sharing IDs - 1) << 14 | (cores - 1) << 26, EBX = (line - 1) |
 * (partitions - 1) << 12 | (ways - 1) << 22, ECX = sets - 1.
 */
#ifndef QB_TESTS_TOPO_FIXTURES_H
#define QB_TESTS_TOPO_FIXTURES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "cpuid_snap.h"
#include "lib.h"
#include "topo.h"

struct fx_leaf {
	uint32_t leaf, sub, eax, ebx, ecx, edx;
};

struct fx_model {
	const char *name;
	const struct fx_leaf *leaves;
	size_t n;
};

#define FX_MODEL(name, arr) { name, arr, sizeof(arr) / sizeof((arr)[0]) }

/* Vendor strings as EBX, ECX, EDX of leaf 0 / 0x80000000. */
#define FX_INTEL 0x756e6547, 0x6c65746e, 0x49656e69 /* "Genu" "ntel" "ineI" */
#define FX_AMD	 0x68747541, 0x444d4163, 0x69746e65 /* "Auth" "cAMD" "enti" */
#define FX_HYGON 0x6f677948, 0x656e6975, 0x6e65476e /* "Hygo" "uine" "nGen" */

/*
 * 1. Intel Core i5-6600 (Skylake-S): one package, 4 cores, no SMT. The SMT
 * field still exists (0xB level 0 shift 1), so APIC IDs are 0, 2, 4, 6.
 * L1d/L1i 32 KiB 8-way and L2 256 KiB 4-way per core (2 IDs share), L3
 * 6 MiB 12-way inclusive shared by all (16 IDs).
 */
static const struct fx_leaf fx_skylake[] = {
	{ 0x0, 0, 0x00000016, FX_INTEL },
	{ 0x1, 0, 0x000506e3, 0x00100800, 0x7ffafbbf, 0xbfebfbff },
	{ 0x4, 0, 0x1c004121, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 1, 0x1c004122, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 2, 0x1c004143, 0x00c0003f, 0x000003ff, 0x00000000 },
	{ 0x4, 3, 0x1c03c163, 0x02c0003f, 0x00001fff, 0x00000006 },
	{ 0x6, 0, 0x000027f7, 0x00000002, 0x00000009, 0x00000000 },
	{ 0x7, 0, 0x00000000, 0x029c6fbf, 0x00000000, 0x9c000000 },
	{ 0xb, 0, 0x00000001, 0x00000001, 0x00000100, 0 },
	{ 0xb, 1, 0x00000004, 0x00000004, 0x00000201, 0 },
	{ 0x15, 0, 0x00000002, 0x0000011a, 0x00000000, 0 },
	{ 0x16, 0, 0x00000ce4, 0x00000f3c, 0x00000064, 0 },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
	{ 0x80000001, 0, 0, 0, 0x00000121, 0x2c100800 },
	{ 0x80000002, 0, 0x65746e49, 0x2952286c, 0x726f4320, 0x4d542865 },
	{ 0x80000003, 0, 0x35692029, 0x3036362d, 0x50432030, 0x20402055 },
	{ 0x80000004, 0, 0x30332e33, 0x007a4847, 0x00000000, 0x00000000 },
	{ 0x80000006, 0, 0, 0, 0x01006040, 0 },
	{ 0x80000007, 0, 0, 0, 0, 0x00000100 },
	{ 0x80000008, 0, 0x00003027, 0, 0, 0 },
};

/*
 * 2. Intel Xeon E5-2637 (Sandy Bridge-EP) in two sockets, 2 cores x 2
 * threads each: 0xB shifts 1 (SMT) and 2 (package), APIC IDs 0-7. L1d/L1i
 * 32 KiB and L2 256 KiB 8-way per core (2 IDs), L3 5 MiB 20-way inclusive
 * per package (4 IDs). Leaf 7 exists but has no feature bits.
 */
static const struct fx_leaf fx_sandy_ep[] = {
	{ 0x0, 0, 0x0000000d, FX_INTEL },
	{ 0x1, 0, 0x000206d7, 0x00040800, 0x1fbee3ff, 0xbfebfbff },
	{ 0x4, 0, 0x04004121, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 1, 0x04004122, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 2, 0x04004143, 0x01c0003f, 0x000001ff, 0x00000000 },
	{ 0x4, 3, 0x0400c163, 0x04c0003f, 0x00000fff, 0x00000006 },
	{ 0x7, 0, 0, 0, 0, 0 },
	{ 0xb, 0, 0x00000001, 0x00000002, 0x00000100, 0 },
	{ 0xb, 1, 0x00000002, 0x00000004, 0x00000201, 0 },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
	{ 0x80000001, 0, 0, 0, 0x00000001, 0x2c100800 },
	{ 0x80000002, 0, 0x65746e49, 0x2952286c, 0x6f655820, 0x2952286e },
	{ 0x80000003, 0, 0x55504320, 0x2d354520, 0x37333632, 0x40203020 },
	{ 0x80000004, 0, 0x302e3320, 0x7a484730, 0x00000000, 0x00000000 },
	{ 0x80000006, 0, 0, 0, 0x01006040, 0 },
	{ 0x80000007, 0, 0, 0, 0, 0x00000100 },
	{ 0x80000008, 0, 0x0000302e, 0, 0, 0 },
};

/*
 * 3. AMD Ryzen 9 5950X (Zen 3): 16 cores x 2 threads in two CCDs. Leaf 0xB
 * shifts 1 and 5; 0x80000008 ApicIdCoreIdSize 5, NC 31; TOPOEXT set.
 * 0x8000001D: L1d/L1i 32 KiB 8-way and L2 512 KiB 8-way (inclusive) shared
 * by 2 threads; L3 32 MiB 16-way shared by 16 threads (NumSharingCache 15),
 * so one L3 per CCD. 0x8000001E EBX: ThreadsPerComputeUnit 1.
 */
static const struct fx_leaf fx_zen3[] = {
	{ 0x0, 0, 0x00000010, FX_AMD },
	{ 0x1, 0, 0x00a20f10, 0x00200800, 0x7ef8320b, 0x178bfbff },
	{ 0x6, 0, 0x00000004, 0, 0x00000001, 0 },
	{ 0x7, 0, 0, 0x219c97a9, 0x0040068c, 0x00000010 },
	{ 0xb, 0, 0x00000001, 0x00000002, 0x00000100, 0 },
	{ 0xb, 1, 0x00000005, 0x00000020, 0x00000201, 0 },
	{ 0x80000000, 0, 0x80000023, FX_AMD },
	{ 0x80000001, 0, 0x00a20f10, 0x20000000, 0x75c237ff, 0x2fd3fbff },
	{ 0x80000002, 0, 0x20444d41, 0x657a7952, 0x2039206e, 0x30353935 },
	{ 0x80000003, 0, 0x36312058, 0x726f432d, 0x72502065, 0x7365636f },
	{ 0x80000004, 0, 0x20726f73, 0x20202020, 0x20202020, 0x00202020 },
	{ 0x80000005, 0, 0xff40ff40, 0xff40ff40, 0x20080140, 0x20080140 },
	{ 0x80000006, 0, 0x48002200, 0x68004200, 0x02006140, 0x01009140 },
	{ 0x80000007, 0, 0, 0x0000003b, 0, 0x00006799 },
	{ 0x80000008, 0, 0x00003030, 0x111ef657, 0x0000501f, 0x00010000 },
	{ 0x8000001d, 0, 0x00004121, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x8000001d, 1, 0x00004122, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x8000001d, 2, 0x00004143, 0x01c0003f, 0x000003ff, 0x00000002 },
	{ 0x8000001d, 3, 0x0003c163, 0x03c0003f, 0x00007fff, 0x00000001 },
	{ 0x8000001e, 0, 0, 0x00000100, 0, 0 },
};

/*
 * 3b. AMD Ryzen 7 1800X (Zen 1): 8 cores x 2 threads in two CCXs, max basic
 * leaf 0xD and no leaf 0xB, so the decoding falls to 0x80000008
 * (ApicIdCoreIdSize 4) with 0x8000001E (ThreadsPerComputeUnit 1). L1i
 * 64 KiB 4-way; L3 8 MiB 16-way shared by 8 threads (one per CCX).
 */
static const struct fx_leaf fx_zen1[] = {
	{ 0x0, 0, 0x0000000d, FX_AMD },
	{ 0x1, 0, 0x00800f11, 0x00100800, 0x7ed8320b, 0x178bfbff },
	{ 0x7, 0, 0, 0x209c01a9, 0, 0 },
	{ 0x80000000, 0, 0x8000001f, FX_AMD },
	{ 0x80000001, 0, 0x00800f11, 0x20000000, 0x35c233ff, 0x2fd3fbff },
	{ 0x80000002, 0, 0x20444d41, 0x657a7952, 0x2037206e, 0x30303831 },
	{ 0x80000003, 0, 0x69452058, 0x2d746867, 0x65726f43, 0x6f725020 },
	{ 0x80000004, 0, 0x73736563, 0x2020726f, 0x20202020, 0x00202020 },
	{ 0x80000005, 0, 0xff40ff40, 0xff40ff40, 0x20080140, 0x40040140 },
	{ 0x80000006, 0, 0x48006400, 0x68006400, 0x02006140, 0x00808140 },
	{ 0x80000007, 0, 0, 0x0000001b, 0, 0x00006799 },
	{ 0x80000008, 0, 0x00003030, 0x00000007, 0x0000400f, 0 },
	{ 0x8000001d, 0, 0x00004121, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x8000001d, 1, 0x00004122, 0x00c0003f, 0x000000ff, 0x00000000 },
	{ 0x8000001d, 2, 0x00004143, 0x01c0003f, 0x000003ff, 0x00000002 },
	{ 0x8000001d, 3, 0x0001c163, 0x03c0003f, 0x00001fff, 0x00000001 },
	{ 0x8000001e, 0, 0, 0x00000100, 0, 0 },
};

/*
 * 4. AMD Opteron 2380 (family 10h "Shanghai"), two sockets x 4 cores, no
 * SMT, no TOPOEXT, max basic leaf 5. 0x80000008 ApicIdCoreIdSize 2.
 * 0x80000005: L1d/L1i 64 KiB 2-way; 0x80000006: L2 512 KiB code 8 (16-way),
 * L3 12 x 512 KiB = 6 MiB code 0xB (48-way).
 */
static const struct fx_leaf fx_opteron[] = {
	{ 0x0, 0, 0x00000005, FX_AMD },
	{ 0x1, 0, 0x00100f42, 0x00040800, 0x00802009, 0x178bfbff },
	{ 0x80000000, 0, 0x8000001b, FX_AMD },
	{ 0x80000001, 0, 0x00100f42, 0x00000d4f, 0x000037ff, 0xefd3fbff },
	{ 0x80000002, 0, 0x64617551, 0x726f432d, 0x4d412065, 0x704f2044 },
	{ 0x80000003, 0, 0x6f726574, 0x6d74286e, 0x72502029, 0x7365636f },
	{ 0x80000004, 0, 0x20726f73, 0x30383332, 0x00000000, 0x00000000 },
	{ 0x80000005, 0, 0xff30ff10, 0xff30ff10, 0x40020140, 0x40020140 },
	{ 0x80000006, 0, 0x20800000, 0x42004200, 0x02008140, 0x0030b140 },
	{ 0x80000007, 0, 0, 0, 0, 0x000001f9 },
	{ 0x80000008, 0, 0x00003030, 0, 0x00002003, 0 },
};

/*
 * 5. Intel Core i3-1215U (Alder Lake-U): 2 P-cores x 2 threads (APIC IDs
 * 0,1 and 8,9) and 4 E-cores in one cluster (16, 18, 20, 22). Leaf 7 EDX
 * bit 15 hybrid; 0x1A core type 0x40 / 0x20; 0x1F and 0xB: SMT shift 1,
 * core shift 7. P-core: L1d 48 KiB 12-way, L1i 32 KiB, L2 1.25 MiB 10-way
 * per core (2 IDs). E-core: L1d 32 KiB, L1i 64 KiB per core (1 ID), L2
 * 2 MiB 16-way per cluster (8 IDs). L3 10 MiB 10-way, not inclusive, 128 IDs.
 */
#define FX_ADL_COMMON_HEAD                                                     \
	{ 0x0, 0, 0x00000020, FX_INTEL },                                      \
	{ 0x1, 0, 0x000906a4, 0x00800800, 0x7ffafbff, 0xbfebfbff },            \
	{ 0x4, 3, 0xfc1fc163, 0x0240003f, 0x00003fff, 0x00000004 },            \
	{ 0x7, 0, 0x00000002, 0x239ca7eb, 0x98c027ac, 0xfc1cc410 },            \
	{ 0xb, 1, 0x00000007, 0x00000008, 0x00000201, 0 },                     \
	{ 0x15, 0, 0x00000002, 0x0000009c, 0x0249f000, 0 },                    \
	{ 0x1f, 1, 0x00000007, 0x00000008, 0x00000201, 0 },                    \
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },                                \
	{ 0x80000001, 0, 0, 0, 0x00000121, 0x2c100800 },                       \
	{ 0x80000002, 0, 0x68743231, 0x6e654720, 0x746e4920, 0x52286c65 },     \
	{ 0x80000003, 0, 0x6f432029, 0x54286572, 0x6920294d, 0x32312d33 },     \
	{ 0x80000004, 0, 0x00553531, 0x00000000, 0x00000000, 0x00000000 },     \
	{ 0x80000007, 0, 0, 0, 0, 0x00000100 },                                \
	{ 0x80000008, 0, 0x00003027, 0, 0, 0 }

static const struct fx_leaf fx_adl_p[] = {
	FX_ADL_COMMON_HEAD,
	{ 0x4, 0, 0xfc004121, 0x02c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 1, 0xfc004122, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 2, 0xfc004143, 0x0240003f, 0x000007ff, 0x00000000 },
	{ 0xb, 0, 0x00000001, 0x00000002, 0x00000100, 0 },
	{ 0x1a, 0, 0x40000001, 0, 0, 0 },
	{ 0x1f, 0, 0x00000001, 0x00000002, 0x00000100, 0 },
};

static const struct fx_leaf fx_adl_e[] = {
	FX_ADL_COMMON_HEAD,
	{ 0x4, 0, 0xfc000121, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 1, 0xfc000122, 0x01c0003f, 0x0000007f, 0x00000000 },
	{ 0x4, 2, 0xfc01c143, 0x03c0003f, 0x000007ff, 0x00000000 },
	{ 0xb, 0, 0x00000001, 0x00000001, 0x00000100, 0 },
	{ 0x1a, 0, 0x20000001, 0, 0, 0 },
	{ 0x1f, 0, 0x00000001, 0x00000001, 0x00000100, 0 },
};

/*
 * 6. Recorded from QEMU 7.2 (TCG): qemu-system-x86_64 -cpu max -smp
 * 8,sockets=2,cores=2,threads=2, BSP. TCG's "max" is AuthenticAMD with max
 * basic leaf 0xD and max extended leaf 0x8000000A: leaf 0xB is built from
 * -smp (shifts 1 and 2) but leaf 4 reads 0 (AMD vendor) and there is no
 * TOPOEXT, so caches come only from 0x80000005/6 (L1d/L1i 64 KiB 2-way, L2
 * 512 KiB 16-way, L3 16 MiB 16-way): L1/L2 per core, L3 per package assumed.
 */
#define FX_QEMU_TAIL                                                           \
	{ 0x6, 0, 0x00000004, 0, 0, 0 },                                       \
	{ 0x7, 0, 0x00000000, 0x01d843a9, 0x8001020c, 0x00000000 },            \
	{ 0xb, 0, 0x00000001, 0x00000002, 0x00000100, 0 },                     \
	{ 0xb, 1, 0x00000002, 0x00000004, 0x00000201, 0 },                     \
	{ 0x80000002, 0, 0x554d4551, 0x47435420, 0x55504320, 0x72657620 },     \
	{ 0x80000003, 0, 0x6e6f6973, 0x352e3220, 0x0000002b, 0x00000000 },     \
	{ 0x80000004, 0, 0, 0, 0, 0 },                                         \
	{ 0x80000005, 0, 0x01ff01ff, 0x01ff01ff, 0x40020140, 0x40020140 },     \
	{ 0x80000006, 0, 0x00000000, 0x42004200, 0x02008140, 0x00808140 },     \
	{ 0x80000007, 0, 0, 0, 0, 0 },                                         \
	{ 0x80000008, 0, 0x00003928, 0, 0x00002003, 0 }

static const struct fx_leaf fx_qemu_max[] = {
	{ 0x0, 0, 0x0000000d, FX_AMD },
	{ 0x1, 0, 0x00060fb1, 0x00040800, 0xf6d8320b, 0x1fcbfbfd },
	{ 0x80000000, 0, 0x8000000a, FX_AMD },
	{ 0x80000001, 0, 0x00060fb1, 0, 0x00000077, 0xedd3fbfd },
	FX_QEMU_TAIL,
};

/*
 * 6b. Recorded from QEMU 7.2 (TCG) with -cpu max,vendor=GenuineIntel and
 * the same -smp: leaf 4 now appears, built from -smp. QEMU 7.2 reports L1d
 * and L1i as shared by 1 ID (per thread, WBINVD bit set), L2 4 MiB 16-way by
 * 2 (per core) and L3 16 MiB 16-way inclusive by 4 (per package).
 */
static const struct fx_leaf fx_qemu_intel[] = {
	{ 0x0, 0, 0x0000000d, FX_INTEL },
	{ 0x1, 0, 0x00060fb1, 0x00040800, 0xf6d8320b, 0x1fcbfbfd },
	{ 0x4, 0, 0x04000121, 0x01c0003f, 0x0000003f, 0x00000001 },
	{ 0x4, 1, 0x04000122, 0x01c0003f, 0x0000003f, 0x00000001 },
	{ 0x4, 2, 0x04004143, 0x03c0003f, 0x00000fff, 0x00000001 },
	{ 0x4, 3, 0x0400c163, 0x03c0003f, 0x00003fff, 0x00000006 },
	{ 0x80000000, 0, 0x8000000a, FX_INTEL },
	{ 0x80000001, 0, 0x00060fb1, 0, 0x00000075, 0xec500800 },
	FX_QEMU_TAIL,
};

/*
 * 6c. Recorded from QEMU 7.2 (TCG) with -cpu EPYC,+topoext and the same
 * -smp. TCG cannot offer TOPOEXT and clears it (0x80000001 ECX bit 22), yet
 * the max extended leaf stays 0x8000001E, so 0x8000001D/E are filled but must
 * not be trusted: caches come from 0x80000005/6 (L1d 32 KiB 8-way, L1i
 * 64 KiB 4-way, L2 512 KiB 8-way, L3 8 MiB 16-way).
 */
static const struct fx_leaf fx_qemu_epyc[] = {
	{ 0x0, 0, 0x0000000d, FX_AMD },
	{ 0x1, 0, 0x00800f12, 0x00040800, 0xf6d8320b, 0x178bfbfd },
	{ 0x6, 0, 0x00000004, 0, 0, 0 },
	{ 0x7, 0, 0x00000000, 0x009801a9, 0, 0 },
	{ 0xb, 0, 0x00000001, 0x00000002, 0x00000100, 0 },
	{ 0xb, 1, 0x00000002, 0x00000004, 0x00000201, 0 },
	{ 0x80000000, 0, 0x8000001e, FX_AMD },
	{ 0x80000001, 0, 0x00800f12, 0, 0x00000077, 0x2dd3fbfd },
	{ 0x80000002, 0, 0x20444d41, 0x43595045, 0x6f725020, 0x73736563 },
	{ 0x80000003, 0, 0x0000726f, 0, 0, 0 },
	{ 0x80000004, 0, 0, 0, 0, 0 },
	{ 0x80000005, 0, 0x01ff01ff, 0x01ff01ff, 0x20080140, 0x40040140 },
	{ 0x80000006, 0, 0x00000000, 0x42004200, 0x02006140, 0x00408140 },
	{ 0x80000007, 0, 0, 0, 0, 0 },
	{ 0x80000008, 0, 0x00003028, 0, 0x00002003, 0 },
	{ 0x8000001d, 0, 0x00004121, 0x01c0003f, 0x0000003f, 0x00000001 },
	{ 0x8000001d, 1, 0x00004122, 0x00c0003f, 0x000000ff, 0x00000001 },
	{ 0x8000001d, 2, 0x00004043, 0x01c0003f, 0x000003ff, 0x00000000 },
	{ 0x8000001d, 3, 0x0000c163, 0x03c0003f, 0x00001fff, 0x00000006 },
	{ 0x8000001e, 0, 0, 0x00000100, 0, 0 },
};

/*
 * 7. Two dies per package, modelled on Cascade Lake-AP (Xeon Platinum 9200)
 * scaled to 4 cores x 2 threads per die: 0x1F levels SMT (shift 1), Core
 * (shift 3), Die (shift 4). L1d/L1i 32 KiB and L2 1 MiB 16-way per core, L3
 * 5.5 MiB 11-way per die (8 IDs), not inclusive.
 */
static const struct fx_leaf fx_two_die[] = {
	{ 0x0, 0, 0x0000001f, FX_INTEL },
	{ 0x1, 0, 0x00050657, 0x00100800, 0x7ffefbff, 0xbfebfbff },
	{ 0x4, 0, 0x7c004121, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 1, 0x7c004122, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 2, 0x7c004143, 0x03c0003f, 0x000003ff, 0x00000000 },
	{ 0x4, 3, 0x7c01c163, 0x0280003f, 0x00001fff, 0x00000004 },
	{ 0x7, 0, 0, 0xd39ffffb, 0, 0 },
	{ 0xb, 0, 0x00000001, 0x00000002, 0x00000100, 0 },
	{ 0xb, 1, 0x00000004, 0x00000010, 0x00000201, 0 },
	{ 0x1f, 0, 0x00000001, 0x00000002, 0x00000100, 0 },
	{ 0x1f, 1, 0x00000003, 0x00000008, 0x00000201, 0 },
	{ 0x1f, 2, 0x00000004, 0x00000010, 0x00000502, 0 },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
	{ 0x80000001, 0, 0, 0, 0x00000121, 0x2c100800 },
	{ 0x80000007, 0, 0, 0, 0, 0x00000100 },
	{ 0x80000008, 0, 0x0000302e, 0, 0, 0 },
};

/*
 * 8. Intel Atom D525 (Pineview): 2 cores x 2 threads, max basic leaf 0xA, so
 * no leaf 0xB: leaf 1 EBX[23:16] = 4 IDs per package, leaf 4 EAX[31:26] = 1
 * (2 cores) leave 1 SMT bit. L1d 24 KiB 6-way, L1i 32 KiB 8-way, L2 512 KiB
 * 8-way per core (2 IDs); no L3.
 */
static const struct fx_leaf fx_atom[] = {
	{ 0x0, 0, 0x0000000a, FX_INTEL },
	{ 0x1, 0, 0x000106ca, 0x00040800, 0x0040e31d, 0xbfebfbff },
	{ 0x4, 0, 0x04004121, 0x0140003f, 0x0000003f, 0x00000000 },
	{ 0x4, 1, 0x04004122, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 2, 0x04004143, 0x01c0003f, 0x000003ff, 0x00000000 },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
	{ 0x80000001, 0, 0, 0, 0x00000001, 0x20100000 },
	{ 0x80000008, 0, 0x00003024, 0, 0, 0 },
};

/* A Hygon part whose brand string starts with blanks (as old Intel ones do). */
static const struct fx_leaf fx_hygon[] = {
	{ 0x0, 0, 0x0000000d, FX_HYGON },
	{ 0x1, 0, 0x00900f01, 0x00100800, 0x7ed8320b, 0x178bfbff },
	{ 0x80000000, 0, 0x80000004, FX_HYGON },
	{ 0x80000002, 0, 0x79482020, 0x206e6f67, 0x20363843, 0x35383133 },
	{ 0x80000003, 0, 0x2d382020, 0x65726f63, 0x6f725020, 0x73736563 },
	{ 0x80000004, 0, 0x0000726f, 0x00000000, 0x00000000, 0x00000000 },
};

/* An old CPU without extended leaves: 0x80000000 returns leaf 2's data. */
static const struct fx_leaf fx_no_ext[] = {
	{ 0x0, 0, 0x00000002, FX_INTEL },
	{ 0x1, 0, 0x00000673, 0x00000000, 0x00000000, 0x0383fbff },
	{ 0x2, 0, 0x03020101, 0, 0, 0x0c040882 },
	{ 0x80000000, 0, 0x03020101, 0, 0, 0x0c040882 },
};

/* Leaf 4 that never ends: nine valid L1d subleaves, one past the limit. */
#define FX_L1D(n) { 0x4, n, 0x00000121, 0x01c0003f, 0x0000003f, 0 }
static const struct fx_leaf fx_endless_leaf4[] = {
	{ 0x0, 0, 0x00000004, FX_INTEL },
	{ 0x1, 0, 0x000506e3, 0x00000800, 0, 0x00000010 },
	FX_L1D(0), FX_L1D(1), FX_L1D(2), FX_L1D(3), FX_L1D(4),
	FX_L1D(5), FX_L1D(6), FX_L1D(7), FX_L1D(8),
};

/* ---- CPUID emulator -------------------------------------------------------- */

/* One fixture CPU: its APIC ID and model, optional replaced leaves, and one
 * leaf it lacks (0: none). */
struct fx_cpu {
	uint32_t apic;
	const struct fx_model *model;
	const struct fx_leaf *over;
	size_t nover;
	uint32_t hide;
};

#define FXC(a, m) { .apic = (a), .model = (m) }
#define FXO(a, m, o)                                                           \
	{ .apic = (a), .model = (m), .over = (o), .nover = sizeof(o) / sizeof((o)[0]) }

static const struct fx_model m_skylake = FX_MODEL("i5-6600", fx_skylake);
static const struct fx_model m_sandy = FX_MODEL("E5-2637", fx_sandy_ep);
static const struct fx_model m_zen3 = FX_MODEL("5950X", fx_zen3);
static const struct fx_model m_zen1 = FX_MODEL("1800X", fx_zen1);
static const struct fx_model m_opteron = FX_MODEL("Opteron 2380", fx_opteron);
static const struct fx_model m_adl_p = FX_MODEL("i3-1215U P", fx_adl_p);
static const struct fx_model m_adl_e = FX_MODEL("i3-1215U E", fx_adl_e);
static const struct fx_model m_qemu = FX_MODEL("qemu max", fx_qemu_max);
static const struct fx_model m_qemu_intel = FX_MODEL("qemu intel", fx_qemu_intel);
static const struct fx_model m_qemu_epyc = FX_MODEL("qemu epyc", fx_qemu_epyc);
static const struct fx_model m_two_die = FX_MODEL("two die", fx_two_die);
static const struct fx_model m_atom = FX_MODEL("atom d525", fx_atom);
static const struct fx_model m_hygon = FX_MODEL("hygon", fx_hygon);
static const struct fx_model m_no_ext = FX_MODEL("no ext", fx_no_ext);
static const struct fx_model m_endless = FX_MODEL("endless", fx_endless_leaf4);

static inline const struct fx_leaf *fx_find(const struct fx_leaf *t, size_t n,
					    uint32_t leaf, uint32_t sub)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].leaf == leaf && t[i].sub == sub)
			return &t[i];
	return NULL;
}

/* The cpuid_query_fn that replays a fixture CPU (ctx is its struct fx_cpu). */
static inline void fx_query(void *ctx, uint32_t leaf, uint32_t sub,
			    struct cpuid_regs *r)
{
	const struct fx_cpu *c = ctx;
	const struct fx_leaf *e = fx_find(c->over, c->nover, leaf, sub);

	memset(r, 0, sizeof(*r));
	if (c->hide && leaf == c->hide)
		return;
	if (!e)
		e = fx_find(c->model->leaves, c->model->n, leaf, sub);
	if (e) {
		*r = (struct cpuid_regs){ e->eax, e->ebx, e->ecx, e->edx };
	} else {
		if (leaf == CPUID_LEAF_TOPO || leaf == CPUID_LEAF_TOPO_V2)
			r->ecx = sub & 0xff; /* invalid level echoes ECX[7:0] */
		return;
	}
	switch (leaf) {
	case CPUID_LEAF_FEATURES:
		r->ebx = (r->ebx & ~CPUID_1_EBX_APIC_ID) | (c->apic & 0xff) << 24;
		break;
	case CPUID_LEAF_TOPO:
	case CPUID_LEAF_TOPO_V2:
		r->edx = c->apic;
		break;
	case CPUID_LEAF_AMD_TOPO: {
		uint32_t tpc = CPUID_FIELD(r->ebx, CPUID_E1E_EBX_THREADS) + 1;

		r->eax = c->apic;
		r->ebx |= (c->apic / tpc) & 0xff;
		break;
	}
	default:
		break;
	}
}

static const struct fx_cpu cpus_skylake[] = {
	FXC(0, &m_skylake), FXC(2, &m_skylake), FXC(4, &m_skylake), FXC(6, &m_skylake),
};

/* MADT order: first threads of every core, then the second threads. */
static const struct fx_cpu cpus_sandy[] = {
	FXC(0, &m_sandy), FXC(2, &m_sandy), FXC(4, &m_sandy), FXC(6, &m_sandy),
	FXC(1, &m_sandy), FXC(3, &m_sandy), FXC(5, &m_sandy), FXC(7, &m_sandy),
};
static const int32_t nodes_sandy[] = { 0, 0, 1, 1, 0, 0, 1, 1 };

static const struct fx_cpu cpus_adl[] = {
	FXC(0, &m_adl_p),  FXC(1, &m_adl_p),  FXC(8, &m_adl_p),  FXC(9, &m_adl_p),
	FXC(16, &m_adl_e), FXC(18, &m_adl_e), FXC(20, &m_adl_e), FXC(22, &m_adl_e),
};

/* Every model, for checks that run over all tables. */
static const struct fx_model *const fx_all_models[] __attribute__((unused)) = {
	&m_skylake, &m_sandy, &m_zen3, &m_zen1, &m_opteron, &m_adl_p, &m_adl_e,
	&m_qemu, &m_qemu_intel, &m_qemu_epyc, &m_two_die, &m_atom, &m_hygon,
	&m_no_ext, &m_endless,
};

/* Runs the snapshot and malformed-input tests of test_topo_bad.c and adds
 * their counts to *passed and *failed. */
void topo_bad_tests(int *passed, int *failed);

/* ---- Replay and checks ----------------------------------------------------- */

/* Each test file has its own snapshots and topology (about 700 KiB). */
static struct cpuid_snap snaps[QB_MAX_CPUS];
static struct topo T;

static inline void fx_snap(const struct fx_cpu *c, struct cpuid_snap *s)
{
	cpuid_snap_fill(s, fx_query, (void *)c);
}

static inline int fx_decode(const struct fx_cpu *cpus, uint32_t n,
			    const int32_t *nodes)
{
	for (uint32_t i = 0; i < n; i++)
		fx_snap(&cpus[i], &snaps[i]);
	return topo_decode(snaps, nodes, n, &T);
}

static inline void dump_msgs(void)
{
	for (uint32_t i = 0; i < MIN(T.nmsgs, (uint32_t)TOPO_MAX_MSGS); i++)
		printf("    msg: %s\n", T.msg[i]);
}

static inline bool has_msg(const char *want)
{
	for (uint32_t i = 0; i < MIN(T.nmsgs, (uint32_t)TOPO_MAX_MSGS); i++)
		if (!strcmp(T.msg[i], want))
			return true;
	dump_msgs();
	return false;
}

#define CHECK_CLEAN(rc)                                                        \
	do {                                                                   \
		CHECK_EQ_U((rc), 0);                                           \
		if (rc)                                                        \
			dump_msgs();                                           \
	} while (0)

/* The cache of cpu at (level, type), or NULL. */
static inline const struct topo_cache *cache_of(uint32_t cpu, uint8_t level,
						uint8_t type)
{
	for (uint32_t i = 0; i < T.cpu[cpu].ncaches; i++) {
		const struct topo_cache *c = &T.cache[T.cpu[cpu].cache[i]];

		if (c->level == level && c->type == type)
			return c;
	}
	return NULL;
}

/* True when the cache of cpu at (level, type) is shared by exactly want[]. */
static inline bool shared_is(uint32_t cpu, uint8_t level, uint8_t type,
			     const uint32_t *want, size_t n)
{
	const struct topo_cache *c = cache_of(cpu, level, type);
	struct topo_cpuset s = { { 0 } };

	if (!c)
		return false;
	for (size_t i = 0; i < n; i++)
		s.bits[want[i] / 64] |= 1ull << (want[i] % 64);
	return c->nshared == n && !memcmp(&s, &c->shared_by, sizeof(s));
}

/* which is L1D, L1I, L2 or L3 (a "level, type" pair). */
#define SHARED_IS(cpu, which, ...)                                             \
	shared_is(cpu, which, (const uint32_t[]){ __VA_ARGS__ },               \
		  sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

static inline uint32_t count_caches(uint8_t level, uint8_t type)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < T.ncaches; i++)
		n += T.cache[i].level == level && T.cache[i].type == type;
	return n;
}

#define CHECK_CPU(i, pkg, core_, thr, node_)                                   \
	do {                                                                   \
		CHECK_EQ_U(T.cpu[i].package, pkg);                             \
		CHECK_EQ_U(T.cpu[i].core, core_);                              \
		CHECK_EQ_U(T.cpu[i].thread, thr);                              \
		CHECK_EQ_U(T.cpu[i].node, node_);                              \
	} while (0)

#define CHECK_REL(a, b, rel) CHECK_STR(topo_rel_name(topo_relation(&T, a, b)), rel)

#define CHECK_GEOM(c, size_, ways_, sets_, line_)                              \
	do {                                                                   \
		CHECK((c) != NULL);                                            \
		if (c) {                                                       \
			CHECK_EQ_U((c)->size, size_);                          \
			CHECK_EQ_U((c)->ways, ways_);                          \
			CHECK_EQ_U((c)->sets, sets_);                          \
			CHECK_EQ_U((c)->line_size, line_);                     \
		}                                                              \
	} while (0)

#define KIB 1024ull
#define MIB (1024ull * 1024ull)
#define L1D 1, TOPO_CACHE_DATA
#define L1I 1, TOPO_CACHE_INSTRUCTION
#define L2 2, TOPO_CACHE_UNIFIED
#define L3 3, TOPO_CACHE_UNIFIED

static struct fx_cpu cpus_many[QB_MAX_CPUS];

/* Fills cpus_many with n CPUs of model m at APIC IDs i * stride, or with even
 * IDs first and odd IDs second (as a MADT lists SMT siblings). */
static inline uint32_t fill_cpus(const struct fx_model *m, uint32_t n,
				 uint32_t stride, bool interleave_smt)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t apic = i * stride;

		if (interleave_smt)	/* even IDs first, then odd */
			apic = i < n / 2 ? 2 * i : 2 * (i - n / 2) + 1;
		cpus_many[i] = (struct fx_cpu)FXC(apic, m);
	}
	return n;
}

#endif
