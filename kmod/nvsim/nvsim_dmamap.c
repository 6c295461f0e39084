// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: RM_MAP_MEMORY_DMA and RM_UNMAP_MEMORY_DMA, memory mapped into a GPU virtual address range.
 *
 * As RM does it for a virtual allocation (NV50_MEMORY_VIRTUAL, 0x50A0) as hDma
 * (rmapiMapWithSecInfo() -> serverInterMap() -> virtmemMapTo_IMPL() -> dmaAllocMap_IMPL(), and
 * serverInterUnmap(), 525.147.05-580.142; open-gpu-kernel-modules):
 * - the device, the virtual allocation and the memory are looked up in the calling client
 *   (NV_ERR_OBJECT_NOT_FOUND); a zero length is NV_ERR_INVALID_LIMIT, and so is a span past the
 *   memory's end; the device must be a device or subdevice (NV_ERR_INVALID_OBJECT), and a
 *   subdevice cannot map into a virtual allocation (NV_ERR_NOT_SUPPORTED); what cannot be mapped
 *   (virtual memory, or no memory) is NV_ERR_INVALID_OBJECT_HANDLE, and so is an hDma that
 *   maps nothing;
 * - dmaOffset is from the allocation's base, or absolute with DMA_OFFSET_FIXED; the address must
 *   lie in the allocation (NV_ERR_INVALID_OFFSET), the span end in it (NV_ERR_INVALID_ARGUMENT),
 *   and its place in a page match the memory offset's (NV_ERR_INVALID_OFFSET; RM checks this at
 *   the mapping's page size, nvsim at 4 KiB); the absolute address is written back;
 * - a span that starts inside a live mapping of the same allocation is NV_ERR_INVALID_ARGUMENT,
 *   one that overlaps one otherwise NV_ERR_INSERT_DUPLICATE_NAME (_gvaspaceMappingInsert(),
 *   btreeInsert()), at page granularity;
 * - each mapping is a record RM keeps (RsInterMapping, CLI_DMA_MAPPING_INFO: kernel memory no
 *   cgroup is charged for, and no count bounds), until RM_UNMAP_MEMORY_DMA, or until the virtual
 *   allocation, the memory handle or the device goes (clientFreeResource()'s
 *   _clientUnmapInterMappings() and _clientUnmapInterBackRefMappings());
 * - RM_UNMAP_MEMORY_DMA in 550-595 names the mapping by hDma, hDevice and its address: size 0 the
 *   mapping at exactly that address (NV_ERR_OBJECT_NOT_FOUND if none), any other size every part
 *   of the allocation's mappings for that device within the span, splitting what it cuts, and
 *   NV_OK even when nothing matched. In 525-545 (no size) hMemory must match too.
 *
 * Not simulated: the page tables RM allocates for a mapping (from the GPU's page-level pool,
 * shared by every client) and the GPU's view of mapped memory; other hDma classes RM maps into
 * (NV01_MEMORY_VIRTUAL, context DMAs) answer NV_ERR_NOT_SUPPORTED. /proc/driver/nvsim/gpu<N>/
 * dma_mappings counts the records and the bytes they map.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "nvsim_internal.h"

#define NVSIM_DMAMAP_PAGE	4096ull

enum nvsim_dmamap_role { NVSIM_DMAMAP_MAPPER, NVSIM_DMAMAP_MEMORY, NVSIM_DMAMAP_CONTEXT,
			 NVSIM_DMAMAP_ROLES };

/* One object's part in a mapping: an entry in the object's dma_maps */
struct nvsim_dmamap_ref {
	struct list_head node;
	struct nvsim_dmamap *map;
};

/**
 * struct nvsim_dmamap - one mapping RM keeps
 * @ref: its entries in the virtual allocation's, the memory's and the device's dma_maps
 * @obj: those three objects
 * @gpu: the virtual allocation's GPU, whose counts it is in
 * @va: its absolute GPU virtual address
 * @len: bytes mapped
 * @offset: where in the memory it starts
 */
struct nvsim_dmamap {
	struct nvsim_dmamap_ref ref[NVSIM_DMAMAP_ROLES];
	struct nvsim_object *obj[NVSIM_DMAMAP_ROLES];
	struct nvsim_gpu *gpu;
	u64 va;
	u64 len;
	u64 offset;
};

