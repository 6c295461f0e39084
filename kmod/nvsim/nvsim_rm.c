// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: RM clients, objects, framebuffer allocation and controls.
 *
 * Each client is bound to the /dev/nvidiactl file that allocated it (the real RM's strict client
 * validation): using its handle through any other file fails with NV_ERR_INVALID_CLIENT, and the
 * client with everything under it is freed when that file is released. Objects form a tree under
 * their client; freeing one frees its subtree and returns any framebuffer it held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fdtable.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "nvsim_internal.h"

/* Handle bases of the real RM (resserv RS_CLIENT_HANDLE_BASE, RS_UNIQUE_HANDLE_BASE). */
#define NVSIM_CLIENT_HANDLE_BASE	0xc1d00000u
#define NVSIM_OBJECT_HANDLE_BASE	0xcaf00000u
#define NVSIM_HANDLE_RANGE		0x00100000u

/**
 * struct nvsim_object - one RM object
 * @handle: its handle, unique within the client
 * @hclass: its class
 * @parent: the object it was allocated under; NULL for a client's root object
 * @children: objects allocated under this one
 * @sibling: entry in the parent's @children
 * @gpu: the GPU of a device and of everything under it; NULL above
 * @fb_bytes: framebuffer this object holds (vidmem allocations)
 */
struct nvsim_object {
	u32 handle;
	u32 hclass;
	struct nvsim_object *parent;
	struct list_head children;
	struct list_head sibling;
	struct nvsim_gpu *gpu;
	u64 fb_bytes;
};

/**
 * struct nvsim_client - an RM client (root object of class NV01_ROOT_CLIENT)
 * @root: its root object; @root.handle is the client handle
 * @ctl_file: the ctl file it is bound to (not a reference: the client dies with the file)
 * @tgid: the process that allocated it
 * @objects: handle -> object for every object of the client, the root included
 * @next_handle: the next handle to generate when the caller passes 0
 */
struct nvsim_client {
	struct nvsim_object root;
	struct file *ctl_file;
	pid_t tgid;
	struct xarray objects;
	u32 next_handle;
};

/* Serialises every RM call, as the real RM's API lock does; see nvsim_internal.h. */
DEFINE_MUTEX(nvsim_rm_lock);
/* Protected by nvsim_rm_lock: client handle -> client. */
static DEFINE_XARRAY(nvsim_clients);
static u32 nvsim_next_client;

/* Look a client up for a call through @file; only its own ctl file may use it. */
static u32 nvsim_client_get(struct file *file, u32 hclient, struct nvsim_client **out)
{
	struct nvsim_client *client;

	lockdep_assert_held(&nvsim_rm_lock);
	client = xa_load(&nvsim_clients, hclient);
	if (!client || client->ctl_file != file)
		return NVRM_ERR_INVALID_CLIENT;
	*out = client;
	return NVRM_OK;
}

/* Generate a handle not in use in @xa, from @next within [base, base + NVSIM_HANDLE_RANGE). */
static u32 nvsim_gen_handle(struct xarray *xa, u32 base, u32 *next)
{
	u32 i, h;

	for (i = 0; i < NVSIM_HANDLE_RANGE; i++) {
		h = base + (*next)++ % NVSIM_HANDLE_RANGE;
		if (!xa_load(xa, h))
			return h;
	}
	return 0;
}

static void nvsim_object_free_subtree(struct nvsim_client *client, struct nvsim_object *obj)
{
	struct nvsim_object *child, *tmp;

	lockdep_assert_held(&nvsim_rm_lock);
	list_for_each_entry_safe(child, tmp, &obj->children, sibling)
		nvsim_object_free_subtree(client, child);
	if (obj->fb_bytes) {
		if (WARN_ON_ONCE(obj->gpu->fb_used < obj->fb_bytes))
			obj->gpu->fb_used = 0;
		else
			obj->gpu->fb_used -= obj->fb_bytes;
	}
	xa_erase(&client->objects, obj->handle);
	if (obj->parent) {
		list_del(&obj->sibling);
		kfree(obj);
	}
}

