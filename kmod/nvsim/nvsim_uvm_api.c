// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the UVM handlers that make or end UVM's holds on RM memory, or take an RM client from
 * their parameters, under the real driver's names.
 *
 * The real nvidia-uvm's uvm_ioctl() copies a command's parameters into its own buffer
 * (UVM_ROUTE_CMD_STACK / _ALLOC, uvm.c) and calls the command's handler, NV_STATUS
 * uvm_api_<command>(PARAMS *params, struct file *filp), defined in another file (uvm_api.h;
 * uvm_map_external.c, uvm_va_space.c, uvm_va_range.c, 525-595); the handler's return becomes
 * rmStatus in uvm_ioctl's buffer, which is copied back. nvsim keeps that boundary for the commands
 * qgpu follows, with the same names and argument order, in a file of its own so that the compiler
 * can neither inline nor clone them: what instruments the real handlers (qgpu's sealed
 * forwarding, DOC: sealed forwarding in kmod/qgpu_seal.c) reaches nvsim's the same way.
 *
 * Context: each is called by nvsim_uvm_ioctl() with nvsim_uvm_lock held, on a VA-space file.
 */
#include <linux/fs.h>

#include "nvsim_internal.h"
#include "nvsim_uvm.h"

static struct nvsim_uvm_file *nvsim_uvm_of(struct file *filp)
{
	return filp->private_data;
}

/* UVM_REGISTER_GPU (uvm_gpu.c) */
noinline u32 uvm_api_register_gpu(void *params, struct file *filp)
{
	return nvsim_uvm_register_gpu(nvsim_uvm_of(filp), params);
}

/* UVM_REGISTER_GPU_VASPACE (uvm_gpu.c) */
noinline u32 uvm_api_register_gpu_va_space(void *params, struct file *filp)
{
	return nvsim_uvm_register_gpu_vaspace(nvsim_uvm_of(filp), params);
}

/* UVM_REGISTER_CHANNEL (uvm_user_channel.c) */
noinline u32 uvm_api_register_channel(void *params, struct file *filp)
{
	return nvsim_uvm_register_channel(nvsim_uvm_of(filp), params);
}

/* UVM_UNREGISTER_CHANNEL (uvm_user_channel.c) */
noinline u32 uvm_api_unregister_channel(void *params, struct file *filp)
{
	return nvsim_uvm_unregister_channel(nvsim_uvm_of(filp), params);
}

/* UVM_CREATE_EXTERNAL_RANGE (uvm_va_range.c) */
noinline u32 uvm_api_create_external_range(void *params, struct file *filp)
{
	return nvsim_uvm_create_external_range(nvsim_uvm_of(filp), params);
}

/* UVM_MAP_EXTERNAL_ALLOCATION (uvm_map_external.c) */
noinline u32 uvm_api_map_external_allocation(void *params, struct file *filp)
{
	return nvsim_uvm_map_external(nvsim_uvm_of(filp), params);
}

/* UVM_UNMAP_EXTERNAL (uvm_map_external.c) */
noinline u32 uvm_api_unmap_external(void *params, struct file *filp)
{
	return nvsim_uvm_unmap_external(nvsim_uvm_of(filp), params);
}

/* UVM_MAP_EXTERNAL_SPARSE (uvm_map_external.c) */
noinline u32 uvm_api_map_external_sparse(void *params, struct file *filp)
{
	return nvsim_uvm_map_external_sparse(nvsim_uvm_of(filp), params);
}

/* UVM_MAP_DYNAMIC_PARALLELISM_REGION (uvm_va_range.c) */
noinline u32 uvm_api_map_dynamic_parallelism_region(void *params, struct file *filp)
{
	return nvsim_uvm_map_dynamic_parallelism_region(nvsim_uvm_of(filp), params);
}

/* UVM_FREE (uvm_map_external.c) */
noinline u32 uvm_api_free(void *params, struct file *filp)
{
	return nvsim_uvm_free(nvsim_uvm_of(filp), params);
}

/* UVM_UNREGISTER_GPU (uvm_va_space.c) */
noinline u32 uvm_api_unregister_gpu(void *params, struct file *filp)
{
	return nvsim_uvm_unregister_gpu(nvsim_uvm_of(filp), params);
}

/* UVM_UNREGISTER_GPU_VASPACE (uvm_va_space.c) */
noinline u32 uvm_api_unregister_gpu_va_space(void *params, struct file *filp)
{
	return nvsim_uvm_unregister_gpu_vaspace(nvsim_uvm_of(filp), params);
}
