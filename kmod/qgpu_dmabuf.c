// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: EXPORT_TO_DMABUF_FD on an instance's GPU node.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "qgpu_internal.h"

/**
 * DOC: dma-buf export
 *
 * EXPORT_TO_DMABUF_FD (escape 217, GPU files) makes a dma-buf of ranges of video memory, the
 * path of cuMemGetHandleForAddressRange(CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD) and so of
 * GPUDirect RDMA through ibv_reg_dmabuf_mr(). The driver duplicates each range's memory into
 * its own RM client with kernel privilege and keeps it until the dma-buf is released (every fd
 * and every importer gone; nv-dmabuf.c, osapi.c rm_dma_buf_dup_mem_handle(), 525-595). Two
 * things follow for an instance:
 *
 * - The memory outlives every handle of the tenant's: forwarded, a tenant could allocate its
 *   limit, export it, free its handles and allocate again, without end.
 * - The driver never checks that hClient belongs to the caller (RmDmabufVerifyMemHandle()
 *   only looks the client up, and the kernel-privileged duplicate skips RM's share policy):
 *   any process with a GPU file can export any client's video memory of that GPU, another
 *   instance's included, and hand it to an importer (an RDMA NIC) that reads and writes it.
 *
 * The driver reads the parameters itself, once, after qgpu would have looked at them, and
 * offers no kernel interface to make the call from qgpu's copy; a sibling thread can change
 * hClient and the handles in between. No check qgpu makes on them holds, so qgpu does not
 * pretend: per instance, the ``dmabuf`` knob decides.
 *
 * - ``refuse`` (the default): qgpu answers the call itself and never forwards it. Parameters
 *   the driver would refuse get its status (nvrm_dmabuf_export_check()); the rest get
 *   NV_ERR_NOT_SUPPORTED, which is what the driver answers on a GPU without dma-buf support,
 *   and which callers are told about before they try (below). The
 *   ioctl returns 0, the status field carries the answer, and nothing else is written. The
 *   netlink event ``refused`` says which instance and process asked.
 * - ``allow``: for tenants the operator trusts. The call is forwarded when hClient is one of
 *   the instance's clients (else NV_ERR_INVALID_OBJECT_HANDLE, RM's answer for a client that
 *   does not exist), which keeps honest mistakes inside the instance but not a racing
 *   sibling. Memory a dma-buf holds after its handles are freed is not charged.
 *
 * Changing the knob is live for the calls that follow; existing dma-bufs stay as they are.
 *
 * What the tenant is told: under ``refuse`` the instance's GPU says it has no dma-buf
 * capability. GPU_GET_INFO_V2 and GPU_GET_CACHED_INFO answer DMABUF_CAPABILITY_NO
 * (qgpu_dmabuf_gpu_info()), the only place the driver tells user space the capability (so,
 * by inference, CUDA's CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED), so that NCCL, NVSHMEM and the
 * libfabric plugins never take a path whose export would fail (NCCL's net transport treats a
 * failed export after the attribute said yes as an error, not a reason to fall back). A
 * process that read the capability under ``allow`` may keep what it read when the knob
 * changes: CUDA is free to read it once.
 */

/**
 * qgpu_dmabuf_export() - EXPORT_TO_DMABUF_FD on a proxy
 * @qf: the proxy
 * @cmd: the command (rebuilt for an unwrapped XFER)
 * @arg: the tenant's nv_ioctl_export_to_dma_buf_fd_t
 * @size: its size
 * @compat: the caller is a 32-bit process
 *
 * See DOC: dma-buf export.
 *
 * Context: the caller's process context.
 * Return: what the ioctl returns: 0 with the status in the parameters, or the driver's -EINVAL
 * for a call on nvidiactl or of the wrong size, -EFAULT, -ENOMEM.
 */
long qgpu_dmabuf_export(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			bool compat)
{
	struct qgpu_instance *inst = qf->inst;
	struct nvrm_dmabuf_export d;
	u32 status;
	void *p;

	/* The driver refuses these (-EINVAL) before it reads anything: nothing to decide. */
	if (qf->node != QGPU_NODE_GPU || size != inst->gpu->abi.export_dmabuf_size)
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	p = memdup_user((void __user *)arg, size);
	if (IS_ERR(p))
		return PTR_ERR(p);
	if (WARN_ON_ONCE(nvrm_dmabuf_export_decode(&inst->gpu->abi, p, size, &d))) {
		kfree(p);
		return -EINVAL;
	}
	kfree(p);

	if (READ_ONCE(inst->mem.refuse_dmabuf)) {
		status = nvrm_dmabuf_export_check(&d);
		if (status == NVRM_OK) {
			status = NVRM_ERR_NOT_SUPPORTED;
			qgpu_mem_call_refused(inst, "dma-buf export (dmabuf=refuse)");
		}
	} else if (!xa_load(&inst->mem.clients, qgpu_mem_client_key(d.hclient))) {
		status = NVRM_ERR_INVALID_OBJECT_HANDLE;
	} else {
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	}
	return put_user(status, (u32 __user *)(arg + d.status_off)) ? -EFAULT : 0;
}

/**
 * qgpu_dmabuf_gpu_info() - GPU_GET_INFO_V2 / GPU_GET_CACHED_INFO on an instance that refuses
 *	dma-buf exports
 * @qf: the proxy
 * @cmd: the command
 * @arg: the tenant's NVOS54
 * @compat: the caller is a 32-bit process
 * @c: qgpu's decoded kernel copy of NVOS54
 * @ret: what the ioctl returns, when handled here
 *
 * Forwarded; where RM answered NV_OK, every DMABUF_CAPABILITY entry of the tenant's list is
 * rewritten to NO (nvrm_gpu_info_hide_dmabuf()). The real value sits in tenant memory between
 * RM's copy-out and the rewrite (or for good where forwards are unsealed and a sibling thread
 * moved paramsPtr after qgpu read it: DOC: sealed forwarding), so a thread of the tenant's can
 * read YES: it learns a fact about the hardware, not a way around the refusal. Calls qgpu
 * cannot read (FINN-serialized, or of a size RM refuses) are forwarded unchanged.
 *
 * Context: the caller's process context.
 * Return: true if handled here (*@ret set).
 */
bool qgpu_dmabuf_gpu_info(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
			  bool compat, const struct nvrm_control *c, long *ret)
{
	const struct nvrm_abi *abi = &qf->inst->gpu->abi;
	u32 size = nvrm_gpu_get_info_v2_size(abi), status;
	void *p;

	if (c->cmd != NVRM_CTRL_CMD_GPU_GET_INFO_V2 && c->cmd != NVRM_CTRL_CMD_GPU_GET_CACHED_INFO)
		return false;
	if (!READ_ONCE(qf->inst->mem.refuse_dmabuf) || c->finn_serialized || !c->params_ptr ||
	    c->params_size != size)
		return false;
	*ret = qgpu_forward_control(qf, cmd, arg, compat, c, &status);
	if (*ret || status != NVRM_OK)
		return true;
	p = memdup_user(u64_to_user_ptr(c->params_ptr), size);
	if (IS_ERR(p)) {
		*ret = PTR_ERR(p);
		return true;
	}
	if (nvrm_gpu_info_hide_dmabuf(abi, p, size) &&
	    copy_to_user(u64_to_user_ptr(c->params_ptr), p, size))
		*ret = -EFAULT;
	kfree(p);
	return true;
}
