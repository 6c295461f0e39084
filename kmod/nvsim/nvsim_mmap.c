// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: RM_MAP_MEMORY, RM_UNMAP_MEMORY and mmap.
 *
 * As in the real driver (reference section 6), mapping memory into a process is two steps.
 * RM_MAP_MEMORY, issued on /dev/nvidiactl, names an fd that must be a real nvidia file in the
 * caller's fd table: /dev/nvidiactl itself for system memory, a /dev/nvidiaN of the memory's GPU
 * for video memory and the usermode (doorbell) region. It attaches a mapping context to that file,
 * one per file. mmap() of that file at offset 0, with exactly the mapped length, then maps it. The
 * file's identity is the cookie: that is why user space opens a fresh fd for every mapping.
 *
 * Kernel clients (nvsim_kapi.c) map into the kernel instead, as Nv04MapMemoryKernel does: no fd,
 * pLinearAddress is a kernel address valid until RM_UNMAP_MEMORY or until the handle is freed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "nvsim_compat.h"
#include "nvsim_internal.h"

/* NVC361_NV_USERMODE__SIZE (clc361.h, 525-595): the usermode region user space maps. */
#define NVSIM_USERMODE_SIZE	0x10000u

/**
 * struct nvsim_mmap_ctx - what one file will map
 * @backing: the memory's pages (memory objects), or NULL
 * @doorbell: the usermode region (usermode objects), or NULL
 * @offset: byte offset into the memory of the first page mapped
 * @length: bytes to map, whole pages; mmap's length must equal it
 */
struct nvsim_mmap_ctx {
	struct nvsim_backing *backing;
	struct nvsim_doorbell *doorbell;
	u64 offset;
	u64 length;
};

/**
 * struct nvsim_cpu_map - an RM_MAP_MEMORY record, for RM_UNMAP_MEMORY
 * @client: the client that mapped
 * @obj: the memory or usermode handle that was mapped
 * @kaddr: a kernel client's mapping: the vmap() of the pages holding the range, else NULL
 * @linear: the pLinearAddress returned for a kernel mapping (inside @kaddr's pages); for a user
 *	mapping, the address RM knows it at: the cookie returned, until
 *	RM_UPDATE_DEVICE_MAPPING_INFO moves it
 * @backing: the pages @kaddr maps (a reference), or NULL
 * @tgid: the process that mapped (RM's serverutilMappingFilterCurrentUserProc() compares it)
 */
struct nvsim_cpu_map {
	struct nvsim_client *client;
	struct nvsim_object *obj;
	void *kaddr;
	u64 linear;
	struct nvsim_backing *backing;
	pid_t tgid;
};

static void nvsim_cpu_map_free(struct nvsim_cpu_map *map)
{
	if (map->kaddr)
		vunmap(map->kaddr);
	nvsim_backing_put(map->backing);
	kfree(map);
}

/* Protected by nvsim_rm_lock: pLinearAddress cookie -> struct nvsim_cpu_map. */
static DEFINE_XARRAY_ALLOC(nvsim_cpu_maps);
static u32 nvsim_next_cpu_map;

/* Where cookies start: pLinearAddress is opaque to user space since 525 (mmap offset is 0). */
#define NVSIM_CPU_MAP_COOKIE_SHIFT	16
#define NVSIM_CPU_MAP_COOKIE_BASE	0x7f0000000000ULL

static u64 nvsim_cpu_map_cookie(u32 id)
{
	return NVSIM_CPU_MAP_COOKIE_BASE + ((u64)id << NVSIM_CPU_MAP_COOKIE_SHIFT);
}

/*
 * The user mapping of @obj in @client that RM knows at @address, made by @tgid if not 0; its
 * index in @id. Under nvsim_rm_lock.
 */
