// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: UVM external ranges, and RM memory mapped into them (facts in kmod/nvrm/nvrm_uvm.h).
 *
 * Simulated: UVM_REGISTER_GPU_VASPACE / UNREGISTER_GPU_VASPACE, UVM_CREATE_EXTERNAL_RANGE,
 * UVM_MAP_EXTERNAL_ALLOCATION, UVM_UNMAP_EXTERNAL, UVM_ALLOC_DEVICE_P2P (580+; P2PDMA set up
 * only when the module parameter p2pdma says so) and UVM_FREE of those ranges, with the
 * real driver's checks and statuses in its order, and what matters to anyone counting memory: a
 * mapping holds the RM memory it maps (the duplicate UVM makes in its own client) until no part of
 * it is left, however the tenant's own handles come and go. A partial unmap splits a mapping and
 * both parts share the hold, as uvm_ext_gpu_map_split() shares the duplicate.
 *
 * Not simulated: GPU page tables (nvsim's GPU address space is the identity map of
 * kmod/nvsim/README.md, so a mapping changes nothing the engine reads), peer mappings (video
 * memory of another GPU: NV_ERR_NOT_SUPPORTED), the five per-GPU attribute enums (not checked),
 * and managed and semaphore-pool ranges (UVM_FREE knows external and P2P ranges). The GPU VA
 * space is checked (a FERMI_VASPACE_A of the GPU, in a client of the caller) but not held.
 *
 * Locking: everything under nvsim_uvm_lock; nvsim_rm_lock is taken inside it to look up and hold
 * RM objects, and to let go of them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interval_tree.h>
#include <linux/kref.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nvsim_uvm.h"

/**
 * struct nvsim_uvm_hold - the duplicate of RM memory that UVM keeps for one mapping
 * @ref: one per mapping fragment sharing it
 * @res: the memory's resource (a reference, as a handle holds one)
 */
struct nvsim_uvm_hold {
	struct kref ref;
	struct nvsim_res *res;
};

/**
 * struct nvsim_uvm_map - a mapping, or what a partial unmap left of one, on one GPU
 * @it: its span [start, last] in the range's tree for that GPU
 * @hold: what it holds
 */
struct nvsim_uvm_map {
	struct interval_tree_node it;
	struct nvsim_uvm_hold *hold;
};

/**
 * struct nvsim_uvm_range - an external range, a device-P2P range, or a dynamic-parallelism region
 * @it: its span in the VA space's @ranges
 * @p2p: a device-P2P range: one mapping, on its GPU, for all of it; not external
 * @sked: a dynamic-parallelism region (UVM_VA_RANGE_TYPE_SKED_REFLECTED): no mappings; not
 *	external
 * @maps: per GPU index, the mappings in it (a sparse one holds nothing)
 */
struct nvsim_uvm_range {
	struct interval_tree_node it;
	bool p2p;
	bool sked;
	struct rb_root_cached maps[NVSIM_MAX_GPUS];
};

/* Whether the GPUs have P2PDMA set up (device_p2p_initialised): most hosts do not. */
static bool p2pdma;
module_param(p2pdma, bool, 0644);
MODULE_PARM_DESC(p2pdma, "GPUs have P2PDMA set up for UVM_ALLOC_DEVICE_P2P (default off)");

static void nvsim_uvm_hold_release(struct kref *ref)
{
	struct nvsim_uvm_hold *hold = container_of(ref, struct nvsim_uvm_hold, ref);

	mutex_lock(&nvsim_rm_lock);
	nvsim_res_put(hold->res);
	mutex_unlock(&nvsim_rm_lock);
	kfree(hold);
}

static void nvsim_uvm_map_free(struct rb_root_cached *maps, struct nvsim_uvm_map *map)
{
	interval_tree_remove(&map->it, maps);
	if (map->hold)
		kref_put(&map->hold->ref, nvsim_uvm_hold_release);
	kfree(map);
}

