// SPDX-License-Identifier: GPL-2.0
/*
 * NV_MEMORY_FABRIC (class 0xF8): the fabric (FLA) address of memory, for peers across NVLink.
 * Pure decode and checks, shared by qgpu (which must know what such an object holds) and nvsim
 * (which simulates it). Builds unchanged in the kernel and in user space.
 *
 * Read in memoryfabricConstruct_IMPL() (mem_mgr/mem_fabric.c) and
 * _fabricVaspaceValidateMapAttrs() (mem_mgr/fabric_vaspace.c) at 525.47.04, 535.43.02, 550.40.07
 * and 580.142. A "sticky" object names the caller's video memory at allocation, and RM duplicates
 * that handle into the fabric VA space's own client (hDupedPhysMem) until the object's last
 * copy goes: the memory outlives every handle of the caller's to it. A "flexible" object
 * (FLEXIBLE_FLA, from 530) names none; NV00F8_CTRL_CMD_ATTACH_MEM maps memory into it later
 * with an inter-mapping, which RM undoes when the memory is freed, so it holds nothing.
 */
#include "nvrm/nvrm_abi.h"
#include "nvrm/nvrm_fabric.h"

static u64 nvrm_fabric_u64(const void *buf, u32 off)
{
	u64 v;

	memcpy(&v, (const u8 *)buf + off, sizeof(v));
	return v;
}

static u32 nvrm_fabric_u32(const void *buf, u32 off)
{
	u32 v;

	memcpy(&v, (const u8 *)buf + off, sizeof(v));
	return v;
}

/**
 * nvrm_fabric_alloc_decode() - decode NV00F8_ALLOCATION_PARAMETERS
 * @abi: driver profile
 * @buf: kernel copy of the parameters
 * @size: bytes in @buf; must be this version's sizeof (40 B in 525-530, 48 B from 535)
 * @out: filled on success
 *
 * Return: 0 on success, -EINVAL on a size mismatch.
 */
int nvrm_fabric_alloc_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
			     struct nvrm_fabric_alloc *out)
{
	bool v525;

	if (!abi || !buf || !out || !size || size != abi->nv00f8_alloc_params_size)
		return -EINVAL;
	v525 = size == NVRM_NV00F8_ALLOC_PARAMS_SIZE_V525;
	out->alignment = nvrm_fabric_u64(buf, 0);
	out->alloc_size = nvrm_fabric_u64(buf, 8);
	out->page_size = v525 ? nvrm_fabric_u32(buf, NVRM_NV00F8_PAGE_SIZE_OFFSET) :
				nvrm_fabric_u64(buf, NVRM_NV00F8_PAGE_SIZE_OFFSET);
	out->alloc_flags = nvrm_fabric_u32(buf, v525 ? NVRM_NV00F8_ALLOC_FLAGS_OFFSET_V525 :
						       NVRM_NV00F8_ALLOC_FLAGS_OFFSET_V535);
	out->map_offset = nvrm_fabric_u64(buf, v525 ? NVRM_NV00F8_MAP_OFFSET_OFFSET_V525 :
						      NVRM_NV00F8_MAP_OFFSET_OFFSET_V535);
	out->hvidmem = nvrm_fabric_u32(buf, v525 ? NVRM_NV00F8_HVIDMEM_OFFSET_V525 :
						   NVRM_NV00F8_HVIDMEM_OFFSET_V535);
	return 0;
}

/**
 * nvrm_fabric_holds_memory() - whether RM, making this object, holds the memory it names
 * @f: the decoded request
 *
 * Return: true for a sticky object: RM validates @f->hvidmem (even 0, which it refuses) and
 * keeps a duplicate of it.
 */
bool nvrm_fabric_holds_memory(const struct nvrm_fabric_alloc *f)
{
	return !(f->alloc_flags & NVRM_NV00F8_ALLOC_FLAGS_FLEXIBLE_FLA);
}

static bool nvrm_fabric_aligned(u64 v, u64 to)
{
	return !(v & (to - 1));
}