static struct nvsim_cpu_map *nvsim_cpu_map_find(struct nvsim_client *client,
						struct nvsim_object *obj, u64 address, pid_t tgid,
						unsigned long *id)
{
	struct nvsim_cpu_map *map;

	lockdep_assert_held(&nvsim_rm_lock);
	xa_for_each(&nvsim_cpu_maps, *id, map)
		if (map->client == client && map->obj == obj && !map->kaddr &&
		    map->linear == address && (!tgid || map->tgid == tgid))
			return map;
	return NULL;
}

/**
 * nvsim_update_device_mapping_info() - NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO (NVOS56)
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of NVOS56; status is written back
 * @size: must be 40
 *
 * As RmUpdateDeviceMappingInfo() (osapi.c, 525-595): the client is looked up by handle alone,
 * whichever file or process made it; hDevice must be its device or subdevice, hMemory a memory
 * or usermode object of it (RM also takes a channel or a CCU buffer, which nvsim does not map),
 * and the mapping one the calling process made at pOldCpuAddress. RM knows it at
 * pNewCpuAddress from then on, and RM_UNMAP_MEMORY names that.
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_update_device_mapping_info(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvrm_nvos56 *p = params;
	struct nvsim_object *dev, *obj;
	struct nvsim_client *client;
	struct nvsim_cpu_map *map;
	unsigned long id;

	if (!nf->is_ctl || size != sizeof(*p))
		return -EINVAL;
	mutex_lock(&nvsim_rm_lock);
	client = nvsim_client_lookup(p->hclient);
	if (!client) {
		p->status = NVRM_ERR_INVALID_CLIENT;
		goto out_unlock;
	}
	/* subdeviceGetByHandle()'s statuses, then clientGetResourceRef()'s, in RM's order */
	dev = nvsim_object_lookup(client, p->hdevice);
	p->status = NVRM_ERR_OBJECT_NOT_FOUND;
	if (!dev)
		goto out_unlock;
	p->status = NVRM_ERR_INVALID_OBJECT_HANDLE;
	if (dev->hclass != NVRM_CLASS_NV01_DEVICE_0 && dev->hclass != NVRM_CLASS_NV20_SUBDEVICE_0)
		goto out_unlock;
	obj = nvsim_object_lookup(client, p->hmemory);
	p->status = NVRM_ERR_OBJECT_NOT_FOUND;
	if (!obj)
		goto out_unlock;
	p->status = NVRM_ERR_INVALID_OBJECT_HANDLE;
	if (!nvsim_obj_mem(obj) && !nvsim_obj_doorbell(obj))
		goto out_unlock;
	map = nvsim_cpu_map_find(client, obj, p->pold_cpu_address, task_tgid_nr(current), &id);
	if (!map) {
		p->status = NVRM_ERR_OBJECT_NOT_FOUND;
		goto out_unlock;
	}
	map->linear = p->pnew_cpu_address;
	p->status = NVRM_OK;
out_unlock:
	mutex_unlock(&nvsim_rm_lock);
	return 0;
}

static void nvsim_mmap_ctx_free(struct nvsim_mmap_ctx *ctx)
{
	if (!ctx)
		return;
	nvsim_backing_put(ctx->backing);
	if (ctx->doorbell)
		nvsim_doorbell_put(ctx->doorbell);
	kfree(ctx);
}

/*
 * Validate and build a mapping context for @obj. Under nvsim_rm_lock. Returns an RM status and,
 * for success, the context in @out and the GPU whose file must carry it in @gpu (NULL: the ctl
 * file, for system memory).
 */
static u32 nvsim_mmap_ctx_build(struct nvsim_object *obj, u64 offset, u64 length,
				struct nvsim_mmap_ctx **out, struct nvsim_gpu **gpu)
{
	struct nvsim_mem *mem = nvsim_obj_mem(obj);
	struct nvsim_doorbell *db = nvsim_obj_doorbell(obj);
	struct nvsim_mmap_ctx *ctx;
	u64 limit;