static void nvsim_client_free(struct nvsim_client *client)
{
	lockdep_assert_held(&nvsim_rm_lock);
	nvsim_object_free_subtree(client, &client->root);
	xa_erase(&nvsim_clients, client->root.handle);
	xa_destroy(&client->objects);
	kfree(client);
}

static u32 nvsim_client_alloc(struct file *file, struct nvrm_alloc *a)
{
	struct nvsim_client *client;
	u32 handle = a->hnew;
	int ret;

	lockdep_assert_held(&nvsim_rm_lock);
	if (!handle)
		handle = nvsim_gen_handle(&nvsim_clients, NVSIM_CLIENT_HANDLE_BASE,
					  &nvsim_next_client);
	if (!handle)
		return NVRM_ERR_INSUFFICIENT_RESOURCES;
	client = kzalloc(sizeof(*client), GFP_KERNEL);
	if (!client)
		return NVRM_ERR_NO_MEMORY;
	client->root.handle = handle;
	client->root.hclass = NVRM_CLASS_NV01_ROOT_CLIENT;
	INIT_LIST_HEAD(&client->root.children);
	client->ctl_file = file;
	client->tgid = task_tgid_nr(current);
	xa_init(&client->objects);
	ret = xa_insert(&nvsim_clients, handle, client, GFP_KERNEL);
	if (!ret)
		ret = xa_insert(&client->objects, handle, &client->root, GFP_KERNEL);
	if (ret) {
		xa_erase(&nvsim_clients, handle);	/* no-op unless the second insert failed */
		kfree(client);
		return ret == -EBUSY ? NVRM_ERR_INSERT_DUPLICATE_NAME : NVRM_ERR_NO_MEMORY;
	}
	a->hnew = handle;
	return NVRM_OK;
}

static bool nvsim_is_channel_class(u32 hclass)
{
	switch (hclass) {
	case NVRM_CLASS_VOLTA_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_TURING_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_AMPERE_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A:
		return true;
	}
	return false;
}

/*
 * Which parent each class may be allocated under (the real RM's resource_list.h, simplified to the
 * classes nvsim knows). Returns NV_OK, NV_ERR_INVALID_CLASS for a class nvsim does not simulate, or
 * NV_ERR_INVALID_OBJECT_PARENT.
 */
static u32 nvsim_check_parent(u32 hclass, const struct nvsim_object *parent)
{
	u32 p = parent->hclass;

	switch (hclass) {
	case NVRM_CLASS_NV01_DEVICE_0:
		return p == NVRM_CLASS_NV01_ROOT_CLIENT ? NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	case NVRM_CLASS_NV20_SUBDEVICE_0:
	case NVRM_CLASS_FERMI_VASPACE_A:
	case NVRM_CLASS_KEPLER_CHANNEL_GROUP_A:
		return p == NVRM_CLASS_NV01_DEVICE_0 ? NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	case NVRM_CLASS_NV01_MEMORY_LOCAL_USER:
	case NVRM_CLASS_NV01_MEMORY_SYSTEM:
	case NVRM_CLASS_NV50_MEMORY_VIRTUAL:
		return p == NVRM_CLASS_NV01_DEVICE_0 || p == NVRM_CLASS_NV20_SUBDEVICE_0 ?
		       NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	case NVRM_CLASS_FERMI_CONTEXT_SHARE_A:
		return p == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A ?
		       NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	case NVRM_CLASS_HOPPER_USERMODE_A:
		return p == NVRM_CLASS_NV20_SUBDEVICE_0 ? NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	case NVRM_CLASS_HOPPER_COMPUTE_A:
	case NVRM_CLASS_HOPPER_DMA_COPY_A:
		return nvsim_is_channel_class(p) ? NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	default:
		if (nvsim_is_channel_class(hclass))
			return p == NVRM_CLASS_NV01_DEVICE_0 ||
			       p == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A ?
			       NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
		return NVRM_ERR_INVALID_CLASS;
	}
}