static struct nvsim_uvm_map *nvsim_uvm_map_new(u64 start, u64 last, struct nvsim_uvm_hold *hold)
{
	struct nvsim_uvm_map *map = kzalloc(sizeof(*map), GFP_KERNEL);

	if (!map)
		return NULL;
	map->it.start = start;
	map->it.last = last;
	map->hold = hold;
	return map;
}

/*
 * Unmap [start, last] on one GPU of a range: what only partly overlaps is split first, and its
 * parts outside the span keep the hold (uvm_unmap_external_in_range()).
 */
static u32 nvsim_uvm_unmap_span(struct rb_root_cached *maps, u64 start, u64 last)
{
	struct interval_tree_node *it;

	while ((it = interval_tree_iter_first(maps, start, last))) {
		struct nvsim_uvm_map *map = container_of(it, struct nvsim_uvm_map, it);
		struct nvsim_uvm_map *left = NULL, *right = NULL;

		if (it->start < start) {
			left = nvsim_uvm_map_new(it->start, start - 1, map->hold);
			if (!left)
				return NVRM_ERR_NO_MEMORY;
		}
		if (it->last > last) {
			right = nvsim_uvm_map_new(last + 1, it->last, map->hold);
			if (!right) {
				kfree(left);
				return NVRM_ERR_NO_MEMORY;
			}
		}
		if (left) {
			if (map->hold)
				kref_get(&map->hold->ref);
			interval_tree_insert(&left->it, maps);
		}
		if (right) {
			if (map->hold)
				kref_get(&map->hold->ref);
			interval_tree_insert(&right->it, maps);
		}
		nvsim_uvm_map_free(maps, map);
	}
	return NVRM_OK;
}

static void nvsim_uvm_unmap_all(struct rb_root_cached *maps)
{
	struct interval_tree_node *it;

	while ((it = interval_tree_iter_first(maps, 0, ULONG_MAX)))
		nvsim_uvm_map_free(maps, container_of(it, struct nvsim_uvm_map, it));
}

static void nvsim_uvm_range_destroy(struct nvsim_uvm_file *uf, struct nvsim_uvm_range *range)
{
	unsigned int i;

	for (i = 0; i < NVSIM_MAX_GPUS; i++)
		nvsim_uvm_unmap_all(&range->maps[i]);
	interval_tree_remove(&range->it, &uf->ranges);
	kfree(range);
}

/* The external range holding [base, base + length), or NULL. */
static struct nvsim_uvm_range *nvsim_uvm_range_of(struct nvsim_uvm_file *uf, u64 base, u64 length)
{
	struct interval_tree_node *it = interval_tree_iter_first(&uf->ranges, base, base);

	if (!it || base + length - 1 > it->last ||
	    container_of(it, struct nvsim_uvm_range, it)->p2p ||
	    container_of(it, struct nvsim_uvm_range, it)->sked)
		return NULL;
	return container_of(it, struct nvsim_uvm_range, it);
}

/*
 * May UVM duplicate @client's objects into its kernel client? RM's default share policy lets a
 * kernel destination through only for the process that owns the client (RS_SHARE_TYPE_PID).
 */
static bool nvsim_uvm_may_dup(const struct nvsim_client *client)
{
	return !client->kernel && client->tgid == task_tgid_nr(current);
}

/*
 * The RM object @handle of @hclient, for a UVM duplicate (nvsim_uvm_may_dup()).
 * Context: nvsim_rm_lock held.
 */
static u32 nvsim_uvm_rm_object(u32 hclient, u32 handle, struct nvsim_object **obj)
{
	struct nvsim_client *client = nvsim_client_lookup(hclient);

	if (!client)
		return NVRM_ERR_INVALID_CLIENT;
	if (!nvsim_uvm_may_dup(client))
		return NVRM_ERR_INSUFFICIENT_PERMISSIONS;
	*obj = nvsim_object_lookup(client, handle);
	return *obj ? NVRM_OK : NVRM_ERR_OBJECT_NOT_FOUND;
}