static struct nvsim_dmamap *nvsim_dmamap_new(struct nvsim_object *obj[NVSIM_DMAMAP_ROLES],
					     u64 va, u64 len, u64 offset)
{
	struct nvsim_dmamap *map = kzalloc(sizeof(*map), GFP_KERNEL);
	int i;

	lockdep_assert_held(&nvsim_rm_lock);
	if (!map)
		return NULL;
	for (i = 0; i < NVSIM_DMAMAP_ROLES; i++) {
		map->obj[i] = obj[i];
		map->ref[i].map = map;
		list_add_tail(&map->ref[i].node, &obj[i]->dma_maps);
	}
	map->gpu = obj[NVSIM_DMAMAP_MAPPER]->gpu;
	map->va = va;
	map->len = len;
	map->offset = offset;
	map->gpu->dma_maps++;
	map->gpu->dma_mapped += len;
	return map;
}

static void nvsim_dmamap_free(struct nvsim_dmamap *map)
{
	int i;

	lockdep_assert_held(&nvsim_rm_lock);
	for (i = 0; i < NVSIM_DMAMAP_ROLES; i++)
		list_del(&map->ref[i].node);
	map->gpu->dma_maps--;
	map->gpu->dma_mapped -= map->len;
	kfree(map);
}

/* The first and last+1 page-aligned addresses of [va, va + len): RM's key for overlaps. */
static u64 nvsim_dmamap_lo(u64 va)
{
	return round_down(va, NVSIM_DMAMAP_PAGE);
}

static u64 nvsim_dmamap_hi(u64 va, u64 len)
{
	return round_up(va + len, NVSIM_DMAMAP_PAGE);
}

/* Does a new mapping of [va, va + len) in @dma collide with a live one? RM's status, or NV_OK. */
static u32 nvsim_dmamap_overlap(struct nvsim_object *dma, u64 va, u64 len)
{
	u64 lo = nvsim_dmamap_lo(va), hi = nvsim_dmamap_hi(va, len);
	struct nvsim_dmamap_ref *r;

	list_for_each_entry(r, &dma->dma_maps, node) {
		struct nvsim_dmamap *m = r->map;
		u64 mlo = nvsim_dmamap_lo(m->va), mhi = nvsim_dmamap_hi(m->va, m->len);

		if (m->obj[NVSIM_DMAMAP_MAPPER] != dma)
			continue;
		if (lo >= mlo && lo < mhi)
			return NVRM_ERR_INVALID_ARGUMENT;
		if (lo < mhi && mlo < hi)
			return NVRM_ERR_INSERT_DUPLICATE_NAME;
	}
	return NVRM_OK;
}

static bool nvsim_dmamap_is_device(const struct nvsim_object *obj)
{
	return obj->hclass == NVRM_CLASS_NV01_DEVICE_0 ||
	       obj->hclass == NVRM_CLASS_NV20_SUBDEVICE_0;
}