struct nvsim_gpu_file_match {
	struct nvsim_gpu *gpu;
};

static int nvsim_match_gpu_file(const void *data, struct file *f, unsigned int fd)
{
	const struct nvsim_gpu_file_match *m = data;
	const struct nvsim_file *nf;

	if (f->f_op != &nvsim_fops)
		return 0;
	nf = f->private_data;
	return nf->gpu == m->gpu;
}

/*
 * nv_is_gpu_accessible(): allocating a device needs a real /dev/nvidiaN of that GPU open somewhere
 * in the calling process (550+: judged by f_op, as here).
 */
static bool nvsim_gpu_file_open_in_caller(struct nvsim_gpu *gpu)
{
	struct nvsim_gpu_file_match m = { .gpu = gpu };

	return iterate_fd(current->files, 0, nvsim_match_gpu_file, &m) != 0;
}

/* Page size a vidmem allocation is rounded to, from its attr PAGE_SIZE field. */
static u64 nvsim_vidmem_page(u32 attr)
{
	switch (NVRM_ATTR_GET(attr, PAGE_SIZE)) {
	case NVRM_ATTR_PAGE_SIZE_4KB:
		return SZ_4K;
	case NVRM_ATTR_PAGE_SIZE_HUGE:
		return SZ_2M;
	default:
		return SZ_64K;
	}
}

/*
 * Class-specific construction from the caller's alloc params (a kernel copy in @ap of @ap_size
 * bytes, or NULL when the class takes none). May change @ap (sizes RM writes back).
 */
static u32 nvsim_construct(struct nvsim_object *obj, struct nvsim_object *parent, void *ap,
			   u32 ap_size)
{
	struct nvrm_mem_alloc mem;
	u64 size;

	obj->gpu = parent->gpu;
	switch (obj->hclass) {
	case NVRM_CLASS_NV01_DEVICE_0: {
		const struct nvrm_nv0080_alloc_params *dp = ap;

		if (!dp || dp->device_id >= nvsim_num_gpus)
			return NVRM_ERR_INVALID_ARGUMENT;
		obj->gpu = &nvsim_gpus[dp->device_id];
		if (!nvsim_gpu_file_open_in_caller(obj->gpu))
			return NVRM_ERR_INSUFFICIENT_PERMISSIONS;
		return NVRM_OK;
	}
	case NVRM_CLASS_NV20_SUBDEVICE_0: {
		const struct nvrm_nv2080_alloc_params *sp = ap;

		return sp && sp->sub_device_id ? NVRM_ERR_INVALID_ARGUMENT : NVRM_OK;
	}
	case NVRM_CLASS_NV01_MEMORY_LOCAL_USER:
		if (!ap || nvrm_mem_alloc_decode(&nvsim_abi, ap, ap_size, &mem))
			return NVRM_ERR_INVALID_ARGUMENT;
		/* video_mem.c: class 0x40 must be placed in vidmem and be physical. */
		if (!mem.is_vidmem || !mem.size)
			return NVRM_ERR_INVALID_ARGUMENT;
		size = round_up(mem.size, nvsim_vidmem_page(mem.attr));
		if (size < mem.size || size > obj->gpu->fb_size - obj->gpu->fb_used)
			return NVRM_ERR_NO_MEMORY;
		obj->gpu->fb_used += size;
		obj->fb_bytes = size;
		nvrm_mem_alloc_set_size(&nvsim_abi, ap, ap_size, size);
		return NVRM_OK;
	default:
		return NVRM_OK;
	}
}

