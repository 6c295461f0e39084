// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the deprecated allocation escapes RM converts into RM_ALLOC: RM_VID_HEAP_CONTROL (NVOS32)
 * and RM_ALLOC_MEMORY (NVOS02 with an fd).
 *
 * Both follow src/nvidia/interface/deprecated/ (rmapi_deprecated_vidheapctrl.c,
 * rmapi_deprecated_allocmemory.c, 525-595; facts in kmod/nvrm/nvrm_abi.h): they build
 * NV_MEMORY_ALLOCATION_PARAMS in a kernel buffer and allocate through the same path as RM_ALLOC,
 * so the framebuffer is charged, limited and returned exactly as for RM_ALLOC of class 0x40.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "nvsim_internal.h"

/* NVOS32 AllocSize -> NV_MEMORY_ALLOCATION_PARAMS -> RM_ALLOC, and the fields copied back. */
static u32 nvsim_vidheap_alloc_size(const struct nvsim_caller *caller, struct nvrm_nvos32 *p)
{
	struct nvrm_nvos32_alloc_size *as = &p->data.alloc_size;
	struct nvrm_memory_allocation_params *ap;
	struct nvrm_alloc a = {
		.hroot = p->hroot,
		.hparent = p->hobject_parent,
	};
	u32 status;

	ap = kzalloc(sizeof(*ap), GFP_KERNEL);
	if (!ap)
		return NVRM_ERR_NO_MEMORY;
	if (as->flags & NVRM_NVOS32_ALLOC_FLAGS_USE_BEGIN_END) {
		ap->range_lo = as->range_begin;
		ap->range_hi = as->range_end;
	}
	ap->owner = as->owner;
	ap->type = as->type;
	ap->flags = as->flags;
	ap->height = as->height;
	ap->width = as->width;
	ap->size = as->size;
	ap->alignment = as->alignment;
	ap->offset = as->offset;
	ap->attr = as->attr;
	ap->attr2 = as->attr2;
	ap->format = as->format;
	ap->limit = as->limit;
	ap->address = as->address;
	ap->compr_covg = as->compr_covg;
	ap->zcull_covg = as->zcull_covg;
	ap->ctag_offset = as->ctag_offset;
	ap->hva_space = p->hva_space;
	if (nvsim_abi.mem_alloc_params_size >= NVRM_MEMORY_ALLOCATION_PARAMS_SIZE_V545)
		ap->numa_node = as->numa_node;
	as->partition_stride = NVRM_NVOS32_PARTITION_STRIDE;

	if (ap->flags & NVRM_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED)
		a.hnew = as->hmemory;
	if (ap->flags & NVRM_ALLOC_FLAGS_VIRTUAL)
		a.hclass = NVRM_CLASS_NV50_MEMORY_VIRTUAL;
	else if (NVRM_ATTR_GET(ap->attr, LOCATION) == NVRM_ATTR_LOCATION_VIDMEM)
		a.hclass = NVRM_CLASS_NV01_MEMORY_LOCAL_USER;
	else
		a.hclass = NVRM_CLASS_NV01_MEMORY_SYSTEM;

	status = nvsim_rm_alloc_locked(caller, &a, ap, nvsim_abi.mem_alloc_params_size);
	as->hmemory = status ? 0 : a.hnew;
	as->size = ap->size;
	as->offset = ap->offset;
	as->attr = ap->attr;
	as->attr2 = ap->attr2;
	as->format = ap->format;
	as->limit = ap->limit;
	as->address = ap->address;
	as->compr_covg = ap->compr_covg;
	as->zcull_covg = ap->zcull_covg;
	as->ctag_offset = ap->ctag_offset;
	p->free = 0;
	p->total = 0;
	kfree(ap);
	return status;
}

