// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: NV_MEMORY_FABRIC (class 0xF8), the fabric (FLA) address of video memory that peers
 * across NVLink map (CUDA's CU_MEM_HANDLE_TYPE_FABRIC). See kmod/nvrm/nvrm_fabric.c for what RM
 * does; nvsim does the same in the same order:
 *
 *   - no fabric (the GPU is on no NVLink fabric, or the fabric manager has not set it up):
 *     NV_ERR_NOT_SUPPORTED, what RM answers when the GPU has no fabric VA space. nvsim's GPUs have
 *     none unless the ``fabric`` parameter says so;
 *   - the request's own checks (nvrm_fabric_alloc_check()), for a Hopper GPU: 256 GiB pages
 *     are refused from 590 as on every GPU before Blackwell;
 *   - a sticky object's memory: a handle of the caller's client (NV_ERR_OBJECT_NOT_FOUND), a
 *     memory object (NV_ERR_INVALID_OBJECT_HANDLE), video memory of this GPU in 2 MiB pages
 *     (NV_ERR_INVALID_ARGUMENT);
 *   - the fabric address space (nvrm_fabric_va_check()) and the mapping (nvrm_fabric_map_check());
 *   - the memory is held, as RM's duplicate of it (hDupedPhysMem) holds it, until the object's
 *     last handle goes: a copy (RM_DUP_OBJECT) shares the object.
 *
 * A flexible object holds nothing; NV00F8_CTRL_CMD_ATTACH_MEM, which maps memory into one and
 * lets go when the memory is freed, is not simulated. Neither is the fabric address range's size.
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "nvsim_internal.h"
#include "nvrm/nvrm_fabric.h"

static bool fabric;
module_param(fabric, bool, 0644);
MODULE_PARM_DESC(fabric, "GPUs are on an NVLink fabric: NV_MEMORY_FABRIC works (default off)");

/**
 * struct nvsim_fabric - a fabric object, shared by its copies
 * @res: the shared resource
 * @phys: the memory a sticky object holds (a reference), or NULL
 */
struct nvsim_fabric {
	struct nvsim_res res;
	struct nvsim_res *phys;
};

static void nvsim_fabric_release(struct nvsim_res *res)
{
	struct nvsim_fabric *f = container_of(res, struct nvsim_fabric, res);

	if (f->phys)
		nvsim_res_put(f->phys);
	kfree(f);
}

/* _memoryfabricValidatePhysMem(): the memory a sticky object maps, in the caller's client. */
static u32 nvsim_fabric_phys(const struct nvsim_object *obj, u32 handle, struct nvsim_mem **out)
{
	struct nvsim_object *phys = nvsim_object_lookup(obj->client, handle);
	struct nvsim_mem *mem;

	if (!phys)
		return NVRM_ERR_OBJECT_NOT_FOUND;
	mem = nvsim_obj_mem(phys);
	if (!mem)
		return NVRM_ERR_INVALID_OBJECT_HANDLE;
	if (mem->gpu != obj->gpu || mem->hclass != NVRM_CLASS_NV01_MEMORY_LOCAL_USER)
		return NVRM_ERR_INVALID_ARGUMENT;
	if (mem->page_size != NVRM_NV00F8_PAGE_SIZE_2M &&
	    mem->page_size != NVRM_NV00F8_PAGE_SIZE_512M)
		return NVRM_ERR_INVALID_ARGUMENT;
	*out = mem;
	return NVRM_OK;
}

/**
 * nvsim_fabric_construct() - a new NV_MEMORY_FABRIC object
 * @obj: the new object, under a subdevice
 * @ap: kernel copy of NV00F8_ALLOCATION_PARAMETERS, or NULL
 * @ap_size: its size for this ABI version
 *
 * Context: under nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_fabric_construct(struct nvsim_object *obj, void *ap, u32 ap_size)
{
	struct nvrm_fabric_alloc req;
	struct nvsim_mem *mem = NULL;
	struct nvsim_fabric *f;
	u32 status;

	lockdep_assert_held(&nvsim_rm_lock);
	if (!ap || nvrm_fabric_alloc_decode(&nvsim_abi, ap, ap_size, &req))
		return NVRM_ERR_INVALID_ARGUMENT;
	if (!READ_ONCE(fabric))
		return NVRM_ERR_NOT_SUPPORTED;
	status = nvrm_fabric_alloc_check(&nvsim_abi, &req, false);	/* a Hopper GPU */
	if (!status && nvrm_fabric_holds_memory(&req))
		status = nvsim_fabric_phys(obj, req.hvidmem, &mem);
	if (!status)
		status = nvrm_fabric_va_check(&req);
	if (!status && mem)
		status = nvrm_fabric_map_check(&req, mem->size, mem->page_size);
	if (status)
		return status;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return NVRM_ERR_NO_MEMORY;
	nvsim_res_init(&f->res, nvsim_fabric_release);
	if (mem) {
		kref_get(&mem->res.ref);
		f->phys = &mem->res;
	}
	obj->res = &f->res;
	return NVRM_OK;
}