static u32 nvsim_object_alloc(struct file *file, struct nvrm_alloc *a)
{
	struct nvsim_client *client;
	struct nvsim_object *parent, *obj;
	u32 ap_size, status;
	void *ap = NULL;

	lockdep_assert_held(&nvsim_rm_lock);
	status = nvsim_client_get(file, a->hroot, &client);
	if (status)
		return status;
	parent = xa_load(&client->objects, a->hparent);
	if (!parent)
		return NVRM_ERR_INVALID_OBJECT_PARENT;
	status = nvsim_check_parent(a->hclass, parent);
	if (status)
		return status;

	/* RM copies the class's params at its own size for this version, never the caller's. */
	ap_size = nvrm_abi_alloc_params_size(&nvsim_abi, a->hclass);
	if (ap_size && a->params_ptr) {
		ap = memdup_user(u64_to_user_ptr(a->params_ptr), ap_size);
		if (IS_ERR(ap))
			return NVRM_ERR_INVALID_ADDRESS;
	}

	if (!a->hnew)
		a->hnew = nvsim_gen_handle(&client->objects, NVSIM_OBJECT_HANDLE_BASE,
					   &client->next_handle);
	if (!a->hnew) {
		status = NVRM_ERR_INSUFFICIENT_RESOURCES;
		goto out_free_params;
	}
	if (xa_load(&client->objects, a->hnew)) {
		status = NVRM_ERR_INSERT_DUPLICATE_NAME;
		goto out_free_params;
	}
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj) {
		status = NVRM_ERR_NO_MEMORY;
		goto out_free_params;
	}
	obj->handle = a->hnew;
	obj->hclass = a->hclass;
	obj->parent = parent;
	INIT_LIST_HEAD(&obj->children);

	status = nvsim_construct(obj, parent, ap, ap_size);
	if (status)
		goto out_free_obj;
	if (xa_insert(&client->objects, obj->handle, obj, GFP_KERNEL)) {
		status = NVRM_ERR_NO_MEMORY;
		goto out_uncharge;
	}
	list_add_tail(&obj->sibling, &parent->children);
	if (ap && copy_to_user(u64_to_user_ptr(a->params_ptr), ap, ap_size))
		pr_debug("alloc params copy-back failed\n");	/* as RM: the object stays */
	kfree(ap);
	return NVRM_OK;

out_uncharge:
	if (obj->fb_bytes)
		obj->gpu->fb_used -= obj->fb_bytes;
out_free_obj:
	kfree(obj);
out_free_params:
	kfree(ap);
	return status;
}