/* 256 GiB pages: from 560 on every GPU; from 590 only where the GPU's HAL takes them. */
static bool nvrm_fabric_page_size_ok(const struct nvrm_abi *abi, u64 page_size, bool gpu_256g)
{
	if (page_size == NVRM_NV00F8_PAGE_SIZE_2M || page_size == NVRM_NV00F8_PAGE_SIZE_512M)
		return true;
	if (page_size != NVRM_NV00F8_PAGE_SIZE_256G ||
	    abi->major < NVRM_NV00F8_PAGE_SIZE_256G_SINCE)
		return false;
	return abi->major < NVRM_NV00F8_PAGE_SIZE_BY_GPU_SINCE || gpu_256g;
}

/**
 * nvrm_fabric_alloc_check() - RM's checks of the request before it looks at any handle
 * @abi: driver profile
 * @f: the decoded request
 * @gpu_256g: the GPU takes 256 GiB fabric pages (Blackwell), which matters from 590
 *
 * In RM's order: the page size, the alignment and the size in pages, FLEXIBLE_FLA in 525,
 * READ_ONLY (release builds), and a flexible object that names memory. The same order at every
 * tag 525.47.04-595.45.04 (a compiled audit of each, session 28).
 *
 * Return: NV_OK or RM's status.
 */
u32 nvrm_fabric_alloc_check(const struct nvrm_abi *abi, const struct nvrm_fabric_alloc *f,
			    bool gpu_256g)
{
	bool flexible = f->alloc_flags & NVRM_NV00F8_ALLOC_FLAGS_FLEXIBLE_FLA;

	if (!nvrm_fabric_page_size_ok(abi, f->page_size, gpu_256g))
		return NVRM_ERR_INVALID_ARGUMENT;
	if (!nvrm_fabric_aligned(f->alignment, f->page_size) ||
	    !nvrm_fabric_aligned(f->alloc_size, f->page_size))
		return NVRM_ERR_INVALID_ARGUMENT;
	if (flexible && abi->major < NVRM_NV00F8_FLEXIBLE_SINCE)
		return NVRM_ERR_INVALID_ARGUMENT;
	if (f->alloc_flags & NVRM_NV00F8_ALLOC_FLAGS_READ_ONLY)
		return NVRM_ERR_NOT_SUPPORTED;
	if (flexible && f->hvidmem)
		return NVRM_ERR_NOT_SUPPORTED;
	return NVRM_OK;
}

/**
 * nvrm_fabric_va_check() - the checks of fabricvaspaceAllocNonContiguous(), after the memory's
 * @f: the decoded request
 *
 * Return: NV_OK, or NV_ERR_INVALID_ARGUMENT for an empty object or one both forced contiguous
 * and not.
 */
u32 nvrm_fabric_va_check(const struct nvrm_fabric_alloc *f)
{
	const u32 both = NVRM_NV00F8_ALLOC_FLAGS_FORCE_NONCONTIGUOUS |
			 NVRM_NV00F8_ALLOC_FLAGS_FORCE_CONTIGUOUS;

	if (!f->alloc_size || (f->alloc_flags & both) == both)
		return NVRM_ERR_INVALID_ARGUMENT;
	return NVRM_OK;
}

/**
 * nvrm_fabric_map_check() - RM's checks of a sticky object's mapping of its memory
 * @f: the decoded request; the whole object maps @f->alloc_size bytes from @f->map_offset
 * @phys_size: the memory's size
 * @phys_page: its GPU page size (RM asked for 2 MiB or 512 MiB before this)
 *
 * _fabricVaspaceValidateMapAttrs() with fabric offset 0 and length @f->alloc_size.
 *
 * Return: NV_OK, NV_ERR_INVALID_OFFSET or NV_ERR_INVALID_ARGUMENT.
 */
u32 nvrm_fabric_map_check(const struct nvrm_fabric_alloc *f, u64 phys_size, u64 phys_page)
{
	if (!nvrm_fabric_aligned(f->map_offset, phys_page) || f->map_offset >= phys_size)
		return NVRM_ERR_INVALID_OFFSET;
	if (!nvrm_fabric_aligned(f->alloc_size, phys_page) ||
	    f->alloc_size > phys_size - f->map_offset)
		return NVRM_ERR_INVALID_ARGUMENT;
	return NVRM_OK;
}