/*
 * nvGpuOpsDupAddressSpace() (580.142) on the VA space @hclient's @handle names, in its order:
 * the client (NV_ERR_INVALID_CLIENT), the object (NV_ERR_OBJECT_NOT_FOUND), a VA space
 * (NV_ERR_INVALID_OBJECT), of @gpu's device (NV_ERR_OTHER_DEVICE_FOUND); UVM's duplicate of it
 * (nvsim_uvm_may_dup(), NV_ERR_INSUFFICIENT_PERMISSIONS); and one UVM manages the page tables of
 * (NV_ERR_INVALID_FLAGS).
 * Context: nvsim_rm_lock held.
 */
static u32 nvsim_uvm_gpu_vaspace_check(const struct nvsim_gpu *gpu, u32 hclient, u32 handle,
				       struct nvsim_object **obj)
{
	struct nvsim_client *client = nvsim_client_lookup(hclient);

	if (!client)
		return NVRM_ERR_INVALID_CLIENT;
	*obj = nvsim_object_lookup(client, handle);
	if (!*obj)
		return NVRM_ERR_OBJECT_NOT_FOUND;
	if (!nvsim_vaspace_of(*obj))
		return NVRM_ERR_INVALID_OBJECT;
	if ((*obj)->gpu != gpu)
		return NVRM_ERR_OTHER_DEVICE_FOUND;
	if (!nvsim_uvm_may_dup(client))
		return NVRM_ERR_INSUFFICIENT_PERMISSIONS;
	if (!nvsim_vaspace_external(nvsim_vaspace_of(*obj)))
		return NVRM_ERR_INVALID_FLAGS;
	return NVRM_OK;
}

/* UVM_REGISTER_GPU_VASPACE (uvm_va_space_register_gpu_va_space) */
u32 nvsim_uvm_register_gpu_vaspace(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_register_gpu_vaspace *p = params;
	struct nvsim_gpu *gpu = nvsim_uvm_gpu_by_uuid(p->gpu_uuid);
	struct nvsim_object *obj;
	u32 status;

	if (!gpu || !test_bit(gpu->index, uf->registered) || uf->vas[gpu->index])
		return NVRM_ERR_INVALID_DEVICE;
	/*
	 * UVM takes the VA space's mm first (uvm_va_space_mm_or_current_retain(), uvm_va_space.c,
	 * 580.142): from 535 an MM file must have claimed it (UVM_MM_INITIALIZE), unless the VA
	 * space shares no mm (multi-process sharing mode). An H200 with 580.159.04 answered
	 * NV_ERR_PAGE_TABLE_NOT_AVAIL without it (session 34).
	 */
	if (nvsim_abi.major >= NVRM_UVM_MM_INITIALIZE_SINCE && uf->mm_state != NVSIM_UVM_MM_ALIVE &&
	    !(uf->flags & NVRM_UVM_INIT_FLAGS_MULTI_PROCESS_SHARING_MODE))
		return NVRM_ERR_PAGE_TABLE_NOT_AVAIL;
	mutex_lock(&nvsim_rm_lock);
	status = nvsim_uvm_gpu_vaspace_check(gpu, p->hclient, p->hva_space, &obj);
	if (!status) {
		uf->vas[gpu->index] = nvsim_vaspace_get(nvsim_vaspace_of(obj));
		uf->vas[gpu->index]->uvm_users++;	/* its page directory is set */
	}
	mutex_unlock(&nvsim_rm_lock);
	return status;
}

/**
 * nvsim_uvm_vaspace_drop() - a GPU VA space is unregistered: UVM unsets its page directory and
 *	lets go of the RM VA space
 * @uf: the VA space
 * @gpu: the GPU's index; @uf->vas[@gpu] is set
 *
 * Context: nvsim_uvm_lock held; takes nvsim_rm_lock.
 */