	if (mem && mem->backing)
		limit = mem->size;
	else if (db)
		limit = NVSIM_USERMODE_SIZE;
	else
		return NVRM_ERR_INVALID_OBJECT_HANDLE;	/* nothing CPU-mappable */
	if (!length || offset > limit || length > limit - offset)
		return NVRM_ERR_INVALID_LIMIT;
	if (db && offset)
		return NVRM_ERR_INVALID_OFFSET;	/* nvsim maps the region whole */
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NVRM_ERR_NO_MEMORY;
	/* As nv_align_mmap_offset_length(): the pages that hold the range. */
	ctx->offset = round_down(offset, PAGE_SIZE);
	ctx->length = PAGE_ALIGN(offset - ctx->offset + length);
	if (db) {
		ctx->doorbell = nvsim_doorbell_get(db);
		*gpu = nvsim_doorbell_gpu(db);
	} else {
		ctx->backing = nvsim_backing_get(mem->backing);
		*gpu = mem->hclass == NVRM_CLASS_NV01_MEMORY_SYSTEM ? NULL : mem->gpu;
	}
	*out = ctx;
	return NVRM_OK;
}

/*
 * The object RM_MAP_MEMORY names, checked against the device it names: hDevice must be a device
 * or subdevice of the object's GPU. Under nvsim_rm_lock. Returns an RM status.
 */
static u32 nvsim_map_object(struct nvsim_client *client, const struct nvrm_nvos33 *p,
			    struct nvsim_object **out)
{
	struct nvsim_object *dev = nvsim_object_lookup(client, p->hdevice);
	struct nvsim_object *obj = nvsim_object_lookup(client, p->hmemory);

	if (!dev || (dev->hclass != NVRM_CLASS_NV01_DEVICE_0 &&
		     dev->hclass != NVRM_CLASS_NV20_SUBDEVICE_0))
		return NVRM_ERR_INVALID_OBJECT_PARENT;
	if (!obj)
		return NVRM_ERR_INVALID_OBJECT_HANDLE;
	if (obj->gpu != dev->gpu)
		return NVRM_ERR_INVALID_DEVICE;
	*out = obj;
	return NVRM_OK;
}

/**
 * nvsim_map_memory_locked() - RM_MAP_MEMORY's work, also used by RM_ALLOC_MEMORY's immediate map
 * @ctl: the ctl file the call acts for
 * @p: NVOS33; pLinearAddress is written on success
 * @fd: the file to attach the mapping context to
 *
 * Context: under nvsim_rm_lock; takes the target file's mmap_lock.
 * Return: an RM status.
 */
u32 nvsim_map_memory_locked(struct file *ctl, struct nvrm_nvos33 *p, int fd)
{
	struct nvsim_caller caller = { .owner = ctl, .tgid = task_tgid_nr(current) };
	struct nvsim_mmap_ctx *ctx = NULL;
	struct nvsim_cpu_map *map;
	struct nvsim_object *obj;
	struct nvsim_client *client;
	struct nvsim_gpu *gpu = NULL;
	struct nvsim_file *target;
	struct file *f;
	u32 status, id;

	lockdep_assert_held(&nvsim_rm_lock);
	status = nvsim_client_get(&caller, p->hclient, &client);
	if (status)
		return status;
	/* rm_create_mmap_context(): only the process that made the client maps through it. */
	if (client->tgid != caller.tgid)
		return NVRM_ERR_INVALID_CLIENT;
	status = nvsim_map_object(client, p, &obj);
	if (status)
		return status;
	status = nvsim_mmap_ctx_build(obj, p->offset, p->length, &ctx, &gpu);
	if (status)
		return status;

	f = nvsim_get_nvidia_file(fd, !gpu);
	if (!f || (gpu && ((struct nvsim_file *)f->private_data)->gpu != gpu)) {
		status = NVRM_ERR_INVALID_ARGUMENT;
		goto out_put_file;
	}
	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map) {
		status = NVRM_ERR_NO_MEMORY;
		goto out_put_file;
	}
	map->client = client;
	map->obj = obj;
	map->tgid = caller.tgid;
	if (xa_alloc_cyclic(&nvsim_cpu_maps, &id, map, xa_limit_31b, &nvsim_next_cpu_map,
			    GFP_KERNEL) < 0) {
		status = NVRM_ERR_NO_MEMORY;
		goto out_free_map;
	}

	target = f->private_data;
	mutex_lock(&target->mmap_lock);
	if (target->mmap_ctx) {
		/* nv_add_mapping_context_to_file(): one context per file. */
		mutex_unlock(&target->mmap_lock);
		xa_erase(&nvsim_cpu_maps, id);
		status = NVRM_ERR_STATE_IN_USE;
		goto out_free_map;
	}
	target->mmap_ctx = ctx;
	mutex_unlock(&target->mmap_lock);
	obj->cpu_maps++;
	map->linear = nvsim_cpu_map_cookie(id);
	p->plinear_address = map->linear;
	fput(f);
	return NVRM_OK;

