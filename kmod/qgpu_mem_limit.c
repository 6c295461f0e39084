// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: the arithmetic of per-instance memory limits (see qgpu_mem_limit.h). A limit (`max`) of
 * 0 means unlimited, as in struct qgpu_create_req.
 */
#include "nvrm/nvrm_abi.h"
#include "nvrm/nvrm_decode.h"
#include "qgpu_create_parse.h"
#include "qgpu_mem_limit.h"

/**
 * qgpu_mem_fits() - may an instance using @used bytes charge @size more?
 * @used: bytes charged now
 * @max: its limit, 0 for unlimited
 * @size: bytes asked for
 *
 * Return: true if @used + @size does not exceed @max (always for an unlimited instance).
 */
bool qgpu_mem_fits(u64 used, u64 max, u64 size)
{
	if (!max)
		return true;
	return used <= max && size <= max - used;
}

/**
 * qgpu_mem_reserve_size() - what qgpu reserves before RM allocates @size bytes of video memory
 * @size: the requested size
 * @attr: the request's NVOS32 attr (its PAGE_SIZE field)
 * @flags: the request's NVOS32_ALLOC_FLAGS_*
 * @alignment: the request's alignment
 *
 * RM rounds an allocation up to its page size (2 MiB at the default from 2 MiB on), or to a
 * forced alignment above it (nvrm_vidmem_granule()). qgpu reserves the request rounded the same
 * way; what RM really allocated is asked of RM afterwards and replaces the reservation.
 *
 * Return: the rounded size; 0 when rounding overflows 64 bits (refuse the call).
 */
u64 qgpu_mem_reserve_size(u64 size, u32 attr, u32 flags, u64 alignment)
{
	u64 page = nvrm_vidmem_granule(size, attr, flags, alignment);

	if (size > ~0ULL - (page - 1))
		return 0;
	return (size + page - 1) & ~(page - 1);
}

/**
 * qgpu_sysmem_reserve_size() - what qgpu reserves before RM allocates @size bytes of system memory
 * @size: the requested size
 *
 * The least RM can allocate: whole 4 KiB pages (RM_PAGE_SIZE). RM may use larger pages
 * (sysmemConstruct_IMPL() retries smaller ones from the default); it writes back the size it
 * allocated, and that replaces the reservation.
 *
 * Return: the rounded size; 0 for 0 bytes or when rounding overflows 64 bits (refuse the call).
 */
u64 qgpu_sysmem_reserve_size(u64 size)
{
	const u32 small = NVRM_ATTR_PAGE_SIZE_4KB << NVRM_ATTR_PAGE_SIZE_SHIFT;

	return qgpu_mem_reserve_size(size, small, 0, 0);
}

/**
 * qgpu_mem_effective_max() - an instance's limit as a number of bytes
 * @max: the limit, 0 for unlimited
 * @memory: the GPU's memory
 *
 * Return: @max, or @memory for an unlimited instance (and never more than @memory).
 */
u64 qgpu_mem_effective_max(u64 max, u64 memory)
{
	return !max || max > memory ? memory : max;
}

/**
 * qgpu_mem_committed() - what a limit counts for in the sum of a GPU's limits
 * @max: the limit, 0 for unlimited
 * @memory: the GPU's memory
 *
 * Return: @max as it is (a limit above the GPU's memory, possible with overcommit, counts in
 * full), or @memory for an unlimited instance.
 */
u64 qgpu_mem_committed(u64 max, u64 memory)
{
	return max ? max : memory;
}

/**
 * qgpu_mem_sum_fits() - without overcommit, may one more limit join the others?
 * @others: the sum of the other instances' limits on the GPU (qgpu_mem_committed() each)
 * @max: the new limit, 0 for unlimited (counts as the whole memory)
 * @memory: the GPU's memory
 *
 * Return: true if @others plus @max is at most @memory.
 */
bool qgpu_mem_sum_fits(u64 others, u64 max, u64 memory)
{
	u64 eff = qgpu_mem_committed(max, memory);

	return others <= memory && eff <= memory - others;
}

/**
 * qgpu_mem_parse_max() - parse a write to `mem_max`
 * @buf: what was written: a SIZE (qgpu_parse_size()) or "max", optionally ending in one newline
 * @len: its length
 * @out: the limit, 0 for "max"
 *
 * Return: 0, or -EINVAL.
 */
int qgpu_mem_parse_max(const char *buf, size_t len, u64 *out)
{
	if (len && buf[len - 1] == '\n')
		len--;
	return qgpu_parse_size(buf, len, out);
}

/**
 * qgpu_mem_view_free() - the free memory an instance is shown
 * @max: its limit, 0 for unlimited
 * @used: what it has charged
 * @memory: the GPU's memory
 * @real_free: what the GPU really has free
 *
 * Return: the smaller of what is left under the limit and what is really free.
 */