void nvsim_uvm_vaspace_drop(struct nvsim_uvm_file *uf, unsigned int gpu)
{
	mutex_lock(&nvsim_rm_lock);
	uf->vas[gpu]->uvm_users--;
	nvsim_vaspace_put(uf->vas[gpu]);
	uf->vas[gpu] = NULL;
	mutex_unlock(&nvsim_rm_lock);
}

/*
 * The GPU's external mappings and registered channels go with its VA space or its registration;
 * its device-P2P ranges with its registration (@registration), whole.
 */
void nvsim_uvm_gpu_unmapped(struct nvsim_uvm_file *uf, unsigned int gpu, bool registration)
{
	struct interval_tree_node *it, *next;
	struct nvsim_uvm_range *range;

	for (it = interval_tree_iter_first(&uf->ranges, 0, ULONG_MAX); it; it = next) {
		next = interval_tree_iter_next(it, 0, ULONG_MAX);
		range = container_of(it, struct nvsim_uvm_range, it);
		if (range->sked)
			continue;	/* its entry is cleared; the range stays until UVM_FREE */
		if (!range->p2p)
			nvsim_uvm_unmap_all(&range->maps[gpu]);
		else if (registration && !RB_EMPTY_ROOT(&range->maps[gpu].rb_root))
			nvsim_uvm_range_destroy(uf, range);
	}
	nvsim_uvm_channels_release(uf, gpu);
	if (uf->vas[gpu])
		nvsim_uvm_vaspace_drop(uf, gpu);
}

/* UVM_UNREGISTER_GPU_VASPACE */
u32 nvsim_uvm_unregister_gpu_vaspace(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_unregister_gpu_vaspace *p = params;
	struct nvsim_gpu *gpu = nvsim_uvm_gpu_by_uuid(p->gpu_uuid);

	if (!gpu || !uf->vas[gpu->index])
		return NVRM_ERR_INVALID_DEVICE;
	nvsim_uvm_gpu_unmapped(uf, gpu->index, false);
	return NVRM_OK;
}

/* A new range in the VA space, for a span the caller checked is free. */
static struct nvsim_uvm_range *nvsim_uvm_range_new(struct nvsim_uvm_file *uf, u64 base, u64 length)
{
	struct nvsim_uvm_range *range = kzalloc(sizeof(*range), GFP_KERNEL);
	unsigned int i;

	if (!range)
		return NULL;
	range->it.start = base;
	range->it.last = base + length - 1;
	for (i = 0; i < NVSIM_MAX_GPUS; i++)
		range->maps[i] = RB_ROOT_CACHED;
	interval_tree_insert(&range->it, &uf->ranges);
	return range;
}

/* UVM_CREATE_EXTERNAL_RANGE (uvm_create_external_range) */
u32 nvsim_uvm_create_external_range(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_create_external_range *p = params;
	struct nvsim_uvm_range *range;

	if (nvsim_uvm_span_invalid(p->base, p->length))
		return NVRM_ERR_INVALID_ADDRESS;
	if (interval_tree_iter_first(&uf->ranges, p->base, p->base + p->length - 1))
		return NVRM_ERR_UVM_ADDRESS_IN_USE;
	range = nvsim_uvm_range_new(uf, p->base, p->length);
	return range ? NVRM_OK : NVRM_ERR_NO_MEMORY;
}

