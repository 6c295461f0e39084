// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the kernel-client interface, shaped exactly like the real driver's nvidia_get_rm_ops()
 * (layouts and facts in kmod/nvrm/nvrm_kapi.h), so that qgpu drives nvsim and the real driver
 * through one code path.
 *
 * nvsim_get_rm_ops() checks the caller's version_string against the ABI version nvsim speaks
 * (strcmp, as nvidia_get_rm_ops); on a mismatch it writes its own version back and returns
 * NV_ERR_GENERIC. op() runs FREE, ALLOC, CONTROL, DUP_OBJECT and VID_HEAP_CONTROL with kernel
 * privilege: pointers inside the parameters are kernel pointers, the clients it creates belong to
 * one kernel session rather than a file (they live until freed), any client may be named (RM
 * checks the binding only for calls that carry OS info), devices need no open GPU file and
 * DUP_OBJECT may take any object. The other ops leave the parameters untouched.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/string.h>

#include "nvrm/nvrm_kapi.h"
#include "nvsim_internal.h"

/* What every kernel client is bound to. */
static const char nvsim_kapi_session[] = "nvsim kernel clients";

static const struct nvsim_caller nvsim_kapi_caller = {
	.owner = nvsim_kapi_session,
	.kernel = true,
};

/* The registered callbacks (nvidia_modeset_callbacks_t), under no lock: set once by the user. */
static const void *nvsim_kapi_callbacks;

static int nvsim_kapi_alloc_stack(struct nvrm_kapi_stack **sp)
{
	*sp = NULL;	/* no alternate stacks on x86_64 */
	return 0;
}

static void nvsim_kapi_free_stack(struct nvrm_kapi_stack *sp)
{
}

static u32 nvsim_kapi_enumerate_gpus(struct nvrm_kapi_gpu_info *gpu_info)
{
	unsigned int i;

	for (i = 0; i < nvsim_num_gpus; i++) {
		memset(&gpu_info[i], 0, sizeof(gpu_info[i]));
		gpu_info[i].gpu_id = nvsim_gpus[i].gpu_id;
		gpu_info[i].pci_bus = nvsim_gpus[i].gpu_id >> 8;
	}
	return nvsim_num_gpus;
}

/* The driver's open_gpu and close_gpu are nvidia_dev_get and _put (nv-modeset-interface.c). */
static int nvsim_kapi_open_gpu(u32 gpu_id, struct nvrm_kapi_stack *sp, u8 reset_aware)
{
	return nvidia_dev_get(gpu_id, sp, reset_aware);
}

static void nvsim_kapi_close_gpu(u32 gpu_id, struct nvrm_kapi_stack *sp, u8 reset_aware)
{
	nvidia_dev_put(gpu_id, sp, reset_aware);
}

/* nvidia_modeset_set_callbacks: one registration at a time. nvsim never calls them back. */
static int nvsim_kapi_set_callbacks(const void *cb)
{
	if (!!nvsim_kapi_callbacks == !!cb)
		return -EINVAL;
	nvsim_kapi_callbacks = cb;
	return 0;
}

/* NV04_ALLOC: NVOS21 (525-570) or NVOS64 (575-595), as this ABI version's op() takes it. */
static void nvsim_kapi_alloc(void *params)
{
	u32 size = nvsim_abi.major >= 575 ? nvsim_abi.nvos64_size : sizeof(struct nvrm_nvos21_v535);
	struct nvrm_alloc a;
	u32 status;

	if (nvrm_alloc_decode(&nvsim_abi, params, size, &a))
		return;
	status = nvsim_rm_alloc_call(&nvsim_kapi_caller, &a);
	if (status == NVRM_OK)
		nvrm_alloc_set_hnew(&nvsim_abi, params, size, a.hnew);
	nvrm_alloc_set_status(&nvsim_abi, params, size, status);
}

static void nvsim_kapi_control(struct nvrm_nvos54 *p)
{
	struct nvrm_control c;

	if (nvrm_control_decode(p, sizeof(*p), &c))
		return;
	p->status = nvsim_rm_control_call(&nvsim_kapi_caller, &c);
}

