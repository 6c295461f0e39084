// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the controls that describe an existing object (its class, parent, address space and
 * size): NV0000 CLIENT_GET_HANDLE_INFO and CLIENT_GET_ADDR_SPACE_TYPE, NV0041 GET_SURFACE_INFO.
 *
 * They answer from nvsim's own records, as RM answers from its own: a limiter that asks them
 * learns what was actually created, whatever the caller's parameters said.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "nvrm/nvrm_ctrl_mem.h"
#include "nvsim_internal.h"

/* Most lists RM copies for GET_SURFACE_INFO: bounded here only to bound the kernel copy. */
#define NVSIM_SURFACE_INFO_MAX	64u

static bool nvsim_is_gpu_resource(u32 hclass)
{
	return hclass == NVRM_CLASS_NV01_DEVICE_0 || hclass == NVRM_CLASS_NV20_SUBDEVICE_0 ||
	       hclass == NVRM_CLASS_HOPPER_USERMODE_A;
}

/*
 * Where a mapping of @obj would point (memGetMapAddrSpace / gpuresGetMapAddrSpace): video
 * memory, system memory, or registers for the GPU's own objects. Returns an RM status.
 */
static u32 nvsim_addr_space_type(const struct nvsim_object *obj, u32 *type)
{
	switch (obj->hclass) {
	case NVRM_CLASS_NV01_MEMORY_LOCAL_USER:
		*type = NVRM_ADDR_SPACE_TYPE_VIDMEM;
		return NVRM_OK;
	case NVRM_CLASS_NV01_MEMORY_SYSTEM:
		*type = NVRM_ADDR_SPACE_TYPE_SYSMEM;
		return NVRM_OK;
	case NVRM_CLASS_NV50_MEMORY_VIRTUAL:
		*type = NVRM_ADDR_SPACE_TYPE_INVALID;
		return NVRM_ERR_INVALID_ARGUMENT;	/* ADDR_VIRTUAL has none */
	default:
		if (!nvsim_is_gpu_resource(obj->hclass))
			return NVRM_ERR_INVALID_OBJECT;
		*type = NVRM_ADDR_SPACE_TYPE_REGMEM;
		return NVRM_OK;
	}
}

static u32 nvsim_ctrl_client_get_addr_space_type(const struct nvsim_caller *caller,
						 struct nvsim_object *obj, void *buf)
{
	struct nvrm_client_get_addr_space_type *p = buf;
	struct nvsim_object *target = nvsim_object_lookup(obj->client, p->hobject);

	if (!target)
		return NVRM_ERR_OBJECT_NOT_FOUND;
	return nvsim_addr_space_type(target, &p->addr_space_type);
}

static u32 nvsim_ctrl_client_get_handle_info(const struct nvsim_caller *caller,
					     struct nvsim_object *obj, void *buf)
{
	struct nvrm_client_get_handle_info *p = buf;
	struct nvsim_object *target = nvsim_object_lookup(obj->client, p->hobject);

	if (!target)
		return NVRM_ERR_OBJECT_NOT_FOUND;
	switch (p->index) {
	case NVRM_HANDLE_INFO_INDEX_PARENT:
		p->data = target->parent ? target->parent->handle : 0;
		return NVRM_OK;
	case NVRM_HANDLE_INFO_INDEX_CLASSID:
		p->data = target->hclass;
		return NVRM_OK;
	default:
		return NVRM_ERR_INVALID_ARGUMENT;
	}
}

static u32 nvsim_surface_info(const struct nvsim_object *obj, const struct nvsim_mem *mem,
			      struct nvrm_surface_info *info)
{
	u64 pages;

	info->data = 0;
	switch (info->index) {
	case NVRM_SURFACE_INFO_INDEX_ATTRS:
	case NVRM_SURFACE_INFO_INDEX_COMPR_COVERAGE:
	case NVRM_SURFACE_INFO_INDEX_PHYS_ATTR:
		return NVRM_OK;	/* no compression, no zcull, default attributes */
	case NVRM_SURFACE_INFO_INDEX_PHYS_SIZE_LO:
	case NVRM_SURFACE_INFO_INDEX_PHYS_SIZE_HI:
		if (nvsim_abi.major < 580)
			return NVRM_ERR_INVALID_ARGUMENT;	/* indices added in 580 */
		info->data = info->index == NVRM_SURFACE_INFO_INDEX_PHYS_SIZE_LO ?
			     lower_32_bits(mem->size) : upper_32_bits(mem->size);
		return NVRM_OK;
	case NVRM_SURFACE_INFO_INDEX_PHYS_SIZE:
		pages = mem->size / NVRM_SURFACE_INFO_PHYS_SIZE_SCALE;
		if (pages > U32_MAX)
			return NVRM_ERR_OUT_OF_RANGE;
		info->data = pages;
		return NVRM_OK;
	case NVRM_SURFACE_INFO_INDEX_ADDR_SPACE_TYPE:
		nvsim_addr_space_type(obj, &info->data);
		return NVRM_OK;
	default:
		return NVRM_ERR_INVALID_ARGUMENT;
	}
}

/* memCtrlCmdGetSurfaceInfoLvm: an empty list is fine; the first bad index fails the call. */
static u32 nvsim_ctrl_get_surface_info(const struct nvsim_caller *caller,
				       struct nvsim_object *obj, void *buf)
{
	struct nvrm_get_surface_info *p = buf;
	const struct nvsim_mem *mem = nvsim_obj_mem(obj);
	struct nvrm_surface_info *list;
	u32 i, status = NVRM_OK;
	size_t bytes;

	if (!p->surface_info_list_size || !p->surface_info_list)
		return NVRM_OK;
	if (p->surface_info_list_size > NVSIM_SURFACE_INFO_MAX)
		return NVRM_ERR_INVALID_ARGUMENT;
	bytes = p->surface_info_list_size * sizeof(*list);
	list = nvsim_dup_in(caller, p->surface_info_list, bytes);
	if (!list)
		return NVRM_ERR_INVALID_ADDRESS;
	for (i = 0; i < p->surface_info_list_size && !status; i++)
		status = nvsim_surface_info(obj, mem, &list[i]);
	if (!status && nvsim_copy_out(caller, p->surface_info_list, list, bytes))
		status = NVRM_ERR_INVALID_ADDRESS;
	kfree(list);
	return status;
}

const struct nvsim_control nvsim_memctrl_controls[] = {
	{ NVRM_CTRL_CMD_NV0000_CLIENT_GET_ADDR_SPACE_TYPE, NVRM_CLASS_NV01_ROOT_CLIENT,
	  sizeof(struct nvrm_client_get_addr_space_type), nvsim_ctrl_client_get_addr_space_type },
	{ NVRM_CTRL_CMD_NV0000_CLIENT_GET_HANDLE_INFO, NVRM_CLASS_NV01_ROOT_CLIENT,
	  sizeof(struct nvrm_client_get_handle_info), nvsim_ctrl_client_get_handle_info },
	{ NVRM_CTRL_CMD_NV0041_GET_SURFACE_INFO, NVSIM_CTRL_CLASS_MEMORY,
	  sizeof(struct nvrm_get_surface_info), nvsim_ctrl_get_surface_info },
};

const unsigned int nvsim_memctrl_num_controls = ARRAY_SIZE(nvsim_memctrl_controls);