/* RM_MAP_MEMORY_DMA on the decoded parameters; the address goes to @va. Under nvsim_rm_lock. */
static u32 nvsim_dmamap_map(const struct nvsim_caller *caller, const struct nvrm_dma_map *p,
			    u64 *va)
{
	struct nvsim_object *obj[NVSIM_DMAMAP_ROLES];
	struct nvsim_mem *mem, *virt;
	struct nvsim_client *client;
	u64 end;
	u32 status;

	status = nvsim_client_get(caller, p->hclient, &client);
	if (status)
		return status;
	if (!p->length)
		return NVRM_ERR_INVALID_LIMIT;
	obj[NVSIM_DMAMAP_CONTEXT] = nvsim_object_lookup(client, p->hdevice);
	obj[NVSIM_DMAMAP_MAPPER] = nvsim_object_lookup(client, p->hdma);
	obj[NVSIM_DMAMAP_MEMORY] = nvsim_object_lookup(client, p->hmemory);
	if (!obj[NVSIM_DMAMAP_CONTEXT] || !obj[NVSIM_DMAMAP_MAPPER] || !obj[NVSIM_DMAMAP_MEMORY])
		return NVRM_ERR_OBJECT_NOT_FOUND;
	if (!nvsim_dmamap_is_device(obj[NVSIM_DMAMAP_CONTEXT]))
		return NVRM_ERR_INVALID_OBJECT;
	mem = nvsim_obj_mem(obj[NVSIM_DMAMAP_MEMORY]);
	if (!mem || !mem->backing)
		return NVRM_ERR_INVALID_OBJECT_HANDLE;
	if (p->offset + p->length < p->offset || p->offset + p->length > mem->size)
		return NVRM_ERR_INVALID_LIMIT;
	virt = nvsim_obj_mem(obj[NVSIM_DMAMAP_MAPPER]);
	if (!virt || virt->hclass != NVRM_CLASS_NV50_MEMORY_VIRTUAL)
		return obj[NVSIM_DMAMAP_MAPPER]->hclass == NVRM_CLASS_NV01_MEMORY_VIRTUAL ?
		       NVRM_ERR_NOT_SUPPORTED : NVRM_ERR_INVALID_OBJECT_HANDLE;
	if (obj[NVSIM_DMAMAP_CONTEXT]->hclass == NVRM_CLASS_NV20_SUBDEVICE_0)
		return NVRM_ERR_NOT_SUPPORTED;

	*va = p->dma_offset;
	if (!(p->flags & NVRM_NVOS46_FLAGS_DMA_OFFSET_FIXED))
		*va += virt->gpu_addr;
	if (*va < virt->gpu_addr || *va - virt->gpu_addr >= virt->size)
		return NVRM_ERR_INVALID_OFFSET;
	end = *va + p->length;
	if (end < *va || end > virt->gpu_addr + virt->size)
		return NVRM_ERR_INVALID_ARGUMENT;
	if ((*va ^ p->offset) & (NVSIM_DMAMAP_PAGE - 1))
		return NVRM_ERR_INVALID_OFFSET;
	status = nvsim_dmamap_overlap(obj[NVSIM_DMAMAP_MAPPER], *va, p->length);
	if (status)
		return status;
	if (!nvsim_dmamap_new(obj, *va, p->length, p->offset))
		return NVRM_ERR_NO_MEMORY;
	return NVRM_OK;
}

/**
 * nvsim_map_memory_dma() - NV_ESC_RM_MAP_MEMORY_DMA (NVOS46)
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of NVOS46; dmaOffset and status are written back
 * @size: the ABI version's (56 B in 525-575, 64 B in 580-595)
 *
 * dmaOffset is written back whatever the outcome, as rmapiMapWithSecInfo() does: the address
 * mapped on success, what was passed otherwise.
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_map_memory_dma(struct file *file, void *params, u32 size)
{
	struct nvsim_caller caller = nvsim_user_caller(file);
	const struct nvsim_file *nf = file->private_data;
	struct nvrm_dma_map p;
	u64 va;
	u32 status;

	if (!nf->is_ctl || nvrm_dma_map_decode(&nvsim_abi, params, size, &p))
		return -EINVAL;
	va = p.dma_offset;
	mutex_lock(&nvsim_rm_lock);
	status = nvsim_dmamap_map(&caller, &p, &va);
	mutex_unlock(&nvsim_rm_lock);
	nvrm_put_u64(params, p.dma_offset_off, status ? p.dma_offset : va);
	nvrm_put_u32(params, p.status_off, status);
	return 0;
}

/* Cut [lo, hi) out of @m: drop it, or keep what lies on either side. Under nvsim_rm_lock. */
static u32 nvsim_dmamap_cut(struct nvsim_dmamap *m, u64 lo, u64 hi)
{
	u64 end = m->va + m->len;

	if (hi < end && lo > m->va) {
		/* a hole in the middle: the right part is a new record */
		if (!nvsim_dmamap_new(m->obj, hi, end - hi, m->offset + (hi - m->va)))
			return NVRM_ERR_NO_MEMORY;
	} else if (hi < end) {
		m->gpu->dma_mapped -= hi - m->va;
		m->offset += hi - m->va;
		m->len = end - hi;
		m->va = hi;
		return NVRM_OK;
	} else if (lo <= m->va) {
		nvsim_dmamap_free(m);
		return NVRM_OK;
	}
	m->gpu->dma_mapped -= end - lo;
	m->len = lo - m->va;
	return NVRM_OK;
}