/* FUNCTION_INFO: heap totals from FB_GET_INFO_V2 of the device's GPU, in bytes. */
static u32 nvsim_vidheap_info(const struct nvsim_caller *caller, struct nvrm_nvos32 *p)
{
	struct nvsim_client *client;
	struct nvsim_object *obj;
	u32 heap_free, heap_size, tax, base, largest, largest_base;
	u8 *raw = (u8 *)p;
	u64 v;
	u32 status;

	status = nvsim_client_get(caller, p->hroot, &client);
	if (status)
		return status;
	obj = nvsim_object_lookup(client, p->hobject_parent);
	if (!obj)
		return NVRM_ERR_OBJECT_NOT_FOUND;
	if (obj->hclass != NVRM_CLASS_NV01_DEVICE_0 && obj->hclass != NVRM_CLASS_NV20_SUBDEVICE_0)
		return NVRM_ERR_INVALID_ARGUMENT;	/* FindOrCreateSubDeviceHandle */

	nvsim_fb_info_kb(obj->gpu, NVRM_FB_INFO_INDEX_HEAP_FREE, &heap_free);
	nvsim_fb_info_kb(obj->gpu, NVRM_FB_INFO_INDEX_HEAP_SIZE, &heap_size);
	nvsim_fb_info_kb(obj->gpu, NVRM_FB_INFO_INDEX_FB_TAX_SIZE_KB, &tax);
	nvsim_fb_info_kb(obj->gpu, NVRM_FB_INFO_INDEX_HEAP_BASE_KB, &base);
	nvsim_fb_info_kb(obj->gpu, NVRM_FB_INFO_INDEX_LARGEST_FREE_REGION_SIZE_KB, &largest);
	largest_base = 0;	/* nvsim's heap is not fragmented: the free space starts at 0 */
	p->free = (u64)heap_free << 10;
	p->total = ((u64)heap_size << 10) + ((u64)tax << 10);
	v = (u64)base << 10;
	memcpy(raw + NVRM_NVOS32_INFO_BASE_OFF, &v, sizeof(v));
	v = (u64)largest << 10;
	memcpy(raw + NVRM_NVOS32_INFO_SIZE_OFF, &v, sizeof(v));
	v = (u64)largest_base << 10;
	memcpy(raw + NVRM_NVOS32_INFO_OFFSET_OFF, &v, sizeof(v));
	return NVRM_OK;
}

/**
 * nvsim_vidheap_call() - RM_VID_HEAP_CONTROL for a user or kernel caller
 * @caller: the call
 * @p: NVOS32; outputs are written into it (status is not)
 *
 * ALLOC_SIZE, FREE and INFO are simulated. The other functions RM knows (ALLOC_SIZE_RANGE,
 * ALLOC_TILED_PITCH_HEIGHT, compression, alignment and HW resources, OS descriptors) return
 * NV_ERR_NOT_SUPPORTED: nvsim has no use for them; functions RM does not know fail as in RM.
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_vidheap_call(const struct nvsim_caller *caller, struct nvrm_nvos32 *p)
{
	u32 status;

	if (p->ivc_heap_number > NVRM_NVOS32_IVC_HEAP_NUMBER_DONT_ALLOCATE)
		return NVRM_ERR_NOT_SUPPORTED;

	mutex_lock(&nvsim_rm_lock);
	switch (p->function) {
	case NVRM_NVOS32_FUNCTION_ALLOC_SIZE:
		status = nvsim_vidheap_alloc_size(caller, p);
		break;
	case NVRM_NVOS32_FUNCTION_FREE:
		if (!(p->data.free.flags & NVRM_NVOS32_FREE_FLAGS_MEMORY_HANDLE_PROVIDED))
			status = NVRM_ERR_INVALID_ARGUMENT;
		else
			status = nvsim_rm_free_locked(caller, p->hroot, p->data.free.hmemory);
		break;
	case NVRM_NVOS32_FUNCTION_INFO:
		status = nvsim_vidheap_info(caller, p);
		break;
	case NVRM_NVOS32_FUNCTION_ALLOC_SIZE_RANGE:
	case NVRM_NVOS32_FUNCTION_ALLOC_TILED_PITCH_HEIGHT:
	case NVRM_NVOS32_FUNCTION_RELEASE_COMPR:
	case NVRM_NVOS32_FUNCTION_REACQUIRE_COMPR:
	case NVRM_NVOS32_FUNCTION_GET_MEM_ALIGNMENT:
	case NVRM_NVOS32_FUNCTION_HW_ALLOC:
	case NVRM_NVOS32_FUNCTION_HW_FREE:
	case NVRM_NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR:
		status = NVRM_ERR_NOT_SUPPORTED;
		break;
	default:
		status = NVRM_ERR_INVALID_ARGUMENT;
		break;
	}
	mutex_unlock(&nvsim_rm_lock);
	return status;
}

/**
 * nvsim_rm_vid_heap_control() - NV_ESC_RM_VID_HEAP_CONTROL (NVOS32)
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of NVOS32; outputs and status are written back
 * @size: must be 184
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_rm_vid_heap_control(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvsim_caller caller = nvsim_user_caller(file);
	struct nvrm_nvos32 *p = params;

	if (!nf->is_ctl || size != sizeof(*p))
		return -EINVAL;
	p->status = nvsim_vidheap_call(&caller, p);
	return 0;
}

/*
 * RM_ALLOC_MEMORY of NV01_MEMORY_LOCAL_USER allocates nothing for a client without the whole-FB
 * privilege: the heap size as limit and a dummy NV01_MEMORY_SYSTEM_DYNAMIC handle. nvsim always
 * takes this path (it grants nobody NV01_MEMORY_LOCAL_PHYSICAL).
 */