/* Duplicate what [offset, offset + length) of hClient's hMemory is, for a mapping on @gpu. */
static u32 nvsim_uvm_dup_memory(struct nvsim_gpu *gpu, u32 hclient, u32 hmemory, u64 offset,
				u64 length, u32 too_far, struct nvsim_uvm_hold **out)
{
	struct nvsim_uvm_hold *hold = kzalloc(sizeof(*hold), GFP_KERNEL);
	struct nvsim_object *obj;
	struct nvsim_mem *mem;
	u32 status;

	if (!hold)
		return NVRM_ERR_NO_MEMORY;
	mutex_lock(&nvsim_rm_lock);
	status = nvsim_uvm_rm_object(hclient, hmemory, &obj);
	if (status)
		goto out_unlock;
	mem = nvsim_obj_mem(obj);
	if (!mem) {
		status = NVRM_ERR_INVALID_OBJECT_HANDLE;
		goto out_unlock;
	}
	if (!mem->backing || (mem->fb_bytes && mem->gpu != gpu)) {
		status = NVRM_ERR_NOT_SUPPORTED;	/* virtual memory; a peer's video memory */
		goto out_unlock;
	}
	if (offset + length < offset || offset + length > mem->size) {
		status = too_far;
		goto out_unlock;
	}
	kref_init(&hold->ref);
	kref_get(&obj->res->ref);
	hold->res = obj->res;
	*out = hold;
	hold = NULL;
out_unlock:
	mutex_unlock(&nvsim_rm_lock);
	kfree(hold);
	return status;
}

/* One GPU of a UVM_MAP_EXTERNAL_ALLOCATION (uvm_map_external_allocation_on_gpu) */
static u32 nvsim_uvm_map_on_gpu(struct nvsim_uvm_range *range, struct nvsim_gpu *gpu, u64 base,
				u64 length, u64 offset, const struct nvrm_uvm_map_external_tail *t)
{
	struct rb_root_cached *maps = &range->maps[gpu->index];
	struct nvsim_uvm_hold *hold;
	struct nvsim_uvm_map *map;
	u32 status;

	status = nvsim_uvm_unmap_span(maps, base, base + length - 1);
	if (status)
		return status;
	status = nvsim_uvm_dup_memory(gpu, t->hclient, t->hmemory, offset, length,
				      NVRM_ERR_INVALID_OFFSET, &hold);
	if (status)
		return status;
	map = nvsim_uvm_map_new(base, base + length - 1, hold);
	if (!map) {
		kref_put(&hold->ref, nvsim_uvm_hold_release);
		return NVRM_ERR_NO_MEMORY;
	}
	interval_tree_insert(&map->it, maps);
	return NVRM_OK;
}

/* UVM_MAP_EXTERNAL_ALLOCATION (uvm_map_external_allocation), in either layout of the ABI */
u32 nvsim_uvm_map_external(struct nvsim_uvm_file *uf, void *params)
{
	u32 gpus = nvsim_abi.uvm_map_external_allocation_size ==
		   NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V550 ?
		   NVRM_UVM_MAP_EXT_GPUS_V550 : NVRM_UVM_MAP_EXT_GPUS_V525;
	const struct nvrm_uvm_gpu_mapping_attributes *attrs =
		params + NVRM_UVM_MAP_EXT_ATTRS_OFFSET;
	const struct nvrm_uvm_map_external_tail *t =
		params + NVRM_UVM_MAP_EXT_TAIL_OFFSET(gpus);
	const u64 *head = params;	/* base, length, offset */
	DECLARE_BITMAP(mapped, NVSIM_MAX_GPUS) = {};
	struct nvsim_uvm_range *range;
	struct nvsim_gpu *gpu;
	unsigned int i;
	u32 status = NVRM_OK;

	if (nvsim_uvm_span_invalid(head[0], head[1]))
		return NVRM_ERR_INVALID_ADDRESS;
	if (!t->gpu_attributes_count || t->gpu_attributes_count > gpus)
		return NVRM_ERR_INVALID_ARGUMENT;
	range = nvsim_uvm_range_of(uf, head[0], head[1]);
	if (!range)
		return NVRM_ERR_INVALID_ADDRESS;
	for (i = 0; i < t->gpu_attributes_count; i++) {
		gpu = nvsim_uvm_gpu_by_uuid(attrs[i].gpu_uuid);
		if (!gpu || !uf->vas[gpu->index]) {
			status = NVRM_ERR_INVALID_DEVICE;
			break;
		}
		status = nvsim_uvm_map_on_gpu(range, gpu, head[0], head[1], head[2], t);
		if (status)
			break;
		set_bit(gpu->index, mapped);
	}
	if (status)	/* only what this call mapped goes */
		for_each_set_bit(i, mapped, NVSIM_MAX_GPUS)
			nvsim_uvm_unmap_span(&range->maps[i], head[0], head[0] + head[1] - 1);
	return status;
}

