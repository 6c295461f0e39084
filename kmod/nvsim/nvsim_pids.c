// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: per-process usage, NV2080_CTRL_CMD_GPU_GET_PIDS and GPU_GET_PID_INFO on a subdevice
 * (what nvidia-smi shows).
 *
 * As the real RM (subdevice_ctrl_gpu_kernel.c, gpu_rmapi.c, 525-595): a process is listed when one
 * of its clients holds a device on the GPU and an object of the class asked for; kernel clients
 * are never listed. Video memory usage sums the sizes of the client's NV01_MEMORY_LOCAL_USER
 * handles under its devices on the GPU: memory no other handle refers to is private; otherwise the
 * handle that allocated it counts as "shared owned" and every dup as "shared duped". From 545,
 * PIDs are those of the caller's PID namespace and processes that namespace cannot see are
 * skipped; 525 and 535 report global PIDs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "nvsim_internal.h"

/* The client's PID as the caller sees it; 0 when the caller's namespace cannot see it. */
static pid_t nvsim_client_pid(const struct nvsim_client *client)
{
	if (!client->pid)
		return 0;
	if (!nvsim_abi.has_pid_namespaces)
		return pid_nr(client->pid);
	return pid_nr_ns(client->pid, task_active_pid_ns(current));
}

/* The device of @obj (itself or its nearest ancestor of class NV01_DEVICE_0), or NULL. */
static const struct nvsim_object *nvsim_obj_device(const struct nvsim_object *obj)
{
	for (; obj; obj = obj->parent)
		if (obj->hclass == NVRM_CLASS_NV01_DEVICE_0)
			return obj;
	return NULL;
}

static bool nvsim_client_has_device_on(struct nvsim_client *client, const struct nvsim_gpu *gpu)
{
	const struct nvsim_object *obj;

	list_for_each_entry(obj, &client->root.children, sibling)
		if (obj->hclass == NVRM_CLASS_NV01_DEVICE_0 && obj->gpu == gpu)
			return true;
	return false;
}

/* Does @client hold an object of @hclass under a device on @gpu? */
static bool nvsim_client_has_class_on(struct nvsim_client *client, const struct nvsim_gpu *gpu,
				      u32 hclass)
{
	const struct nvsim_object *obj, *dev;
	unsigned long handle;

	xa_for_each(&client->objects, handle, obj) {
		if (obj->hclass != hclass)
			continue;
		dev = nvsim_obj_device(obj);
		if (dev && dev->gpu == gpu)
			return true;
	}
	return false;
}

/* GET_PIDS: the processes (deduplicated, at most 950) with a client using the GPU. */
static u32 nvsim_ctrl_gpu_get_pids(const struct nvsim_caller *caller, struct nvsim_object *obj,
				   void *buf)
{
	struct nvrm_gpu_get_pids *p = buf;
	struct nvsim_client *client;
	unsigned long index;
	u32 n = 0, i;
	pid_t pid;

	if (p->id_type == NVRM_GPU_GET_PIDS_ID_TYPE_VGPU_GUEST) {
		p->pid_tbl_count = 0;	/* no vGPU guests here */
		return NVRM_OK;
	}
	if (p->id_type != NVRM_GPU_GET_PIDS_ID_TYPE_CLASS)
		return NVRM_ERR_INVALID_ARGUMENT;

	nvsim_for_each_client(index, client) {
		if (client->kernel || !nvsim_client_has_device_on(client, obj->gpu))
			continue;
		if (!nvsim_client_has_class_on(client, obj->gpu, p->id))
			continue;
		pid = nvsim_client_pid(client);
		if (!pid)
			continue;	/* not visible in the caller's namespace */
		for (i = 0; i < n && p->pid_tbl[i] != (u32)pid; i++)
			;
		if (i < n)
			continue;
		p->pid_tbl[n++] = pid;
		if (n == NVRM_GPU_GET_PIDS_MAX_COUNT)
			break;
	}
	p->pid_tbl_count = n;
	return NVRM_OK;
}

/* Add @client's video memory under its devices on @gpu to @info. */
static void nvsim_collect_mem(struct nvsim_client *client, const struct nvsim_gpu *gpu,
			      struct nvrm_gpu_pid_info *info)
{
	const struct nvsim_object *obj, *dev;
	const struct nvsim_mem *mem;
	unsigned long handle;

	xa_for_each(&client->objects, handle, obj) {
		if (obj->hclass != NVRM_CLASS_NV01_MEMORY_LOCAL_USER)
			continue;
		dev = nvsim_obj_device(obj);
		mem = nvsim_obj_mem(obj);
		if (!dev || dev->gpu != gpu || !mem)
			continue;
		if (kref_read(&mem->res.ref) == 1)
			info->mem_private += mem->size;
		else if (mem->owner_obj == obj)
			info->mem_shared_owned += mem->size;
		else
			info->mem_shared_duped += mem->size;
	}
}

static u32 nvsim_ctrl_gpu_get_pid_info(const struct nvsim_caller *caller, struct nvsim_object *obj,
				       void *buf)
{
	struct nvrm_gpu_get_pid_info *p = buf;
	struct nvrm_gpu_pid_info *info;
	struct nvsim_client *client;
	unsigned long index;
	u32 i;

	if (!p->pid_info_list_count || p->pid_info_list_count > NVRM_GPU_GET_PID_INFO_MAX_COUNT)
		return NVRM_ERR_INVALID_ARGUMENT;
	for (i = 0; i < p->pid_info_list_count; i++) {
		info = &p->pid_info_list[i];
		info->smc_compute_instance_id = NVRM_PARTITIONID_INVALID;
		info->smc_gpu_instance_id = NVRM_PARTITIONID_INVALID;
		if (info->index != NVRM_GPU_PID_INFO_INDEX_VIDEO_MEMORY_USAGE || !info->pid) {
			info->result = NVRM_ERR_INVALID_ARGUMENT;
			continue;
		}
		info->mem_private = 0;
		info->mem_shared_owned = 0;
		info->mem_shared_duped = 0;
		info->protected_mem_private = 0;
		info->protected_mem_shared_owned = 0;
		info->protected_mem_shared_duped = 0;
		nvsim_for_each_client(index, client) {
			if (client->kernel || nvsim_client_pid(client) != (pid_t)info->pid)
				continue;
			nvsim_collect_mem(client, obj->gpu, info);
		}
		info->result = NVRM_OK;
	}
	return NVRM_OK;
}

const struct nvsim_control nvsim_pids_controls[] = {
	{ NVRM_CTRL_CMD_GPU_GET_PIDS, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_gpu_get_pids), nvsim_ctrl_gpu_get_pids },
	{ NVRM_CTRL_CMD_GPU_GET_PID_INFO, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_gpu_get_pid_info), nvsim_ctrl_gpu_get_pid_info },
};

const unsigned int nvsim_pids_num_controls = ARRAY_SIZE(nvsim_pids_controls);

/**
 * nvsim_mem_client_gone() - @client is being freed: forget it as the owner of its memory
 * @client: the client
 *
 * Memory it allocated may live on in dups held by other clients; those count as "shared duped"
 * from now on, and no later client at the same address is mistaken for the owner.
 *
 * Context: under nvsim_rm_lock.
 */
void nvsim_mem_client_gone(struct nvsim_client *client)
{
	struct nvsim_object *obj;
	struct nvsim_mem *mem;
	unsigned long handle;

	lockdep_assert_held(&nvsim_rm_lock);
	xa_for_each(&client->objects, handle, obj) {
		mem = nvsim_obj_mem(obj);
		if (mem && mem->owner == client)
			mem->owner = NULL;
	}
}