out_free_map:
	kfree(map);
out_put_file:
	if (f)
		fput(f);
	nvsim_mmap_ctx_free(ctx);
	return status;
}

/**
 * nvsim_map_memory() - NV_ESC_RM_MAP_MEMORY (NVOS33 with fd)
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of nv_ioctl_nvos33_parameters_with_fd; status and pLinearAddress written
 * @size: must be 56
 *
 * Context: process context; takes nvsim_rm_lock, then the target file's mmap_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_map_memory(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvrm_nvos33_with_fd *p = params;

	if (!nf->is_ctl || size != sizeof(*p))
		return -EINVAL;
	mutex_lock(&nvsim_rm_lock);
	p->params.status = nvsim_map_memory_locked(file, &p->params, p->fd);
	mutex_unlock(&nvsim_rm_lock);
	return 0;
}

/**
 * nvsim_unmap_memory() - NV_ESC_RM_UNMAP_MEMORY (NVOS34): drop an RM_MAP_MEMORY record
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of NVOS34; status is written back
 * @size: must be 32
 *
 * The pages stay mapped until user space unmaps them; the record goes (the real RM frees its
 * CPU mapping bookkeeping here, and user space munmap()s separately).
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_unmap_memory(struct file *file, void *params, u32 size)
{
	struct nvsim_caller caller = { .owner = file, .tgid = task_tgid_nr(current) };
	const struct nvsim_file *nf = file->private_data;
	struct nvrm_nvos34 *p = params;
	struct nvsim_client *client;
	struct nvsim_cpu_map *map;
	struct nvsim_object *obj;
	unsigned long id;

	if (!nf->is_ctl || size != sizeof(*p))
		return -EINVAL;
	mutex_lock(&nvsim_rm_lock);
	p->status = nvsim_client_get(&caller, p->hclient, &client);
	if (p->status)
		goto out_unlock;
	obj = nvsim_object_lookup(client, p->hmemory);
	if (!obj || !nvsim_object_lookup(client, p->hdevice)) {
		p->status = NVRM_ERR_INVALID_OBJECT_HANDLE;
		goto out_unlock;
	}
	/* serverutilMappingFilterCurrentUserProc(): only a mapping the calling process made */
	map = nvsim_cpu_map_find(client, obj, p->plinear_address, task_tgid_nr(current), &id);
	if (!map) {
		p->status = NVRM_ERR_INVALID_ARGUMENT;
		goto out_unlock;
	}
	xa_erase(&nvsim_cpu_maps, id);
	obj->cpu_maps--;
	kfree(map);
out_unlock:
	mutex_unlock(&nvsim_rm_lock);
	return 0;
}

