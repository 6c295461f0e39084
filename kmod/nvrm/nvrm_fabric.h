/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NV_MEMORY_FABRIC (class 0xF8): pure decode of its allocation and RM's checks of it
 * (nvrm_fabric.c).
 */
#ifndef NVRM_FABRIC_H
#define NVRM_FABRIC_H

#include "nvrm/nvrm_decode.h"

/**
 * struct nvrm_fabric_alloc - decoded NV00F8_ALLOCATION_PARAMETERS
 * @alignment: requested alignment of the fabric address
 * @alloc_size: bytes of fabric address space, and of the memory mapped at it
 * @page_size: the fabric page size (2 MiB, 512 MiB, 256 GiB)
 * @map_offset: where in @hvidmem the mapping starts
 * @alloc_flags: NVRM_NV00F8_ALLOC_FLAGS_*
 * @hvidmem: the caller's video memory to map (a "sticky" object), or 0 with FLEXIBLE_FLA
 */
struct nvrm_fabric_alloc {
	u64 alignment;
	u64 alloc_size;
	u64 page_size;
	u64 map_offset;
	u32 alloc_flags;
	u32 hvidmem;
};

int nvrm_fabric_alloc_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
			     struct nvrm_fabric_alloc *out);
bool nvrm_fabric_holds_memory(const struct nvrm_fabric_alloc *f);
u32 nvrm_fabric_alloc_check(const struct nvrm_abi *abi, const struct nvrm_fabric_alloc *f,
			    bool gpu_256g);
u32 nvrm_fabric_va_check(const struct nvrm_fabric_alloc *f);
u32 nvrm_fabric_map_check(const struct nvrm_fabric_alloc *f, u64 phys_size, u64 phys_page);

#endif /* NVRM_FABRIC_H */