static u32 nvsim_alloc_memory_local_user(const struct nvsim_caller *caller, struct nvrm_nvos02 *p)
{
	struct nvrm_alloc a = {
		.hroot = p->hroot,
		.hparent = p->hobject_parent,
		.hnew = p->hobject_new,
		.hclass = NVRM_CLASS_NV01_MEMORY_VIRTUAL,
	};
	struct nvsim_client *client;
	struct nvsim_object *dev;
	u32 status, total_kb;

	status = nvsim_client_get(caller, p->hroot, &client);
	if (status)
		return status;
	dev = nvsim_object_lookup(client, p->hobject_parent);
	if (!dev)
		return NVRM_ERR_OBJECT_NOT_FOUND;
	if (dev->hclass != NVRM_CLASS_NV01_DEVICE_0 && dev->hclass != NVRM_CLASS_NV20_SUBDEVICE_0)
		return NVRM_ERR_INVALID_ARGUMENT;
	nvsim_fb_info_kb(dev->gpu, NVRM_FB_INFO_INDEX_TOTAL_RAM_SIZE, &total_kb);
	p->limit = ((u64)total_kb << 10) - 1;
	return nvsim_rm_alloc_locked(caller, &a, NULL, 0);
}

/*
 * RM_ALLOC_MEMORY of NV01_MEMORY_SYSTEM: limit + 1 bytes of sysmem. With MAPPING=DEFAULT RM maps
 * it at once (freeing it again if that fails); escape.c then attaches the mmap context to @fd,
 * naming the memory by the caller's hObjectNew. *@ctx_failed tells the caller that this last step
 * failed: the ioctl then fails with -EINVAL and the memory stays allocated, as in the real driver.
 */