/* UVM_UNMAP_EXTERNAL (uvm_unmap_external) */
u32 nvsim_uvm_unmap_external(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_unmap_external *p = params;
	struct nvsim_uvm_range *range;
	struct nvsim_gpu *gpu;

	if (nvsim_uvm_span_invalid(p->base, p->length))
		return NVRM_ERR_INVALID_ADDRESS;
	range = nvsim_uvm_range_of(uf, p->base, p->length);
	if (!range)
		return NVRM_ERR_INVALID_ADDRESS;
	gpu = nvsim_uvm_gpu_by_uuid(p->gpu_uuid);
	if (!gpu || !test_bit(gpu->index, uf->registered))
		return NVRM_ERR_INVALID_DEVICE;
	return nvsim_uvm_unmap_span(&range->maps[gpu->index], p->base,
				    p->base + p->length - 1);
}

/* UVM_MAP_EXTERNAL_SPARSE (uvm_map_external_sparse(), checks in nvrm_uvm.h) */
u32 nvsim_uvm_map_external_sparse(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_unmap_external *p = params;	/* the same layout */
	struct nvsim_uvm_range *range;
	struct nvsim_uvm_map *map;
	struct nvsim_gpu *gpu;
	u32 status;

	/* uvm_api_range_invalid_64k() */
	if (nvsim_uvm_span_invalid(p->base, p->length) ||
	    !IS_ALIGNED(p->base, NVRM_UVM_SPARSE_PAGE_SIZE) ||
	    !IS_ALIGNED(p->length, NVRM_UVM_SPARSE_PAGE_SIZE))
		return NVRM_ERR_INVALID_ADDRESS;
	range = nvsim_uvm_range_of(uf, p->base, p->length);
	if (!range)
		return NVRM_ERR_INVALID_ADDRESS;
	gpu = nvsim_uvm_gpu_by_uuid(p->gpu_uuid);
	if (!gpu || !uf->vas[gpu->index])
		return NVRM_ERR_INVALID_DEVICE;
	status = nvsim_uvm_unmap_span(&range->maps[gpu->index], p->base,
				      p->base + p->length - 1);
	if (status)
		return status;
	map = nvsim_uvm_map_new(p->base, p->base + p->length - 1, NULL);
	if (!map)
		return NVRM_ERR_NO_MEMORY;
	interval_tree_insert(&map->it, &range->maps[gpu->index]);
	return NVRM_OK;
}

/* The GPU page sizes of nvsim's GPU, a Hopper: 4K, 64K, 2M, 512M (uvm_ampere_mmu.c). */
static bool nvsim_uvm_page_size_ok(u64 size)
{
	return size == SZ_4K || size == SZ_64K || size == SZ_2M || size == SZ_512M;
}

/* UVM_MAP_DYNAMIC_PARALLELISM_REGION (uvm_map_sked_reflected_range(), checks in nvrm_uvm.h) */
u32 nvsim_uvm_map_dynamic_parallelism_region(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_unmap_external *p = params;	/* the same layout */
	struct nvsim_uvm_range *range;
	struct nvsim_gpu *gpu;

	if (nvsim_uvm_span_invalid(p->base, p->length))
		return NVRM_ERR_INVALID_ADDRESS;
	gpu = nvsim_uvm_gpu_by_uuid(p->gpu_uuid);
	if (!gpu || !uf->vas[gpu->index])
		return NVRM_ERR_INVALID_DEVICE;
	if (!nvsim_uvm_page_size_ok(p->length) || !IS_ALIGNED(p->base, p->length))
		return NVRM_ERR_INVALID_ADDRESS;
	if (interval_tree_iter_first(&uf->ranges, p->base, p->base + p->length - 1))
		return NVRM_ERR_UVM_ADDRESS_IN_USE;
	range = nvsim_uvm_range_new(uf, p->base, p->length);
	if (!range)
		return NVRM_ERR_NO_MEMORY;
	range->sked = true;
	return NVRM_OK;
}