/* vmap() the pages of @b holding [@offset, @offset + @length); NULL when out of memory. */
static void *nvsim_backing_vmap(struct nvsim_backing *b, u64 offset, u64 length)
{
	pgoff_t first = offset >> PAGE_SHIFT;
	unsigned int n = (PAGE_ALIGN(offset + length) >> PAGE_SHIFT) - first, k;
	struct page **pages = kcalloc(n, sizeof(*pages), GFP_KERNEL);
	void *kaddr = NULL;

	if (!pages)
		return NULL;
	for (k = 0; k < n; k++) {
		pages[k] = nvsim_backing_page(b, first + k, true);
		if (!pages[k])
			goto out;
	}
	kaddr = vmap(pages, n, VM_MAP, PAGE_KERNEL);
out:
	kfree(pages);
	return kaddr;
}

/**
 * nvsim_map_memory_kernel() - RM_MAP_MEMORY for a kernel client: map into the kernel
 * @caller: the kernel caller
 * @p: NVOS33; pLinearAddress is written on success
 *
 * As Nv04MapMemoryKernel: the memory (with CPU-visible pages) is mapped into the kernel's address
 * space and pLinearAddress is the kernel address of @p->offset. Usermode objects are not mapped
 * this way in nvsim.
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_map_memory_kernel(const struct nvsim_caller *caller, struct nvrm_nvos33 *p)
{
	struct nvsim_client *client;
	struct nvsim_cpu_map *map;
	struct nvsim_object *obj;
	struct nvsim_mem *mem;
	u32 status, id;

	mutex_lock(&nvsim_rm_lock);
	status = nvsim_client_get(caller, p->hclient, &client);
	if (!status)
		status = nvsim_map_object(client, p, &obj);
	if (status)
		goto out_unlock;
	mem = nvsim_obj_mem(obj);
	status = NVRM_ERR_NOT_SUPPORTED;
	if (!mem || !mem->backing)
		goto out_unlock;
	status = NVRM_ERR_INVALID_LIMIT;
	if (!p->length || p->offset > mem->size || p->length > mem->size - p->offset)
		goto out_unlock;
	status = NVRM_ERR_NO_MEMORY;
	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		goto out_unlock;
	map->client = client;
	map->obj = obj;
	map->backing = nvsim_backing_get(mem->backing);
	map->kaddr = nvsim_backing_vmap(mem->backing, p->offset, p->length);
	if (!map->kaddr ||
	    xa_alloc_cyclic(&nvsim_cpu_maps, &id, map, xa_limit_31b, &nvsim_next_cpu_map,
			    GFP_KERNEL) < 0) {
		nvsim_cpu_map_free(map);
		goto out_unlock;
	}
	map->linear = (u64)(uintptr_t)map->kaddr + offset_in_page(p->offset);
	obj->cpu_maps++;
	p->plinear_address = map->linear;
	status = NVRM_OK;
out_unlock:
	mutex_unlock(&nvsim_rm_lock);
	return status;
}

/**
 * nvsim_unmap_memory_kernel() - RM_UNMAP_MEMORY of a kernel mapping
 * @caller: the kernel caller
 * @p: NVOS34: the client, device and memory mapped, and the address returned
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_unmap_memory_kernel(const struct nvsim_caller *caller, struct nvrm_nvos34 *p)
{
	struct nvsim_client *client;
	struct nvsim_cpu_map *map;
	struct nvsim_object *obj;
	unsigned long id;
	u32 status;

	mutex_lock(&nvsim_rm_lock);
	status = nvsim_client_get(caller, p->hclient, &client);
	if (status)
		goto out_unlock;
	obj = nvsim_object_lookup(client, p->hmemory);
	status = NVRM_ERR_INVALID_OBJECT_HANDLE;
	if (!obj || !nvsim_object_lookup(client, p->hdevice))
		goto out_unlock;
	status = NVRM_ERR_INVALID_ARGUMENT;
	xa_for_each(&nvsim_cpu_maps, id, map) {
		if (map->client != client || map->obj != obj || !map->kaddr ||
		    map->linear != p->plinear_address)
			continue;
		xa_erase(&nvsim_cpu_maps, id);
		obj->cpu_maps--;
		nvsim_cpu_map_free(map);
		status = NVRM_OK;
		break;
	}
out_unlock:
	mutex_unlock(&nvsim_rm_lock);
	return status;
}

/* Drop the records of @obj (its handle is being freed) or of @client. Under nvsim_rm_lock. */
static void nvsim_cpu_maps_drop(struct nvsim_client *client, struct nvsim_object *obj)
{
	struct nvsim_cpu_map *map;
	unsigned long id;

	lockdep_assert_held(&nvsim_rm_lock);
	xa_for_each(&nvsim_cpu_maps, id, map) {
		if (obj ? map->obj != obj : map->client != client)
			continue;
		xa_erase(&nvsim_cpu_maps, id);
		map->obj->cpu_maps--;
		nvsim_cpu_map_free(map);
	}
}