/**
 * nvsim_kapi_op() - rm_kernel_rmapi_op(): one RM call with kernel privilege
 * @sp: the stack from alloc_stack() (unused)
 * @ops_cmd: a struct nvrm_kapi_rmapi_ops; the status lands in its params
 *
 * Context: process context; takes nvsim_rm_lock.
 */
static void nvsim_kapi_op(struct nvrm_kapi_stack *sp, void *ops_cmd)
{
	struct nvrm_kapi_rmapi_ops *ops = ops_cmd;
	struct nvrm_nvos32 *vh;

	switch (ops->op) {
	case NVRM_KAPI_OP_FREE:
		ops->params.free.status = nvsim_rm_free_call(&nvsim_kapi_caller,
							     ops->params.free.hroot,
							     ops->params.free.hobject_old);
		break;
	case NVRM_KAPI_OP_ALLOC:
		nvsim_kapi_alloc(&ops->params);
		break;
	case NVRM_KAPI_OP_CONTROL:
		nvsim_kapi_control(&ops->params.control);
		break;
	case NVRM_KAPI_OP_DUP_OBJECT:
		ops->params.dup_object.status = nvsim_rm_dup_call(&nvsim_kapi_caller,
								  &ops->params.dup_object);
		break;
	case NVRM_KAPI_OP_MAP_MEMORY:
		ops->params.map_memory.status =
			nvsim_map_memory_kernel(&nvsim_kapi_caller, &ops->params.map_memory);
		break;
	case NVRM_KAPI_OP_UNMAP_MEMORY:
		ops->params.unmap_memory.status =
			nvsim_unmap_memory_kernel(&nvsim_kapi_caller, &ops->params.unmap_memory);
		break;
	case NVRM_KAPI_OP_VID_HEAP_CONTROL:
		vh = (struct nvrm_nvos32 *)(uintptr_t)ops->params.pvid_heap_control;
		if (vh)
			vh->status = nvsim_vidheap_call(&nvsim_kapi_caller, vh);
		break;
	default:
		pr_warn_once("kernel op %#x is not simulated\n", ops->op);
		break;
	}
}

/**
 * nvsim_get_rm_ops() - nvidia_get_rm_ops() of nvsim
 * @rm_ops: the caller's table; version_string must be set to the driver version it was built for
 *
 * Context: process context.
 * Return: NV_OK with @rm_ops filled, or NV_ERR_GENERIC with @rm_ops->version_string pointing at
 * nvsim's version (the only field written) when the versions differ.
 */
u32 nvsim_get_rm_ops(struct nvrm_kapi_rm_ops *rm_ops)
{
	const struct nvrm_kapi_rm_ops ours = {
		.version_string = nvsim_abi.version,
		.alloc_stack = nvsim_kapi_alloc_stack,
		.free_stack = nvsim_kapi_free_stack,
		.enumerate_gpus = nvsim_kapi_enumerate_gpus,
		.open_gpu = nvsim_kapi_open_gpu,
		.close_gpu = nvsim_kapi_close_gpu,
		.op = nvsim_kapi_op,
		.set_callbacks = nvsim_kapi_set_callbacks,
	};

	if (!rm_ops->version_string || strcmp(rm_ops->version_string, nvsim_abi.version)) {
		rm_ops->version_string = nvsim_abi.version;
		return NVRM_ERR_GENERIC;
	}
	*rm_ops = ours;
	return NVRM_OK;
}
EXPORT_SYMBOL_GPL(nvsim_get_rm_ops);

/* Module unload: kernel clients left behind by a kernel module are freed, and reported. */
void nvsim_kapi_exit(void)
{
	struct nvsim_client *client;
	unsigned long index;
	unsigned int n = 0;

	mutex_lock(&nvsim_rm_lock);
	nvsim_for_each_client(index, client)
		n += client->owner == nvsim_kapi_session;
	mutex_unlock(&nvsim_rm_lock);
	if (n)
		pr_warn("%u kernel client(s) were never freed\n", n);
	nvsim_rm_release_owner(nvsim_kapi_session);
}