/**
 * nvsim_rm_alloc() - NV_ESC_RM_ALLOC (NVOS21 or NVOS64, told apart by size)
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of the NVOS21/NVOS64 parameters; status and hObjectNew are written back
 * @size: their size
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_rm_alloc(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvrm_alloc a;
	u32 status;

	if (!nf->is_ctl || nvrm_alloc_decode(&nvsim_abi, params, size, &a))
		return -EINVAL;

	mutex_lock(&nvsim_rm_lock);
	switch (a.hclass) {
	case NVRM_CLASS_NV01_ROOT:
	case NVRM_CLASS_NV01_ROOT_NON_PRIV:
	case NVRM_CLASS_NV01_ROOT_CLIENT:
		status = nvsim_client_alloc(file, &a);
		break;
	default:
		status = nvsim_object_alloc(file, &a);
		break;
	}
	mutex_unlock(&nvsim_rm_lock);

	if (status == NVRM_OK)
		nvrm_alloc_set_hnew(&nvsim_abi, params, size, a.hnew);
	nvrm_alloc_set_status(&nvsim_abi, params, size, status);
	return 0;
}

/**
 * nvsim_rm_free() - NV_ESC_RM_FREE (NVOS00): free an object and its subtree, or a whole client
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of NVOS00; status is written back
 * @size: must be sizeof(NVOS00)
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_rm_free(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvrm_nvos00 *p = params;
	struct nvsim_client *client;
	struct nvsim_object *obj;

	if (!nf->is_ctl || size != sizeof(*p))
		return -EINVAL;
	mutex_lock(&nvsim_rm_lock);
	p->status = nvsim_client_get(file, p->hroot, &client);
	if (p->status)
		goto out_unlock;
	if (p->hobject_old == p->hroot) {
		nvsim_client_free(client);
		goto out_unlock;
	}
	obj = xa_load(&client->objects, p->hobject_old);
	if (!obj) {
		p->status = NVRM_ERR_INVALID_OBJECT_HANDLE;
		goto out_unlock;
	}
	nvsim_object_free_subtree(client, obj);
out_unlock:
	mutex_unlock(&nvsim_rm_lock);
	return 0;
}

/* One FB info index, in KiB, as kern_mem_sys_ctrl.c reports it for a GPU with nothing reserved. */
static u32 nvsim_fb_info(const struct nvsim_gpu *gpu, struct nvrm_fb_info *info)
{
	u64 total_kb = gpu->fb_size >> 10;
	u64 free_kb = (gpu->fb_size - gpu->fb_used) >> 10;

	switch (info->index) {
	case NVRM_FB_INFO_INDEX_BAR1_SIZE:
	case NVRM_FB_INFO_INDEX_BAR1_AVAIL_SIZE:
	case NVRM_FB_INFO_INDEX_RAM_SIZE:
	case NVRM_FB_INFO_INDEX_TOTAL_RAM_SIZE:
	case NVRM_FB_INFO_INDEX_HEAP_SIZE:
	case NVRM_FB_INFO_INDEX_MAPPABLE_HEAP_SIZE:
	case NVRM_FB_INFO_INDEX_USABLE_RAM_SIZE:
		info->data = total_kb;
		return NVRM_OK;
	case NVRM_FB_INFO_INDEX_HEAP_FREE:
	case NVRM_FB_INFO_INDEX_LARGEST_FREE_REGION_SIZE_KB:
		info->data = free_kb;
		return NVRM_OK;
	case NVRM_FB_INFO_INDEX_FB_TAX_SIZE_KB:
	case NVRM_FB_INFO_INDEX_HEAP_BASE_KB:
	case NVRM_FB_INFO_INDEX_HEAP_START:
	case NVRM_FB_INFO_INDEX_HEAP_OFFLINE_SIZE:
	case NVRM_FB_INFO_INDEX_PROTECTED_MEM_SIZE_TOTAL_KB:
	case NVRM_FB_INFO_INDEX_PROTECTED_MEM_SIZE_FREE_KB:
	case NVRM_FB_INFO_INDEX_IS_ZERO_FB:
		info->data = 0;
		return NVRM_OK;
	default:
		return NVRM_ERR_INVALID_ARGUMENT;
	}
}

static u32 nvsim_ctrl_fb_get_info_v2(struct nvsim_object *obj, void *buf)
{
	struct nvrm_fb_get_info_v2 *p = buf;
	u32 i, status;

	if (p->fb_info_list_size > nvsim_abi.fb_info_max_list_size)
		return NVRM_ERR_INVALID_ARGUMENT;
	for (i = 0; i < p->fb_info_list_size; i++) {
		status = nvsim_fb_info(obj->gpu, &p->fb_info_list[i]);
		if (status)
			return status;
	}
	return NVRM_OK;
}

/* The deprecated v1 control: the list sits behind a user pointer (converted to V2 by RM). */
static u32 nvsim_ctrl_fb_get_info(struct nvsim_object *obj, void *buf)
{
	struct nvrm_fb_get_info *p = buf;
	struct nvrm_fb_info *list;
	u32 i, status = NVRM_OK;
	size_t bytes;

	if (!p->fb_info_list_size || p->fb_info_list_size > nvsim_abi.fb_info_max_list_size)
		return NVRM_ERR_INVALID_ARGUMENT;
	bytes = p->fb_info_list_size * sizeof(*list);
	list = memdup_user(u64_to_user_ptr(p->fb_info_list), bytes);
	if (IS_ERR(list))
		return NVRM_ERR_INVALID_ADDRESS;
	for (i = 0; i < p->fb_info_list_size && !status; i++)
		status = nvsim_fb_info(obj->gpu, &list[i]);
	if (!status && copy_to_user(u64_to_user_ptr(p->fb_info_list), list, bytes))
		status = NVRM_ERR_INVALID_ADDRESS;
	kfree(list);
	return status;
}