u64 qgpu_mem_view_free(u64 max, u64 used, u64 memory, u64 real_free)
{
	u64 eff = qgpu_mem_effective_max(max, memory);
	u64 left = used < eff ? eff - used : 0;

	return left < real_free ? left : real_free;
}

static u32 qgpu_kb32(u64 bytes)
{
	u64 kb = bytes >> 10;

	return kb > 0xffffffffULL ? 0xffffffffu : (u32)kb;
}

/**
 * qgpu_mem_fb_index_view() - an FB_GET_INFO(_V2) entry as an instance sees it
 * @index: NV2080_CTRL_FB_INFO_INDEX_*
 * @total: the instance's memory (its effective limit) in bytes
 * @free: what it is shown free (qgpu_mem_view_free()) in bytes
 * @data: the entry's data (KiB for these indices), replaced when @index is virtualised
 *
 * The sizes (RAM, total RAM, usable RAM, heap, mappable heap, BAR1) become @total; the free
 * amounts (heap free, largest free region, BAR1 available) become @free. Other indices keep
 * the GPU's value.
 *
 * Return: true if @index is virtualised.
 */
bool qgpu_mem_fb_index_view(u32 index, u64 total, u64 free, u32 *data)
{
	switch (index) {
	case NVRM_FB_INFO_INDEX_RAM_SIZE:
	case NVRM_FB_INFO_INDEX_TOTAL_RAM_SIZE:
	case NVRM_FB_INFO_INDEX_USABLE_RAM_SIZE:
	case NVRM_FB_INFO_INDEX_HEAP_SIZE:
	case NVRM_FB_INFO_INDEX_MAPPABLE_HEAP_SIZE:
		*data = qgpu_kb32(total);
		return true;
	case NVRM_FB_INFO_INDEX_BAR1_SIZE:
		if (*data > qgpu_kb32(total))
			*data = qgpu_kb32(total);
		return true;
	case NVRM_FB_INFO_INDEX_HEAP_FREE:
	case NVRM_FB_INFO_INDEX_LARGEST_FREE_REGION_SIZE_KB:
		*data = qgpu_kb32(free);
		return true;
	case NVRM_FB_INFO_INDEX_BAR1_AVAIL_SIZE:
		if (*data > qgpu_kb32(free))
			*data = qgpu_kb32(free);
		return true;
	case NVRM_FB_INFO_INDEX_FB_TAX_SIZE_KB:
		*data = 0;	/* VID_HEAP INFO total = HEAP_SIZE + tax: the limit, exactly */
		return true;
	default:
		return false;
	}
}

/**
 * qgpu_mapped_units() - the 2 MiB regions of GPU virtual address space a mapping touches
 * @va: its first address
 * @len: its length in bytes
 *
 * What a mapping counts against ``mapped_max`` (DOC: GPU mappings in qgpu_mapped.c).
 *
 * Return: the number of regions; 0 for an empty mapping, ~0 for one past the end of the
 * address space (RM refuses such a call).
 */
u64 qgpu_mapped_units(u64 va, u64 len)
{
	if (!len)
		return 0;
	if (va + (len - 1) < va)
		return ~0ULL;
	return ((va + (len - 1)) >> QGPU_MAPPED_UNIT_SHIFT) - (va >> QGPU_MAPPED_UNIT_SHIFT) + 1;
}

/**
 * qgpu_mapped_units_most() - the most 2 MiB regions a mapping of @len bytes may touch, wherever
 * it is placed
 * @len: its length in bytes
 *
 * For a mapping whose address RM chooses, or places from a base qgpu does not know.
 *
 * Return: the number of regions; 0 for @len 0, ~0 where it cannot be counted.
 */
u64 qgpu_mapped_units_most(u64 len)
{
	if (!len)
		return 0;
	if (len > ~0ULL - (QGPU_MAPPED_UNIT - 2))
		return ~0ULL;
	return ((len + (QGPU_MAPPED_UNIT - 2)) >> QGPU_MAPPED_UNIT_SHIFT) + 1;
}

/**
 * qgpu_mapped_virtual_units() - the 2 MiB regions a virtual range has RM map up front
 * @flags: its allocation flags (NVRM_ALLOC_FLAGS_*)
 * @size: its size in bytes
 *
 * A range reserved without LAZY or EXTERNALLY_MANAGED has RM allocate the page tables of its
 * whole span at once, as if it were mapped; the others get theirs with their mappings.
 *
 * Return: the most regions the range may touch, wherever RM places it (at most
 * QGPU_MAPPED_UNITS_LIMIT + 1, a range no GPU has); 0 where RM maps nothing up front.
 */
u64 qgpu_mapped_virtual_units(u32 flags, u64 size)
{
	u64 units;

	if (flags & (NVRM_ALLOC_FLAGS_LAZY | NVRM_ALLOC_FLAGS_EXTERNALLY_MANAGED))
		return 0;
	units = qgpu_mapped_units_most(size);
	return units > QGPU_MAPPED_UNITS_LIMIT ? QGPU_MAPPED_UNITS_LIMIT + 1ULL : units;
}
