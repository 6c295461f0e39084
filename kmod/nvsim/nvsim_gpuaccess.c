// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: nv_is_gpu_accessible(), RM's check that the caller holds a file of a GPU open.
 *
 * RM refuses a user client's NV01_DEVICE_0 allocation (deviceConstruct, device.c) and
 * nvidia-uvm's UVM_REGISTER_GPU (nvGpuOpsGetGpuInfo, nv_gpu_ops.c, reached through
 * nvUvmInterfaceGetGpuInfo from uvm_gpu.c) with NV_ERR_INSUFFICIENT_PERMISSIONS unless
 * osIsGpuAccessible(pGpu) holds, which asks nv_is_gpu_accessible(nv) in nv.c: whether any file
 * in the calling process's fd table is one of the driver's and belongs to that GPU (iterate_fd
 * over current->files, matched by f_op and the file's GPU; 595.45.04).
 *
 * nvsim keeps that boundary, with the same name and argument (the GPU, as the driver's nv_state_t
 * names it), in a file of its own so that the compiler can neither inline nor clone it: what
 * instruments the real function (qgpu's answer for a tenant, DOC: fd translation in
 * kmod/qgpu_fdxlate.c) reaches nvsim's the same way.
 */
#include <linux/fdtable.h>
#include <linux/fs.h>

#include "nvsim_internal.h"

static int nvsim_match_gpu_file(const void *data, struct file *f, unsigned int fd)
{
	const struct nvsim_file *nf;

	if (f->f_op != &nvsim_fops)
		return 0;
	nf = f->private_data;
	return nf->gpu == data;
}

/**
 * nv_is_gpu_accessible() - whether the calling process has a file of @nv open
 * @nv: the GPU
 *
 * Context: process context; does not sleep (the real one runs under RM's locks).
 * Return: whether any file in the caller's fd table is an nvsim file of @nv.
 */
noinline bool nv_is_gpu_accessible(struct nvsim_gpu *nv)
{
	return iterate_fd(current->files, 0, nvsim_match_gpu_file, nv) != 0;
}