static u32 nvsim_ctrl_gpu_get_name_string(struct nvsim_object *obj, void *buf)
{
	struct nvrm_gpu_get_name_string *p = buf;
	unsigned int i;

	if (p->flags == NVRM_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII) {
		strscpy((char *)p->name.ascii, nvsim_gpu_name, sizeof(p->name.ascii));
		return NVRM_OK;
	}
	if (p->flags == NVRM_GPU_GET_NAME_STRING_FLAGS_TYPE_UNICODE &&
	    nvsim_abi.gpu_name_string_size == NVRM_GPU_GET_NAME_STRING_SIZE_V525) {
		memset(p->name.unicode, 0, sizeof(p->name.unicode));
		for (i = 0; i < NVSIM_NAME_LEN - 1 && nvsim_gpu_name[i]; i++)
			p->name.unicode[i] = (u8)nvsim_gpu_name[i];
		return NVRM_OK;
	}
	return NVRM_ERR_INVALID_ARGUMENT;
}

static u32 nvsim_ctrl_gpu_get_gid_info(struct nvsim_object *obj, void *buf)
{
	struct nvrm_gpu_get_gid_info *p = buf;
	const char *hex = obj->gpu->uuid + 4;	/* past "GPU-" */
	unsigned int i, n = 0;

	memset(p->data, 0, sizeof(p->data));
	switch (p->flags & 0x3) {
	case NVRM_GPU_GET_GID_FLAGS_FORMAT_ASCII:
		p->length = strscpy((char *)p->data, obj->gpu->uuid, sizeof(p->data)) + 1;
		return NVRM_OK;
	case NVRM_GPU_GET_GID_FLAGS_FORMAT_BINARY:
		for (i = 0; hex[i] && n < NVRM_GPU_MAX_SHA1_BINARY_GID_LENGTH; i++) {
			if (hex[i] == '-')
				continue;
			if (hex2bin(&p->data[n++], &hex[i], 1))
				return NVRM_ERR_INVALID_STATE;
			i++;
		}
		p->length = NVRM_GPU_MAX_SHA1_BINARY_GID_LENGTH;
		return NVRM_OK;
	default:
		return NVRM_ERR_INVALID_ARGUMENT;
	}
}

/* NV0000 (client) GPU_GET_ID_INFO_V2: which device instance a CARD_INFO gpuId is allocated as. */
static u32 nvsim_ctrl_gpu_get_id_info_v2(struct nvsim_object *obj, void *buf)
{
	struct nvrm_nv0000_gpu_get_id_info_v2 *p = buf;
	unsigned int i;

	for (i = 0; i < nvsim_num_gpus; i++) {
		if (nvsim_gpus[i].gpu_id != p->gpu_id)
			continue;
		p->gpu_flags = 0;
		p->device_instance = i;
		p->sub_device_instance = 0;
		p->sli_status = 0;
		p->board_id = p->gpu_id;
		p->gpu_instance = i;
		p->numa_id = -1;
		return NVRM_OK;
	}
	return NVRM_ERR_INVALID_ARGUMENT;
}

/**
 * struct nvsim_control - a control nvsim implements
 * @cmd: the control command
 * @hclass: the class of object it is issued on
 * @size: its params size for the ABI nvsim speaks (paramsSize must match exactly)
 * @handler: does it, on a kernel copy of the params
 */
struct nvsim_control {
	u32 cmd;
	u32 hclass;
	u32 size;
	u32 (*handler)(struct nvsim_object *obj, void *buf);
};

/* A size of 0 in the table means it depends on the ABI version. */
static const struct nvsim_control nvsim_controls[] = {
	{ NVRM_CTRL_CMD_FB_GET_INFO, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_fb_get_info), nvsim_ctrl_fb_get_info },
	{ NVRM_CTRL_CMD_FB_GET_INFO_V2, NVRM_CLASS_NV20_SUBDEVICE_0,
	  0, nvsim_ctrl_fb_get_info_v2 },
	{ NVRM_CTRL_CMD_GPU_GET_NAME_STRING, NVRM_CLASS_NV20_SUBDEVICE_0,
	  0, nvsim_ctrl_gpu_get_name_string },
	{ NVRM_CTRL_CMD_GPU_GET_GID_INFO, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_gpu_get_gid_info), nvsim_ctrl_gpu_get_gid_info },
	{ NVRM_CTRL_CMD_NV0000_GPU_GET_ID_INFO_V2, NVRM_CLASS_NV01_ROOT_CLIENT,
	  sizeof(struct nvrm_nv0000_gpu_get_id_info_v2), nvsim_ctrl_gpu_get_id_info_v2 },
};

