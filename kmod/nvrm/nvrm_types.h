/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Portability shim for the pure NVIDIA RM ABI sources in kmod/nvrm/. The same files build inside
 * qgpu.ko and nvsim.ko (__KERNEL__) and inside the user-space unit-test binary. Nothing here (or in
 * any file that includes only this) may call kernel-only or libc-only functions beyond memcpy,
 * memset, memcmp, strlen and strnlen. Errors are negative errno values (<linux/errno.h> or
 * <errno.h>).
 */
#ifndef QGPU_NVRM_TYPES_H
#define QGPU_NVRM_TYPES_H

#ifdef __KERNEL__

#include <linux/errno.h>
#include <linux/types.h>
#include <linux/string.h>
#include <linux/stddef.h>
#include <linux/build_bug.h>

#else /* !__KERNEL__ */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The kernel's definitions (include/uapi/asm-generic/int-ll64.h). */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef signed short s16;
typedef signed int s32;
typedef signed long long s64;

static_assert(sizeof(u16) == 2 && sizeof(u32) == 4 && sizeof(u64) == 8, "integer sizes");

#endif /* __KERNEL__ */

/* Compile-time layout checks; static_assert comes from <linux/build_bug.h> or <assert.h>. */
#define NVRM_ASSERT_SIZE(type, size) \
	static_assert(sizeof(type) == (size), "sizeof(" #type ") != " #size)
#define NVRM_ASSERT_OFFSET(type, member, off) \
	static_assert(offsetof(type, member) == (off), "offsetof(" #type ", " #member ") != " #off)

#define NVRM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* QGPU_NVRM_TYPES_H */