void nvsim_mmap_object_freed(struct nvsim_object *obj)
{
	if (obj->cpu_maps)
		nvsim_cpu_maps_drop(NULL, obj);
}

void nvsim_mmap_client_freed(struct nvsim_client *client)
{
	nvsim_cpu_maps_drop(client, NULL);
}

/* Memory mappings: each VMA holds a reference to the backing store. */
static void nvsim_mem_vm_open(struct vm_area_struct *vma)
{
	nvsim_backing_get(vma->vm_private_data);
}

static void nvsim_mem_vm_close(struct vm_area_struct *vma)
{
	nvsim_backing_put(vma->vm_private_data);
}

/* vm_pgoff was set to the mapped offset's page, so vmf->pgoff is the page within the memory. */
static vm_fault_t nvsim_mem_vm_fault(struct vm_fault *vmf)
{
	struct page *page = nvsim_backing_page(vmf->vma->vm_private_data, vmf->pgoff, true);

	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct nvsim_mem_vm_ops = {
	.open	= nvsim_mem_vm_open,
	.close	= nvsim_mem_vm_close,
	.fault	= nvsim_mem_vm_fault,
};

/**
 * nvsim_mmap() - mmap of /dev/nvidiactl or /dev/nvidiaN: map the file's mapping context
 * @file: the file RM_MAP_MEMORY attached a context to
 * @vma: must start at offset 0 and be exactly the mapped length (nvidia_mmap_helper)
 *
 * Context: process context, under the caller's mmap lock; takes the file's mmap_lock.
 * Return: 0, or -EINVAL (no context, nonzero offset, wrong length).
 */
int nvsim_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct nvsim_file *nf = file->private_data;
	struct nvsim_mmap_ctx *ctx;
	int ret = -EINVAL;

	/*
	 * A file holding exported objects is not mapped (nvidia_mmap). Read without nvsim_rm_lock,
	 * which is taken outside the mmap lock, as the driver reads nvfp.handles unlocked.
	 */
	if (READ_ONCE(nf->exports))
		return -EINVAL;
	mutex_lock(&nf->mmap_lock);
	ctx = nf->mmap_ctx;
	if (!ctx) {
		pr_debug("VM: invalid mmap context\n");
		goto out_unlock;
	}
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != ctx->length)
		goto out_unlock;
	if (ctx->doorbell) {
		ret = nvsim_doorbell_mmap(ctx->doorbell, vma);
		goto out_unlock;
	}
	nvsim_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_pgoff = ctx->offset >> PAGE_SHIFT;
	vma->vm_private_data = nvsim_backing_get(ctx->backing);
	vma->vm_ops = &nvsim_mem_vm_ops;
	ret = 0;
out_unlock:
	mutex_unlock(&nf->mmap_lock);
	return ret;
}

/* The file is going: its mapping context goes with it (VMAs keep their own references). */
void nvsim_mmap_release_file(struct nvsim_file *nf)
{
	nvsim_mmap_ctx_free(nf->mmap_ctx);
	nf->mmap_ctx = NULL;
}