static u32 nvsim_alloc_memory_system(const struct nvsim_caller *caller, struct nvrm_nvos02 *p,
				     int fd, bool *ctx_failed)
{
	struct nvrm_memory_allocation_params *ap;
	struct nvrm_alloc a = {
		.hroot = p->hroot,
		.hparent = p->hobject_parent,
		.hnew = p->hobject_new,
		.hclass = NVRM_CLASS_NV01_MEMORY_SYSTEM,
	};
	struct nvrm_nvos33 map = {
		.hclient = p->hroot,
		.hdevice = p->hobject_parent,
		.hmemory = p->hobject_new,
	};
	u32 status;

	if (NVRM_NVOS02_FLAGS_LOCATION_GET(p->flags) != NVRM_NVOS02_FLAGS_LOCATION_PCI ||
	    NVRM_NVOS02_FLAGS_ALLOC_GET(p->flags) == NVRM_NVOS02_FLAGS_ALLOC_NONE)
		return NVRM_ERR_INVALID_FLAGS;
	if (p->limit == U64_MAX)
		return NVRM_ERR_INVALID_LIMIT;
	ap = kzalloc(sizeof(*ap), GFP_KERNEL);
	if (!ap)
		return NVRM_ERR_NO_MEMORY;
	ap->owner = 0x7368696d;	/* 'shim', as RM */
	ap->size = p->limit + 1;
	ap->attr = (NVRM_ATTR_LOCATION_PCI << NVRM_ATTR_LOCATION_SHIFT) |
		   (NVRM_ATTR_PAGE_SIZE_4KB << NVRM_ATTR_PAGE_SIZE_SHIFT);
	p->pmemory = 0;
	status = nvsim_rm_alloc_locked(caller, &a, ap, nvsim_abi.mem_alloc_params_size);
	kfree(ap);
	/* RM passes hObjectNew by value: a handle it generates is not written back. */
	if (status || NVRM_NVOS02_FLAGS_MAPPING_GET(p->flags) == NVRM_NVOS02_FLAGS_MAPPING_NO_MAP)
		return status;
	map.length = p->limit + 1;
	if (nvsim_map_memory_locked((struct file *)caller->owner, &map, fd) != NVRM_OK) {
		*ctx_failed = true;
		return NVRM_OK;
	}
	p->pmemory = map.plinear_address;
	return NVRM_OK;
}

/**
 * nvsim_rm_alloc_memory() - NV_ESC_RM_ALLOC_MEMORY (NVOS02 with fd, 56 B)
 * @file: must be a GPU file (NV_ACTUAL_DEVICE_ONLY); calls act for the ctl file it is registered to
 * @params: kernel copy of the parameters; pMemory, limit and status are written back
 * @size: must be 56
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device, or when the
 * mapping context of system memory mapped at once could not be attached to the fd.
 */
int nvsim_rm_alloc_memory(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvsim_caller caller = nvsim_user_caller(file);
	struct nvrm_nvos02_with_fd *pf = params;
	struct nvrm_nvos02 *p = &pf->params;
	bool ctx_failed = false;

	if (size != sizeof(*pf) || !nf->gpu)
		return -EINVAL;
	mutex_lock(&nvsim_rm_lock);
	switch (p->hclass) {
	case NVRM_CLASS_NV01_MEMORY_LOCAL_USER:
		p->status = nvsim_alloc_memory_local_user(&caller, p);
		break;
	case NVRM_CLASS_NV01_MEMORY_SYSTEM:
		p->status = nvsim_alloc_memory_system(&caller, p, pf->fd, &ctx_failed);
		break;
	case NVRM_CLASS_NV01_MEMORY_VIRTUAL:
	case NVRM_CLASS_NV01_MEMORY_SYSTEM_OS_DESCRIPTOR:
	case NVRM_CLASS_NV01_MEMORY_LOCAL_PRIVILEGED:
	case NVRM_CLASS_NV01_MEMORY_LIST_SYSTEM:
	case NVRM_CLASS_NV01_MEMORY_LIST_FBMEM:
	case NVRM_CLASS_NV01_MEMORY_LIST_OBJECT:
		p->status = NVRM_ERR_NOT_SUPPORTED;	/* in RM's table; not simulated */
		break;
	default:
		p->status = NVRM_ERR_INVALID_CLASS;
		break;
	}
	mutex_unlock(&nvsim_rm_lock);
	return ctx_failed ? -EINVAL : 0;
}
