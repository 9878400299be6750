/* lib.h - the small freestanding C library the kernel carries (memcpy and friends).
 *
 * Layer 1: lib. Plain C with no hardware and no state of the run:
 * formatting, CRC-32, memory and string functions, limits, the boot_info
 * hand-off. Includes nothing of ours; every folder may include it.
 *
 * The prototypes match ISO C, so host unit tests that include this header next
 * to <string.h> link against the host libc instead of kernel/lib/lib.c. */
#ifndef QB_KERNEL_LIB_H
#define QB_KERNEL_LIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