static const struct nvsim_control *nvsim_control_lookup(u32 cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nvsim_controls); i++)
		if (nvsim_controls[i].cmd == cmd)
			return &nvsim_controls[i];
	return NULL;
}

static u32 nvsim_control_size(const struct nvsim_control *ctrl)
{
	switch (ctrl->cmd) {
	case NVRM_CTRL_CMD_FB_GET_INFO_V2:
		return nvsim_abi.fb_get_info_v2_size;
	case NVRM_CTRL_CMD_GPU_GET_NAME_STRING:
		return nvsim_abi.gpu_name_string_size;
	default:
		return ctrl->size;
	}
}

/**
 * nvsim_rm_control() - NV_ESC_RM_CONTROL (NVOS54)
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of NVOS54; status is written back
 * @size: must be sizeof(NVOS54)
 *
 * paramsSize must equal the control's size for this ABI version (NV_ERR_INVALID_PARAM_STRUCT
 * otherwise, as resControlLookup does). The control's params are copied back only on success.
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_rm_control(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvrm_nvos54 *p = params;
	const struct nvsim_control *ctrl;
	struct nvsim_client *client;
	struct nvsim_object *obj;
	struct nvrm_control c;
	void *buf = NULL;

	if (!nf->is_ctl || nvrm_control_decode(params, size, &c))
		return -EINVAL;
	mutex_lock(&nvsim_rm_lock);
	p->status = nvsim_client_get(file, c.hclient, &client);
	if (p->status)
		goto out_unlock;
	obj = xa_load(&client->objects, c.hobject);
	if (!obj) {
		p->status = NVRM_ERR_INVALID_OBJECT_HANDLE;
		goto out_unlock;
	}
	ctrl = nvsim_control_lookup(c.cmd);
	if (!ctrl || ctrl->hclass != obj->hclass || c.finn_serialized) {
		p->status = NVRM_ERR_NOT_SUPPORTED;
		goto out_unlock;
	}
	if (c.params_size != nvsim_control_size(ctrl) || !c.params_ptr) {
		p->status = NVRM_ERR_INVALID_PARAM_STRUCT;
		goto out_unlock;
	}
	buf = memdup_user(u64_to_user_ptr(c.params_ptr), c.params_size);
	if (IS_ERR(buf)) {
		buf = NULL;
		p->status = NVRM_ERR_INVALID_ADDRESS;
		goto out_unlock;
	}
	p->status = ctrl->handler(obj, buf);
	if (!p->status && copy_to_user(u64_to_user_ptr(c.params_ptr), buf, c.params_size))
		p->status = NVRM_ERR_INVALID_ADDRESS;
out_unlock:
	mutex_unlock(&nvsim_rm_lock);
	kfree(buf);
	return 0;
}

/**
 * nvsim_rm_release_file() - a ctl file is going away: free every client bound to it
 * @file: the file being released
 *
 * Context: process context (release); takes nvsim_rm_lock.
 */
void nvsim_rm_release_file(struct file *file)
{
	struct nvsim_client *client;
	unsigned long handle;

	mutex_lock(&nvsim_rm_lock);
	xa_for_each(&nvsim_clients, handle, client)
		if (client->ctl_file == file)
			nvsim_client_free(client);
	mutex_unlock(&nvsim_rm_lock);
}

/* Module unload: every file is closed by then, so nothing is left; check that it is so. */
void nvsim_rm_exit(void)
{
	WARN_ON(!xa_empty(&nvsim_clients));
	xa_destroy(&nvsim_clients);
}