/* RM_UNMAP_MEMORY_DMA on the decoded parameters. Under nvsim_rm_lock. */
static u32 nvsim_dmamap_unmap(const struct nvsim_caller *caller, const struct nvrm_dma_unmap *p)
{
	struct nvsim_object *dma, *dev, *memobj = NULL;
	struct nvsim_dmamap_ref *r, *tmp;
	struct nvsim_client *client;
	u64 lo = p->dma_offset, hi = p->dma_offset + p->size;
	u32 status;

	status = nvsim_client_get(caller, p->hclient, &client);
	if (status)
		return status;
	dma = nvsim_object_lookup(client, p->hdma);
	dev = nvsim_object_lookup(client, p->hdevice);
	if (!p->has_size)
		memobj = nvsim_object_lookup(client, p->hmemory);
	if (!dma || !dev || (!p->has_size && !memobj))
		return NVRM_ERR_OBJECT_NOT_FOUND;
	if (p->size && hi < lo)
		hi = U64_MAX;
	list_for_each_entry_safe(r, tmp, &dma->dma_maps, node) {
		struct nvsim_dmamap *m = r->map;

		if (m->obj[NVSIM_DMAMAP_MAPPER] != dma || m->obj[NVSIM_DMAMAP_CONTEXT] != dev ||
		    (memobj && m->obj[NVSIM_DMAMAP_MEMORY] != memobj))
			continue;
		if (!p->size) {
			if (m->va != p->dma_offset)
				continue;
			nvsim_dmamap_free(m);
			return NVRM_OK;
		}
		if (m->va >= hi || m->va + m->len <= lo)
			continue;
		status = nvsim_dmamap_cut(m, lo, hi);
		if (status)
			return status;
	}
	return p->size ? NVRM_OK : NVRM_ERR_OBJECT_NOT_FOUND;
}

/**
 * nvsim_unmap_memory_dma() - NV_ESC_RM_UNMAP_MEMORY_DMA (NVOS47)
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of NVOS47; status is written back
 * @size: the ABI version's (40 B in 525-545, 48 B in 550-595)
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_unmap_memory_dma(struct file *file, void *params, u32 size)
{
	struct nvsim_caller caller = nvsim_user_caller(file);
	const struct nvsim_file *nf = file->private_data;
	struct nvrm_dma_unmap p;
	u32 status;

	if (!nf->is_ctl || nvrm_dma_unmap_decode(&nvsim_abi, params, size, &p))
		return -EINVAL;
	mutex_lock(&nvsim_rm_lock);
	status = nvsim_dmamap_unmap(&caller, &p);
	mutex_unlock(&nvsim_rm_lock);
	nvrm_put_u32(params, p.status_off, status);
	return 0;
}

/**
 * nvsim_dmamap_object_freed() - @obj is being freed: RM unmaps every mapping it takes part in
 * @obj: the object, as the virtual allocation, the memory or the device
 *
 * Context: under nvsim_rm_lock.
 */
void nvsim_dmamap_object_freed(struct nvsim_object *obj)
{
	struct nvsim_dmamap_ref *r, *tmp;

	lockdep_assert_held(&nvsim_rm_lock);
	list_for_each_entry_safe(r, tmp, &obj->dma_maps, node)
		nvsim_dmamap_free(r->map);
}

static int nvsim_dmamap_show(struct seq_file *m, void *v)
{
	const struct nvsim_gpu *gpu = m->private;

	mutex_lock(&nvsim_rm_lock);
	seq_printf(m, "mappings %u\nbytes %llu\n", gpu->dma_maps, gpu->dma_mapped);
	mutex_unlock(&nvsim_rm_lock);
	return 0;
}

/**
 * nvsim_dmamap_proc_init() - /proc/driver/nvsim/gpu<N>/dma_mappings
 * @gpu: the GPU, whose proc directory exists
 *
 * Return: 0, or -ENOMEM. The file goes with the directory.
 */
int nvsim_dmamap_proc_init(struct nvsim_gpu *gpu)
{
	if (!proc_create_single_data("dma_mappings", 0444, gpu->proc, nvsim_dmamap_show, gpu))
		return -ENOMEM;
	return 0;
}