/* UVM_ALLOC_DEVICE_P2P (uvm_api_alloc_device_p2p) */
u32 nvsim_uvm_alloc_device_p2p(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_alloc_device_p2p *p = params;
	struct nvsim_gpu *gpu = nvsim_uvm_gpu_by_uuid(p->gpu_uuid);
	struct nvsim_uvm_range *range;
	struct nvsim_uvm_hold *hold;
	struct nvsim_uvm_map *map;
	u32 status;

	/* uvm_api_range_offset_invalid() */
	if (nvsim_uvm_span_invalid(p->base, p->offset + p->length) ||
	    !IS_ALIGNED(p->offset, PAGE_SIZE) || !IS_ALIGNED(p->length, PAGE_SIZE) ||
	    !IS_ALIGNED(p->base, PAGE_SIZE) || p->offset + p->length < p->offset)
		return NVRM_ERR_INVALID_ARGUMENT;
	if (!gpu || !test_bit(gpu->index, uf->registered))
		return NVRM_ERR_INVALID_DEVICE;
	if (!READ_ONCE(p2pdma))
		return NVRM_ERR_NOT_SUPPORTED;
	status = nvsim_uvm_dup_memory(gpu, p->hclient, p->hmemory, p->offset, p->length,
				      NVRM_ERR_INVALID_ARGUMENT, &hold);
	if (status)
		return status;
	if (interval_tree_iter_first(&uf->ranges, p->base, p->base + p->length - 1)) {
		status = NVRM_ERR_UVM_ADDRESS_IN_USE;
		goto err_put;
	}
	map = nvsim_uvm_map_new(p->base, p->base + p->length - 1, hold);
	range = map ? nvsim_uvm_range_new(uf, p->base, p->length) : NULL;
	if (!range) {
		kfree(map);
		status = NVRM_ERR_NO_MEMORY;
		goto err_put;
	}
	range->p2p = true;
	interval_tree_insert(&map->it, &range->maps[gpu->index]);
	return NVRM_OK;

err_put:
	kref_put(&hold->ref, nvsim_uvm_hold_release);
	return status;
}

/*
 * UVM_FREE (uvm_free): of the range types, nvsim has external, device-P2P and sked-reflected
 * ones. Through 580 the call names the whole range, base and length; from 590 the base alone
 * (nvrm_uvm.h).
 */
u32 nvsim_uvm_free(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_free_v525 *old = params;
	u64 base = old->base;	/* @0 in both layouts */
	struct interval_tree_node *it = interval_tree_iter_first(&uf->ranges, base, base);

	if (nvsim_abi.major < NVRM_UVM_FREE_BASE_ONLY_SINCE &&
	    (nvsim_uvm_span_invalid(base, old->length) ||
	     (it && it->last != base + old->length - 1)))
		return NVRM_ERR_INVALID_ADDRESS;
	if (!it || it->start != base)
		return NVRM_ERR_INVALID_ADDRESS;
	nvsim_uvm_range_destroy(uf, container_of(it, struct nvsim_uvm_range, it));
	return NVRM_OK;
}

/* The VA space goes: every range, and what its mappings held. */
void nvsim_uvm_ranges_release(struct nvsim_uvm_file *uf)
{
	struct interval_tree_node *it;

	while ((it = interval_tree_iter_first(&uf->ranges, 0, ULONG_MAX)))
		nvsim_uvm_range_destroy(uf, container_of(it, struct nvsim_uvm_range, it));
}
