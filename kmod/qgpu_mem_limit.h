/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure arithmetic of per-instance memory limits: what fits under a limit, the size qgpu reserves
 * for a request, the sum of limits against a GPU's memory, the `mem_max` knob's syntax, and the
 * values an instance sees for the framebuffer info indices. Builds in the kernel and in the
 * user-space unit tests (kmod/nvrm/nvrm_types.h): no allocation, no kernel-only calls.
 */
#ifndef QGPU_MEM_LIMIT_H
#define QGPU_MEM_LIMIT_H

#include "nvrm/nvrm_types.h"

bool qgpu_mem_fits(u64 used, u64 max, u64 size);
u64 qgpu_mem_reserve_size(u64 size, u32 attr, u32 flags, u64 alignment);
u64 qgpu_sysmem_reserve_size(u64 size);
u64 qgpu_mem_effective_max(u64 max, u64 memory);
u64 qgpu_mem_committed(u64 max, u64 memory);
bool qgpu_mem_sum_fits(u64 others, u64 max, u64 memory);
int qgpu_mem_parse_max(const char *buf, size_t len, u64 *out);
u64 qgpu_mem_view_free(u64 max, u64 used, u64 memory, u64 real_free);
bool qgpu_mem_fb_index_view(u32 index, u64 total, u64 free, u32 *data);
u64 qgpu_mapped_units(u64 va, u64 len);
u64 qgpu_mapped_units_most(u64 len);
u64 qgpu_mapped_virtual_units(u32 flags, u64 size);

#endif /* QGPU_MEM_LIMIT_H */
